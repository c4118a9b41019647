"""Local model speed: decode tokens/s, first-token latency, in-process vs served, and KV prefix reuse.

    .venv/bin/python benchmarks/llm.py [--repeats 3]

Figures are medians over repeats; comparisons are ratios against a baseline
measured in the same run, because these machines are noisy.
"""
from __future__ import annotations

import argparse
import statistics
import time

from handmade_agent.llm import Message, OpenAIChat
from handmade_agent.local import MODEL_ID, LocalLLM, LocalServer

STORY = [Message("user", "Write a short story about a lighthouse keeper, about 150 words.")]
SYSTEM = ("You are a careful assistant that answers with tools. " * 40).strip()


def median_of(fn, repeats: int) -> float:
    return statistics.median(fn() for _ in range(repeats))


def decode_rate(llm: LocalLLM) -> float:
    c = llm.complete(STORY, max_tokens=128)
    return c.usage.completion_tokens / c.latency


def first_token_latency(llm: LocalLLM) -> float:
    llm._llama.reset()  # a cold prompt: what a user waits for before the first token appears
    return llm.complete(STORY, max_tokens=1).latency


def growing_prompt_second_call(llm: LocalLLM) -> float:
    """A ReAct-like run: the second prompt is the first plus the reply and an observation."""
    first = [Message("system", SYSTEM), Message("user", "Question: what is 17 * 23?")]
    reply = llm.complete(first, max_tokens=24).text
    second = first + [Message("assistant", reply), Message("user", "Observation: 391")]
    return llm.complete(second, max_tokens=24).latency


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    n = ap.parse_args().repeats
    t0 = time.perf_counter()
    llm = LocalLLM()
    print(f"model load: {time.perf_counter() - t0:.2f} s  ({llm.path.name})")
    llm.complete(STORY, max_tokens=4)  # warm-up

    rate = median_of(lambda: decode_rate(llm), n)
    print(f"decode: {rate:.1f} tokens/s (median of {n}; ~12-15 measured on the 2-core course machines)")
    ttft = median_of(lambda: first_token_latency(llm), n)
    print(f"first-token latency, cold prompt of {llm.count_tokens(llm.format_prompt(STORY))} tokens: {ttft * 1000:.0f} ms")

    reuse = median_of(lambda: growing_prompt_second_call(llm), n)
    no_reuse_llm = LocalLLM(reuse_prefix=False)
    no_reuse = median_of(lambda: growing_prompt_second_call(no_reuse_llm), n)
    print(f"growing prompt, 2nd call: with prefix reuse {reuse * 1000:.0f} ms, without {no_reuse * 1000:.0f} ms "
          f"-> reuse is {no_reuse / reuse:.1f}x faster")
    del no_reuse_llm

    msgs = [Message("user", "What is 2+3? Answer with the number only.")]
    in_process = median_of(lambda: llm.complete(msgs, max_tokens=8).latency, n)
    with LocalServer() as server:
        client = OpenAIChat(MODEL_ID, base_url=server.base_url)
        client.complete(msgs, max_tokens=8)  # warm-up (and the one-time model-name check)

        def served() -> float:
            t = time.perf_counter()
            client.complete(msgs, max_tokens=8)
            return time.perf_counter() - t
        over_http = median_of(served, n)
    print(f"short request: in-process {in_process * 1000:.0f} ms, served over HTTP {over_http * 1000:.0f} ms "
          f"-> HTTP costs {over_http / in_process:.2f}x")


if __name__ == "__main__":
    main()
