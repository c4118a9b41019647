"""The room's server under attack, live: the real ``handmade-agent serve`` process and the course's model (issue 31).

``hostile_round3.py`` sends its server attacks to the app in process, with a fake model. This script sends
the same table over a socket to the real server, and after each one a plain request that must be answered
within ``PLAIN_SECONDS``. Then what the limits still accept, at their edge: the costliest client grammar
(as many ``"a"{0,255}`` as ``MAX_REPEAT_WORK`` lets through) and a tool of 64 optional properties (the
schema that used to double the grammar build with each property) under ``tool_choice: "required"``; a
burst of tokenize requests larger than the tokenizer's line; and last SIGTERM while the costliest grammar
request is being served: the process must be gone, its port free, within ``EXIT_SECONDS``.

    .venv/bin/python benchmarks/hostile_live.py     # one row per attack; about a minute on 2 cores

Left out: many attackers at once (``benchmarks/serve.py`` measures a loaded room), and cancelling llama.cpp
inside one grammar compile: the limits bound that compile instead, and the rows here measure the bound.
"""
from __future__ import annotations

import json
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PLAIN_SECONDS, EXIT_SECONDS = 2.0, 5.0
WIDE_TOOL = {"type": "function", "function": {"name": "form", "parameters": {
    "type": "object", "properties": {f"field_{i}": {"type": "string"} for i in range(64)}}}}


def costliest_grammar() -> str:
    """The most ``"a"{0,255} ","`` repeats the server's grammar checks still accept: the costliest it runs for a client."""
    from handmade_agent.serve.limits import BadRequest, check_grammar
    for n in range(256, 0, -1):
        text = "root ::= " + '"a"{0,255} "," ' * n
        try:
            check_grammar(text)
            return text
        except BadRequest:
            continue
    raise AssertionError("the limits accept no repetition at all")


def post(client: Any, path: str, body: dict, headers: dict | None = None) -> tuple[int, str, float]:
    t0 = time.perf_counter()
    r = client.post(path, content=json.dumps(body), headers={"Content-Type": "application/json", **(headers or {})})
    return r.status_code, r.text, time.perf_counter() - t0


def rows(server: Any) -> list[dict]:
    """One row per attack: its status, whether the refusal said why, and the plain request that followed."""
    import httpx
    from hostile_round3 import server_attacks

    from handmade_agent.serve.limits import MAX_TOKENIZE_CHARS
    base = server.base_url.removesuffix("/v1")
    out = []
    with httpx.Client(base_url=base, timeout=120) as client:
        model = client.get("/v1/models").json()["data"][0]["id"]
        plain = {"model": model, "messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 4}
        post(client, "/v1/chat/completions", plain)  # the first request loads the chat template's prefix

        def row(name: str, send: Any, status: int | None, says: str = "") -> None:
            got, text, seconds = send()
            ok_status, _, after = post(client, "/v1/chat/completions", plain)
            out.append({"attack": name, "status": got, "expected": status, "said_why": says in text,
                        "seconds": seconds, "plain_status": ok_status, "plain_seconds": after})

        for name, (status, says, body, headers) in server_attacks().items():
            row(name, lambda b=body, h=headers: post(client, "/v1/chat/completions", {**plain, **b}, h), status, says)
        from hostile_round4_serve import corpus
        for name, text in corpus().WEDGES.items():  # issue 49's G1: grammars that wedged llama.cpp's set-up
            row(f"G1 grammar: {name}", lambda t=text: post(client, "/v1/chat/completions", {**plain, "grammar": t}),
                400, "MAX_GRAMMAR_")
        row("costliest accepted grammar", lambda: post(client, "/v1/chat/completions",
            {**plain, "grammar": costliest_grammar(), "max_tokens": 16}), 200)
        row("64 optional properties, required", lambda: post(client, "/v1/chat/completions",
            {**plain, "tools": [WIDE_TOOL], "tool_choice": "required", "max_tokens": 16}), 200)

        def burst() -> tuple[int, str, float]:
            t0 = time.perf_counter()
            with ThreadPoolExecutor(32) as pool:
                codes = list(pool.map(lambda _: post(client, "/extras/tokenize", {"input": "雨 rain " * (MAX_TOKENIZE_CHARS // 7)})[0],
                                      range(32)))
            return (503 if 503 in codes else max(codes)), json.dumps(sorted(set(codes))), time.perf_counter() - t0
        row("32 tokenize requests at the size limit at once", burst, 503)
    return out


def exit_during_grammar(server: Any) -> float:
    """Seconds from SIGTERM, sent while the costliest accepted grammar is being served, to the process gone."""
    import httpx
    base = server.base_url.removesuffix("/v1")
    body = {"messages": [{"role": "user", "content": "Say a long word."}], "grammar": costliest_grammar(),
            "max_tokens": 256}
    sender = threading.Thread(target=lambda: _quietly(lambda: httpx.post(f"{base}/v1/chat/completions",
                                                                         json=body, timeout=60)), daemon=True)
    sender.start()
    time.sleep(0.5)
    t0 = time.perf_counter()
    server.process.send_signal(signal.SIGTERM)
    try:
        server.process.wait(timeout=30)
    except Exception:
        return float("inf")
    return time.perf_counter() - t0


def _quietly(call: Any) -> None:
    try:
        call()
    except Exception:  # the server going away mid-request is the point
        pass


def main() -> None:
    from handmade_agent.serve.server import LocalServer
    server = LocalServer().start()
    try:
        table = rows(server)
        seconds = exit_during_grammar(server)
    finally:
        server.stop()
    print(f"{'attack':42} {'status':>6} {'want':>5} {'why':>4} {'took':>7} {'plain after':>12}")
    for r in table:
        print(f"{r['attack'][:42]:42} {r['status']:>6} {r['expected']:>5} {'yes' if r['said_why'] else 'no':>4} "
              f"{r['seconds']:6.2f}s {r['plain_status']:>5} {r['plain_seconds']:5.2f}s")
    worst = max(r["plain_seconds"] for r in table)
    wrong = [r["attack"] for r in table if r["status"] != r["expected"] or not r["said_why"] or r["plain_status"] != 200]
    print(f"\nattacks: {len(table)}; wrong: {len(wrong)} {wrong}; slowest plain request after one: {worst:.2f} s "
          f"(bound {PLAIN_SECONDS} s); SIGTERM during the costliest grammar: exited in {seconds:.2f} s "
          f"(bound {EXIT_SECONDS} s)")


if __name__ == "__main__":
    main()
