"""Framework overhead per agent step: everything except the model call, with ScriptedLLM.

    python benchmarks/agent_overhead.py [--runs 200]

The same 8-reply script (7 tool steps with growing history, then a final
answer) is played three ways in one process:

* bare loop: a hand-written loop that calls the same ScriptedLLM, finds the
  action with one regex, json.loads the input and calls the function directly;
* Agent, no observers;
* Agent with an event-recording observer.

Time inside ``llm.complete`` is measured and subtracted, so what is printed
is the loop's own cost per step. A breakdown times the parts the Agent adds:
parsing, the registry's validated/time-limited call, rendering messages.
"""
from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from handmade_agent.agent.loop import Agent  # noqa: E402
from handmade_agent.llm import Message, ScriptedLLM  # noqa: E402
from handmade_agent.react.parser import STOP, parse  # noqa: E402
from handmade_agent.tools.registry import ToolRegistry, tool  # noqa: E402


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


REPLIES = [f'Thought: step {i}\nAction: add\nAction Input: {{"a": {i}, "b": 1}}' for i in range(7)]
REPLIES.append("Thought: done\nFinal Answer: 7")
SYSTEM = "You answer with tools."


class TimedLLM(ScriptedLLM):
    """ScriptedLLM that adds up the seconds spent inside complete()."""
    spent = 0.0

    def complete(self, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return super().complete(*args, **kwargs)
        finally:
            TimedLLM.spent += time.perf_counter() - t0


def bare_loop(llm) -> str:
    messages = [Message("system", SYSTEM), Message("user", "count")]
    for _ in range(8):
        text = llm.complete(messages, stop=STOP).text
        if "Final Answer:" in text:
            return text.split("Final Answer:")[1].strip()
        m = re.search(r"Action: (\w+)\nAction Input: (.*)", text)
        result = add.fn(**json.loads(m.group(2)))
        messages += [Message("assistant", text), Message("user", f"Observation: {result}")]
    return ""


def per_step(fn, runs: int) -> float:
    """Seconds per step outside the model, best of 3 batches."""
    best = float("inf")
    for _ in range(3):
        TimedLLM.spent = 0.0
        t0 = time.perf_counter()
        for _ in range(runs):
            fn(TimedLLM(REPLIES))
        best = min(best, (time.perf_counter() - t0 - TimedLLM.spent) / (runs * len(REPLIES)))
    return best


def timed(fn, n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def main(argv: list[str]) -> None:
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 200
    registry = ToolRegistry([add])
    events: list = []
    bare = per_step(bare_loop, runs)
    plain = per_step(lambda llm: Agent(llm, registry, system_prompt=SYSTEM).run("count"), runs)
    observed = per_step(lambda llm: Agent(llm, registry, system_prompt=SYSTEM,
                                          observers=[events.append]).run("count"), runs)
    print(f"steps per run: {len(REPLIES)}, runs per batch: {runs}")
    print(f"bare loop          {bare * 1e6:8.1f} µs/step   (baseline)")
    print(f"Agent              {plain * 1e6:8.1f} µs/step   ({plain / bare:.1f}x the bare loop)")
    print(f"Agent + observer   {observed * 1e6:8.1f} µs/step   ({observed / bare:.1f}x the bare loop)")
    print("\nwhere the Agent's extra time goes (per call):")
    agent = Agent(TimedLLM(REPLIES), registry, system_prompt=SYSTEM)
    agent.run("count")
    print(f"  parse(reply)            {timed(lambda: parse(REPLIES[3]), 2000) * 1e6:8.1f} µs")
    print(f"  registry.call(add)      {timed(lambda: registry.call('add', {'a': 1, 'b': 2}), 500) * 1e6:8.1f} µs"
          f"   (direct function call: {timed(lambda: add.fn(1, 2), 2000) * 1e6:.2f} µs)")
    print(f"  render 8 steps' msgs    {timed(agent.messages, 2000) * 1e6:8.1f} µs")


if __name__ == "__main__":
    main(sys.argv[1:])
