"""The plan of a workshop: every notebook cut into parts that fit a 90-minute slot, and the instructor's table.

Reads each English notebook (``notebooks/NN_*.ipynb``, plain JSON), splits it into sections at its ``## ``
headings (the title and objectives count with section 1; an unnumbered section such as Takeaways,
Exercises or Interview questions stays with the section before it), and estimates each section's workshop
minutes from its content with one formula:

    minutes = markdown words / 75  +  0.25 × code cells  +  Σ (3 + solution lines / 4)  +  0.5 × interview questions

- words: markdown words outside ``<details>`` blocks (hints and longer answers stay folded in a room), read
  together at 75 words a minute, the teacher explaining as the room reads;
- a code cell: a quarter minute to run it and look at its output (the explaining is in the prose);
- an exercise: a code cell tagged ``solution``: three minutes to read it and run its checker, plus a minute for
  every four lines of the course's solution (code lines, not blanks or comments): a 56-line exercise is not a
  5-line one (with 4 + lines / 3, 01 and 05 would split into parts of 30 and 65 minutes);
- an interview question: a ``<summary>The longer answer</summary>`` block (ask it, take one answer).

The constants are calibrated so that whole notebooks land near the content estimates of issue 32
(06 ≈ 125, 07 ≈ 115, 08 ≈ 135 minutes) while 00–05 stay within one slot; no content count puts 08 above
06, so 07 and 08 come out lower than the issue's figures. It is an estimate, not a measurement.
Consecutive sections are packed greedily into parts of at most 90 minutes, never splitting a section.
The clean run's wall time is the one ``tests/execute_notebook.py`` records (``run_seconds``).

Left out: timing real workshops, balancing parts (greedy is predictable), the Chinese notebooks (same
code; their prose is the English prose translated).

    python tools/workshop_plan.py            # print the table and each notebook's one-line time statement
    python tools/workshop_plan.py --write    # rewrite the table in docs/instructor.md and the headers' time statements
    python tools/workshop_plan.py --check    # exit 1 when docs/instructor.md differs from the notebooks
    python tools/workshop_plan.py --lines /tmp   # the time statements as slot_lines.json, slot_lines_zh.json
"""
from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "instructor.md"
START, END = "<!-- workshop-plan:start -->", "<!-- workshop-plan:end -->"
SLOT, WORDS_PER_MINUTE, CODE_CELL, EXERCISE, LINES_PER_MINUTE, QUESTION = 90, 75, 0.25, 3, 4, 0.5
QUESTION_MARK = "<summary>The longer answer</summary>"
HEADING = re.compile(r"^##\s+(?:([0-9½]+)\s*[.·]?\s+)?(.*)$")
SKIP = {  # typed by hand: what to leave out when a slot runs short
    "00_setup": "the server section (3) if students use a room server anyway",
    "01_tools": "long and noisy output (section 9); approval (section 8) only together with exercise 3, which "
                "builds on it",
    "02_react_parser": "the fuzzing section",
    "03_agent_loop": "the cost table of section 4 (the ablation before it is about a minute of the run)",
    "04_observer": "threshold alerts; OpenTelemetry and Phoenix (section 9, marked optional)",
    "05_memory": "the pickle section and the second SQLite writer",
    "06_rag": "section 7½ (reranking, marked optional)",
    "07_function_calling": "the token mask by hand (section 3) and the server round trip of section 7",
    "08_evaluation": "LLM-as-judge (section 5, marked optional); the capstone can be homework, its checker runs "
                     "the evaluation",
    "10_code_as_action": "the package's source at the end of section 3 (show the table of modules only) and exercise 2",
    "11_many_agents": "handoffs (section 5, marked optional)",
}
INTRO = """Each row is one 90-minute slot. The *estimate* is computed from the notebook's content by
`tools/workshop_plan.py` (reading, running the cells, the exercises, the interview questions; its docstring gives
the formula): an estimate, not a measurement. A notebook whose estimate exceeds 90 minutes is split at its section
headings into parts; a later part starts with a set-up cell, `catch_up`, that runs the cells above it in a new
kernel and replays the course's recorded model calls where the run asks the same thing (on the reference machine a
test requires that every call of part 1 is found, so no question is asked again). The *clean run* is the wall time of the committed top-to-bottom run on the
course's reference machine (2 CPU cores, in-process model), recorded in the notebook by
`tests/execute_notebook.py`. Sections marked *optional* in a notebook are the ones to skip when a slot runs short.
This table is generated (`python tools/workshop_plan.py --write`); a test checks that it matches the notebooks."""


@dataclass
class Section:
    number: str | None
    title: str
    text: str = ""
    code: int = 0
    exercises: int = 0
    solution_lines: int = 0

    @property
    def minutes(self) -> float:
        words = len(re.sub(r"<details>.*?</details>", " ", self.text, flags=re.S).split())
        return (words / WORDS_PER_MINUTE + CODE_CELL * self.code + EXERCISE * self.exercises
                + self.solution_lines / LINES_PER_MINUTE
                + QUESTION * self.text.count(QUESTION_MARK))

    def absorb(self, other: Section) -> None:
        self.text, self.code = self.text + "\n" + other.text, self.code + other.code
        self.exercises, self.solution_lines = self.exercises + other.exercises, self.solution_lines + other.solution_lines


def sections(nb: dict) -> list[Section]:
    """The notebook's ``## `` sections, in order; what comes before the first heading counts with it."""
    found = [Section(None, "")]
    for cell in nb["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code":
            found[-1].code += 1
            if "solution" in cell.get("metadata", {}).get("tags", []):
                found[-1].exercises += 1
                found[-1].solution_lines += sum(1 for line in source.splitlines()
                                                if line.strip() and not line.strip().startswith("#"))
        if cell["cell_type"] != "markdown":
            continue
        for line in source.splitlines():
            if m := HEADING.match(line):
                found.append(Section(m.group(1), m.group(2).strip()))
            found[-1].text += line + "\n"
    if len(found) > 1:
        intro = found.pop(0)
        intro.absorb(found[0])
        intro.number, intro.title = found[0].number, found[0].title
        found[0] = intro
    return found


def parts(found: list[Section], slot: float = SLOT) -> list[list[Section]]:
    """Consecutive sections packed greedily into parts of at most ``slot`` minutes; an unnumbered section
    (takeaways, exercises, interview questions) goes with the section before it."""
    units: list[list[Section]] = []
    for s in found:
        if units and s.number is None:
            units[-1].append(s)
        else:
            units.append([s])
    packed: list[list[Section]] = []
    for unit in units:
        if packed and sum(s.minutes for s in packed[-1] + unit) <= slot:
            packed[-1].extend(unit)
        else:
            packed.append(list(unit))
    return packed


def label(part: list[Section], zh: bool = False) -> str:
    """Which sections a part holds: ``sections 1–6`` (``第 1–6 节``); the table adds the unnumbered ones."""
    numbers = [s.number for s in part if s.number]
    span = f"{numbers[0]}–{numbers[-1]}" if len(numbers) > 1 else "".join(numbers)
    if zh:
        return f"第 {span} 节" if span else ""
    return f"section{'s' if len(numbers) > 1 else ''} {span}" if span else ""


def about(minutes: float) -> int:
    return 5 * round(minutes / 5)


def run_time(nb: dict) -> str:
    seconds = nb.get("metadata", {}).get("handmade_agent", {}).get("run_seconds")
    if not isinstance(seconds, int):
        return "not recorded"
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def time_line(plan: list[list[Section]], zh: bool = False) -> str:
    """The one-line statement a notebook's header carries about its slots."""
    minutes = [about(sum(s.minutes for s in part)) for part in plan]
    if len(plan) == 1:
        return f"时间：约 {minutes[0]} 分钟，一节课" if zh else f"Time: about {minutes[0]} min in one slot"
    count = dict(enumerate(["两", "三", "四"] if zh else ["two", "three", "four"], 2)).get(len(plan), str(len(plan)))
    each = []
    for i, (part, m) in enumerate(zip(plan, minutes), 1):
        where = " and ".join(filter(None, [label(part), "the exercises" if i == len(plan) else ""]))
        zh_where = "和".join(filter(None, [label(part, True), "练习" if i == len(plan) else ""]))
        each.append(f"第 {i} 部分（{zh_where}）约 {m} 分钟" if zh
                    else f"part {i} ({where}) about {m} min")
    return f"时间：{count}节课——" + "，".join(each) if zh else f"Time: {count} slots — " + ", ".join(each)


def notebooks(root: Path = ROOT) -> dict[str, dict]:
    return {p.name: json.loads(p.read_text(encoding="utf-8"))
            for p in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))}


def table(nbs: dict[str, dict]) -> str:
    rows = ["| notebook | part | sections | estimate | clean run | what to skip when a slot runs short |",
            "| --- | --- | --- | --- | --- | --- |"]
    for name, nb in nbs.items():
        plan = parts(sections(nb))
        stem = Path(name).stem
        for i, part in enumerate(plan, 1):
            first, which = i == 1, "one slot" if len(plan) == 1 else f"{i} of {len(plan)}"
            held = ", ".join(filter(None, [label(part)] + [s.title.lower() for s in part if not s.number]))
            rows.append(f"| {f'`{stem}`' if first else ''} | {which} | {held}"
                        f" | about {about(sum(s.minutes for s in part))} min"
                        f" | {run_time(nb) if first else ''} | {SKIP.get(stem, '—') if first else ''} |")
    return f"{START}\n\n{INTRO}\n\n" + "\n".join(rows) + f"\n\n{END}"


def page(current: str, nbs: dict[str, dict]) -> str:
    """``current`` with the text between the markers replaced by the table the notebooks give."""
    if START not in current or END not in current:
        raise SystemExit(f"{PAGE} has no {START} ... {END} markers")
    head, rest = current.split(START, 1)
    return head + table(nbs) + rest.split(END, 1)[1]


def main(argv: list[str]) -> int:
    nbs = notebooks()
    current = PAGE.read_text(encoding="utf-8")
    if "--check" in argv:
        if page(current, nbs) != current:
            print(f"{PAGE} is not what the notebooks give: run `python tools/workshop_plan.py --write`")
            return 1
        return 0
    if "--write" in argv:
        import header_times  # each header's time statement, from the same plan and the clean run's seconds
        for path in header_times.rewrite():
            print(f"{path}: header's time statement rewritten")
        nbs = notebooks()
        PAGE.write_text(page(current, nbs), encoding="utf-8")
    else:
        print(table(nbs))
    lines = {lang: {n: time_line(parts(sections(nb)), lang == "zh") for n, nb in nbs.items()} for lang in ("en", "zh")}
    for name, line in lines["en"].items():
        print(f"{name}: {line}")
    if "--lines" in argv:
        out = Path(argv[argv.index("--lines") + 1])
        for lang, suffix in (("en", ""), ("zh", "_zh")):
            (out / f"slot_lines{suffix}.json").write_text(json.dumps(lines[lang], ensure_ascii=False, indent=1) + "\n",
                                                         encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
