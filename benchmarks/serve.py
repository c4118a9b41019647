"""One model server for a room: time per agent step and requests/s as 1, 5 and 20 students share it.

    .venv/bin/python benchmarks/serve.py [--engine ours|llama_cpp|both] [--students 1 5 20] [--max-tokens 16] [--budget 90]

Starts ``handmade-agent serve`` on loopback (``LocalServer``: the default model, in-process, behind the
course's ASGI app), or llama-cpp-python's own ``python -m llama_cpp.server`` on the same model file
(``LlamaCppServer``, its default settings), or both, and runs N simulated students at once, each a thread with its own ``OpenAIChat``
(the real ``openai`` client). A student makes 3 requests shaped like ReAct agent steps: the same
system prompt with tool descriptions, their own question, and a transcript that grows by one
thought/action/observation per step (canned, so every level sends the same work). Time per step is
what the student waits (line + prefill + decode). Each level is bounded: no new step starts after
``--budget`` seconds. Results are ratios against N = 1 measured in the same run (shared, noisy CPU);
with ``--engine both`` each level runs on both servers back to back (the order alternating by level,
so a drift of the shared CPU hits both alike), and llama_cpp.server's figures are divided by ours.

Deliberately left out: real agent runs (the model's own choices would change the work per level;
benchmarks/agent_tasks.py measures those), streaming, and more than one machine.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from contextlib import ExitStack

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from handmade_agent.llm import Message, OpenAIChat  # noqa: E402
from handmade_agent.local import MODEL_ID  # noqa: E402
from handmade_agent.serve.engine import LlamaCppServer  # noqa: E402
from handmade_agent.serve.server import LocalServer  # noqa: E402

ENGINES = {"ours": LocalServer, "llama_cpp": LlamaCppServer}

TOOLS = "\n".join(f"- {name}: {doc}" for name, doc in [
    ("add_days(date, days)", "the date `days` days after `date` (YYYY-MM-DD)"),
    ("weekday(date)", "the weekday name of a date"), ("calculator(expression)", "evaluates arithmetic"),
    ("knowledge_search(query)", "searches the course notes and returns cited passages"),
    ("get_weather(city)", "today's weather in a city")])
SYSTEM = ("You are an agent that answers with tools. Think step by step. Each turn write exactly:\n"
          "Thought: <one sentence>\nAction: <tool>[<JSON arguments>]\nor, when you know the answer,\n"
          "Thought: <one sentence>\nFinal Answer: <answer>\n\nTools:\n" + TOOLS +
          "\n\nNever write an Observation yourself; the program adds it after each action.")
STEPS = [("I need the date 150 days later.", 'add_days[{"date": "2024-05-20", "days": %d}]', "2024-10-17"),
         ("Now the weekday of that date.", 'weekday[{"date": "2024-10-17"}]', "Thursday")]


def student(i: int, base_url: str, max_tokens: int, deadline: float, times: list, errors: list) -> None:
    llm = OpenAIChat(MODEL_ID, base_url=base_url, timeout=600, max_retries=2)
    messages = [Message("system", SYSTEM), Message("user", f"Today is 2024-05-20. What weekday is it {100 + i} days later?")]
    for step in range(3):
        if time.monotonic() > deadline:
            return
        t0 = time.perf_counter()
        try:
            llm.complete(messages, stop=["Observation:"], max_tokens=max_tokens)
        except Exception as e:  # counted and shown: a failed step is a result of this benchmark
            errors.append(f"{type(e).__name__}: {str(e)[:120]}")
            return
        times.append(time.perf_counter() - t0)
        if step < len(STEPS):
            thought, action, observation = STEPS[step]
            messages += [Message("assistant", f"Thought: {thought}\nAction: {action.replace('%d', str(100 + i))}"),
                         Message("user", f"Observation: {observation}")]


def level(base_url: str, n: int, max_tokens: int, budget: float) -> dict:
    times: list[float] = []
    errors: list[str] = []
    deadline = time.monotonic() + budget
    threads = [threading.Thread(target=student, args=(i, base_url, max_tokens, deadline, times, errors)) for i in range(n)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    q = statistics.quantiles(times, n=20, method="inclusive") if len(times) > 1 else times * 19
    return {"n": n, "steps": len(times), "planned": 3 * n, "errors": errors, "wall": wall,
            "p50": statistics.median(times), "p95": q[18], "rps": len(times) / wall}


def table(name: str, rows: list[dict]) -> None:
    base = rows[0]
    print(f"{name}: ratios against N={base['n']} of the same engine")
    print(f"{'N':>3} {'steps':>9} {'p50 s':>7} {'p95 s':>7} {'req/s':>6} {'p50 ×':>6} {'p95 ×':>6} {'req/s ×':>7}  errors")
    for r in rows:
        print(f"{r['n']:>3} {r['steps']:>4}/{r['planned']:<4} {r['p50']:7.2f} {r['p95']:7.2f} {r['rps']:6.2f} "
              f"{r['p50'] / base['p50']:6.1f} {r['p95'] / base['p95']:6.1f} {r['rps'] / base['rps']:7.2f}  "
              f"{len(r['errors'])} {r['errors'][:1]}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--engine", choices=["ours", "llama_cpp", "both"], default="ours")
    p.add_argument("--students", type=int, nargs="+", default=[1, 5, 20])
    p.add_argument("--max-tokens", type=int, default=16)
    p.add_argument("--budget", type=float, default=90, help="seconds per level after which no step starts")
    p.add_argument("--queue-limit", type=int, default=64, help="our server's line (llama_cpp.server has none)")
    args = p.parse_args()
    names = list(ENGINES) if args.engine == "both" else [args.engine]
    # LocalLLM takes turns with every other course process on the machine (a lock file in the temp folder);
    # llama_cpp.server takes none. A temp folder of the run's own keeps ours from waiting on, say, a notebook
    # run by someone else, so both engines meet whatever else loads the CPU alike.
    os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="serve-bench-")
    rows: dict[str, list[dict]] = {name: [] for name in names}
    with ExitStack() as stack:
        urls = {}
        for name in names:
            urls[name] = stack.enter_context(ENGINES[name](queue_limit=args.queue_limit)).base_url
            OpenAIChat(MODEL_ID, base_url=urls[name]).complete([Message("system", SYSTEM), Message("user", "hi")],
                                                                max_tokens=1)  # warm: the shared system prompt is cached
        for k, n in enumerate(args.students):
            for name in (names if k % 2 == 0 else names[::-1]):
                rows[name].append(level(urls[name], n, args.max_tokens, args.budget))
    print(f"{os.cpu_count()} cores, {MODEL_ID}, max_tokens={args.max_tokens}, budget {args.budget:.0f} s per level")
    for name in names:
        table(name, rows[name])
    if len(names) == 2:
        print("llama_cpp.server / ours at each N (req/s × above 1: theirs serves more; p50 × above 1: theirs is slower)")
        print(f"{'N':>3} {'req/s ×':>8} {'p50 ×':>6} {'p95 ×':>6}")
        for ours, theirs in zip(rows["ours"], rows["llama_cpp"]):
            print(f"{ours['n']:>3} {theirs['rps'] / ours['rps']:8.2f} {theirs['p50'] / ours['p50']:6.2f} "
                  f"{theirs['p95'] / ours['p95']:6.2f}")


if __name__ == "__main__":
    main()
