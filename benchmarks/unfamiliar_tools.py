"""Tools the course never saw: does the agent write a readable step, the right call, or refuse when none fits?

    python benchmarks/unfamiliar_tools.py [--configs react+c,react,native+c,native] [--limit N] [--seed 0] [--split test]

``data/unfamiliar_tools.json`` holds tool definitions (JSON Schemas in varied domains, none from the
course's toolbox or worked examples), each with one question and the call it expects, and questions
that no offered tool answers. Each question is offered the right tool plus 4 distractors (or 5 random
tools for a no-tool question), drawn with a fixed seed, and the local model (greedy) takes ONE step
with the package defaults. Scored by code:

* readable: the step is an action or a final answer (not a format error);
* right call: the tool named is the expected one and every expected argument matches after
  normalisation (strings case- and space-insensitive, numbers as numbers; a list in the data
  lists accepted alternatives, e.g. "Spanish" or "es");
* right refusal: on a no-tool question the step is a final answer, not a call. The questions are of two sorts,
  both scored so: a model answers "tell me a joke" or "who painted the Mona Lisa" from what it knows, and must
  refuse "order me a pizza"; what is wrong either way is calling an offered tool that does something else.
  A tool that would answer after all (``answered_by`` in the data: an article summary for the Mona Lisa) is
  never offered with such a question.

Configs: ``react`` / ``native`` (protocol), ``+c`` for grammar-constrained decoding. Every tool here is narrow, so
the agent's own fit gate is on by default (``agent/tool_fit.py``: every tool when one scores above 0, else none, so
the step can only answer; above 2 the step must call a tool); ``+nofit`` turns it off (``tool_fit=False``, the agent
as it was before the gate), ``+none`` keeps its first half alone. ``--limit N`` takes the first N tool
questions and N/2 no-tool questions (a full run is a few minutes per config). ``--split test`` runs
``data/unfamiliar_tools_test.json`` instead: 20 tools and 10 no-tool questions written after the fit gate's thresholds
were read off the main set, run only to report. ``--log FILE`` writes each question's offered tools, fit scores and
step as JSON lines.
"""
from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from handmade_agent.agent import Agent, fit_gate  # noqa: E402
from handmade_agent.agent.tool_fit import scorer_for  # noqa: E402
from handmade_agent.tools import Tool  # noqa: E402

DATA = ROOT / "data" / "unfamiliar_tools.json"
TEST_DATA = ROOT / "data" / "unfamiliar_tools_test.json"  # held out: never tuned on


def norm(value):
    """A value as compared: numbers as floats, text case-folded with spaces and outer quotes/dots trimmed."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = " ".join(value.split()).strip(" .'\"").casefold()
        try:
            return float(text)
        except ValueError:
            return text
    return value


def right_call(step, expected: dict) -> bool:
    if step.kind != "action" or not step.tool_uses or step.tool != expected["name"]:
        return False
    args = step.input if isinstance(step.input, dict) else {}
    return all(norm(args.get(k)) in [norm(x) for x in (v if isinstance(v, list) else [v])]  # a list: alternatives
               for k, v in expected["arguments"].items())


def make_tool(spec: dict) -> Tool:
    return Tool(spec["name"], spec["description"], spec["parameters"], lambda **kwargs: "done")


def offers(data: dict, seed: int) -> list[tuple[str, list[dict], dict | None]]:
    """(question, offered tool specs, expected call or None) for every question, tools drawn with ``seed``."""
    rng, specs = random.Random(seed), data["tools"]
    out = []
    for spec in specs:
        others = rng.sample([s for s in specs if s is not spec], 4)
        offered = others[:]
        offered.insert(rng.randrange(5), spec)
        out.append((spec["question"], offered, spec["expected"]))
    for question in data["no_tool_questions"]:
        # a summary of an article answers "Who painted the Mona Lisa?": such a tool is never its distractor
        answering = set(data.get("answered_by", {}).get(question, []))
        out.append((question, rng.sample([s for s in specs if s["name"] not in answering], 5), None))
    return out


def run(llm, config: str, items: list, log=None) -> dict:
    strategy, *switches = config.split("+")
    constrained, fit, gated = "c" in switches, scorer_for(llm), not {"nofit", "none"} & set(switches)
    score = {"readable": 0, "calls": 0, "call_n": 0, "refusals": 0, "refusal_n": 0, "seconds": 0.0}
    for question, offered, expected in items:
        t0 = time.perf_counter()
        tools = [make_tool(s) for s in offered]
        fit.last = {}
        gate = fit_gate(question, tools, fit, act_above=float("inf")) if "none" in switches else {"tools": tools}
        kept: list = []  # the tools the run was offered, as its RunStarted event says
        agent = Agent(llm, strategy=strategy, constrained=constrained, max_steps=1, tool_fit=gated, **gate,
                      observers=[lambda e: kept.extend(getattr(e, "offered", []) if e.kind == "run_started" else [])])
        step = agent.run(question).steps[0]
        score["seconds"] += time.perf_counter() - t0
        score["readable"] += step.kind in ("action", "final_answer")
        if expected is None:
            score["refusal_n"] += 1
            ok = step.kind == "final_answer"
            score["refusals"] += ok
        else:
            score["call_n"] += 1
            ok = right_call(step, expected)
            score["calls"] += ok
        seen = f"{step.tool} {json.dumps(step.input, ensure_ascii=False)}" if step.tool_uses else \
            f"{step.kind}: {step.answer or ''}"
        print(f"  {config:<9} {'ok ' if ok else 'BAD'} {question[:60]:<60} -> {seen[:90]}", flush=True)
        if log:
            log.write(json.dumps({"config": config, "question": question, "ok": bool(ok),
                                  "offered": [s["name"] for s in offered], "kept": kept,
                                  "scores": fit.last or None, "step": seen}, ensure_ascii=False) + "\n")
            log.flush()
    return score


def main(argv: list[str]) -> None:
    if "--help" in argv or "-h" in argv:
        print(__doc__)
        return
    from handmade_agent.local import LocalLLM

    def option(name: str, default: str) -> str:
        return argv[argv.index(name) + 1] if name in argv else default

    configs = option("--configs", "react+c,react,native+c,native").split(",")
    limit, seed = int(option("--limit", "0")), int(option("--seed", "0"))
    data = json.loads((TEST_DATA if option("--split", "") == "test" else DATA).read_text(encoding="utf-8"))
    items = offers(data, seed)
    calls, nones = [i for i in items if i[2]], [i for i in items if not i[2]]
    if limit:
        calls, nones = calls[:limit], nones[:max(1, limit // 2)]
    llm, table = LocalLLM(), {}
    log = open(option("--log", ""), "w", encoding="utf-8") if "--log" in argv else None
    for config in configs:
        table[config] = run(llm, config, calls + nones, log)
    print(f"\n{'config':<10}{'readable':>12}{'right call':>14}{'right refusal':>16}{'s/question':>12}")
    for config, s in table.items():
        n = s["call_n"] + s["refusal_n"]
        print(f"{config:<10}{s['readable']:>6}/{n:<5}{s['calls']:>8}/{s['call_n']:<5}{s['refusals']:>10}/{s['refusal_n']:<5}"
              f"{s['seconds'] / n:>10.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
