"""Parser accuracy by category: the package parser next to a naive line parser, same corpus.

    python benchmarks/parser.py [data/react_corpus.jsonl] [--show-failures]

The corpus (``data/react_corpus.jsonl``) holds model replies with the parse a
careful reader would expect: an action (tool + input), a final answer, or
"error" (nothing recoverable / ambiguous: the parser must refuse). A parser
scores a row when it returns exactly the expected step, or raises for an
"error" row. The naive parser is the first attempt of notebook 02: it reads
lines that start exactly with ``Action:``, ``Action Input:`` (json.loads)
and ``Final Answer:``. Also printed: parse time per reply for both (the
naive parser is the baseline measured in the same run).
"""
from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from handmade_agent.errors import FormatError  # noqa: E402
from handmade_agent.react.parser import Action, FinalAnswer, parse  # noqa: E402


def naive_parse(text: str):
    """The first-attempt parser: exact labels at line starts, strict JSON, first Final Answer wins."""
    tool = args = None
    for line in text.splitlines():
        if line.startswith("Final Answer:"):
            return FinalAnswer(line[len("Final Answer:"):].strip())
        if line.startswith("Action Input:"):
            args = json.loads(line[len("Action Input:"):])
        elif line.startswith("Action:"):
            tool = line[len("Action:"):].strip()
    if tool and args is not None:
        return Action(tool, args)
    raise ValueError("no Action/Action Input and no Final Answer")


def matches(got, expect: dict) -> bool:
    """Does a parse result (or the exception raised) equal the expected step?"""
    if expect["kind"] == "error":
        return isinstance(got, Exception)
    if expect["kind"] == "final":
        return isinstance(got, FinalAnswer) and got.answer.strip() == expect["answer"].strip()
    return isinstance(got, Action) and got.tool == expect["tool"] and got.input == expect["input"]


def run(parser, text: str):
    try:
        return parser(text)
    except Exception as e:  # the naive parser raises anything; both count as "refused"
        return e


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: list[str]) -> int:
    path = Path(next((a for a in argv if not a.startswith("--")), ROOT / "data" / "react_corpus.jsonl"))
    rows = load(path)
    score: dict[str, dict[str, list[int]]] = {"package": defaultdict(lambda: [0, 0]),
                                             "naive": defaultdict(lambda: [0, 0])}
    failures = []
    for row in rows:
        for name, parser in (("package", parse), ("naive", naive_parse)):
            ok = matches(run(parser, row["text"]), row["expect"])
            for key in (row["category"], f"source:{row['source']}", "ALL"):
                score[name][key][0] += ok
                score[name][key][1] += 1
            if name == "package" and not ok:
                failures.append(row)
    cats = sorted({r["category"] for r in rows}) + sorted({f"source:{r['source']}" for r in rows}) + ["ALL"]
    print(f"{'category':<22}{'rows':>6}{'package':>10}{'naive':>10}")
    for c in cats:
        p, n = score["package"][c], score["naive"][c]
        print(f"{c:<22}{p[1]:>6}{p[0] / p[1]:>10.0%}{n[0] / n[1]:>10.0%}")
    texts = [r["text"] for r in rows]
    timing = {}
    for name, parser in (("package", parse), ("naive", naive_parse)):
        t0 = time.perf_counter()
        for _ in range(20):
            for t in texts:
                run(parser, t)
        timing[name] = (time.perf_counter() - t0) / (20 * len(texts))
    print(f"\nparse time per reply: package {timing['package'] * 1e6:.0f} µs, naive {timing['naive'] * 1e6:.1f} µs "
          f"(package/naive = {timing['package'] / timing['naive']:.0f}x)")
    if "--show-failures" in argv:
        for row in failures:
            print(f"\nFAIL {row['id']} ({row['note']}):\n{row['text']}\n-> {run(parse, row['text'])!r}")
    acc = score["package"]["ALL"][0] / score["package"]["ALL"][1]
    return 0 if acc >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
