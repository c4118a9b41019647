"""Long conversations on a small budget: which memory still knows, at turn 32, what the customer said at turn 2?

Each scripted conversation of ``data/long_conversations.jsonl`` is fed turn by turn into a memory with the same
token budget; then every probe (a fact from the opening) is asked once, with what that memory sends. Memories:

- ``full``: every turn, no budget (the reference: what the facts cost when nothing is dropped);
- ``window``: chapter 05's token window (truncation);
- ``summary``: chapter 05's ``SummaryMemory`` (notes on each evicted turn);
- ``compaction``: ``CompactingMemory`` (one rewritten note near the budget);
- ``compaction+recall``: the same memory, with the old turns most like the probe added (``messages_for``).

Printed per memory: probes answered right (the suite's ``check_answer``), the memory's prompt tokens per turn
(what each turn of the conversation would send), the memory's own model calls and their tokens, and the probes'
prompt tokens. ``--out`` writes the figures as JSON (``docs/results/long_conversations.json``).

    python benchmarks/long_conversations.py --budget 400 --out docs/results/long_conversations.json
    python benchmarks/long_conversations.py --rescore docs/results/long_conversations.json   # no model: the
        # stored answers checked again against the data file's current checkers (after a checker is fixed)
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "long_conversations.jsonl"
MEMORIES = ("full", "window", "summary", "compaction", "compaction+recall")
SYSTEM = {"en": "You are the support assistant of Quillfern. Answer from the conversation, in one short sentence. "
                "If the conversation does not say, answer that you do not know.",
          "zh": "你是羽蕨的客服助手。根据对话内容用一句话简短回答；对话里没有说过的，就回答不知道。"}


def build(kind: str, llm, budget: int, calls: list):
    from handmade_agent.memory import CompactingMemory, ConversationMemory, SummaryMemory
    from handmade_agent.memory import token_counter
    count = token_counter(llm)
    if kind == "full":
        return ConversationMemory(count_tokens=count)
    if kind == "window":
        return ConversationMemory(max_tokens=budget, count_tokens=count)
    if kind == "summary":
        return SummaryMemory(llm, max_tokens=budget, summary_max_tokens=budget // 3, count_tokens=count,
                             observers=[calls.append])
    return CompactingMemory(llm, max_tokens=budget, note_max_tokens=budget // 3, count_tokens=count,
                            observers=[calls.append])


def run(llm, conversations: list[dict], budget: int, kinds=MEMORIES) -> dict:
    from handmade_agent.agent import events as ev
    from handmade_agent.evaluation import check_answer
    from handmade_agent.llm import Message
    out: dict = {}
    for kind in kinds:
        right, per_turn, probe_tokens, calls, rows = 0, [], [], [], []
        t0 = time.perf_counter()
        for conv in conversations:
            memory = build(kind.split("+")[0], llm, budget, calls)
            for user, assistant in conv["turns"]:
                memory.add(Message("user", user))
                memory.add(Message("assistant", assistant))
                per_turn.append(memory.tokens())
            for probe in conv["probes"]:
                sent = memory.messages_for(probe["question"]) if kind.endswith("+recall") else memory.messages()
                messages = [Message("system", SYSTEM[conv["lang"]]), *sent, Message("user", probe["question"])]
                c = llm.complete(messages, max_tokens=60, temperature=0.0)
                ok = check_answer(c.text, probe["checker"])
                right += ok
                probe_tokens.append(c.usage.prompt_tokens)
                rows.append({"conversation": conv["id"], "question": probe["question"], "answer": c.text, "ok": ok})
        done = [e for e in calls if isinstance(e, ev.LLMCallFinished)]
        out[kind] = {"right": right, "probes": len(rows), "tokens_per_turn": round(statistics.mean(per_turn), 1),
                     "memory_calls": len(done), "memory_prompt_tokens": sum(e.usage.prompt_tokens for e in done),
                     "memory_completion_tokens": sum(e.usage.completion_tokens for e in done),
                     "probe_prompt_tokens": round(statistics.mean(probe_tokens), 1),
                     "seconds": round(time.perf_counter() - t0, 1), "answers": rows}
        r = out[kind]
        print(f"{kind:<18} {r['right']:>2}/{r['probes']}  {r['tokens_per_turn']:>7} tokens/turn  "
              f"{r['memory_calls']:>3} memory calls ({r['memory_prompt_tokens']:,} + {r['memory_completion_tokens']:,} "
              f"tokens)  probe prompt {r['probe_prompt_tokens']:>6}  {r['seconds']:>6} s", flush=True)
    return out


def rescore(path: Path, conversations: list[dict]) -> dict:
    """The figures of ``path`` with every stored answer checked again; ``rescored`` keeps the earlier counts."""
    from handmade_agent.evaluation import check_answer
    saved = json.loads(path.read_text(encoding="utf-8"))
    checkers = {(c["id"], p["question"]): p["checker"] for c in conversations for p in c["probes"]}
    for name, r in saved["memories"].items():
        for row in r["answers"]:
            row["ok"] = check_answer(row["answer"], checkers[(row["conversation"], row["question"])])
        before, r["right"] = r["right"], sum(row["ok"] for row in r["answers"])
        r.setdefault("rescored", []).append({"right_before": before, "right_after": r["right"]})
        print(f"{name:<18} {before:>2} -> {r['right']:>2}/{r['probes']}")
    path.write_text(json.dumps(saved, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return saved


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--budget", type=int, default=400, help="tokens of conversation a memory may send (default 400)")
    p.add_argument("--memories", default=",".join(MEMORIES), help=f"any of {', '.join(MEMORIES)}")
    p.add_argument("--limit", type=int, default=None, help="only the first N conversations")
    p.add_argument("--out", default=None, help="write the figures as JSON here")
    p.add_argument("--rescore", default=None, help="check the answers stored in this JSON again (no model)")
    args = p.parse_args(argv)
    if args.rescore:
        rescore(Path(args.rescore), [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()])
        return 0
    from handmade_agent.backends import course_llm
    llm = course_llm()
    conversations = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()][:args.limit]
    kinds = [k for k in args.memories.split(",") if k]
    if unknown := set(kinds) - set(MEMORIES):
        sys.exit(f"unknown memories {sorted(unknown)}; choose from {', '.join(MEMORIES)}")
    print(f"model: {llm.model}; {len(conversations)} conversations, budget {args.budget} tokens")
    result = run(llm, conversations, args.budget, kinds)
    if args.out:
        Path(args.out).write_text(json.dumps({"model": llm.model, "budget": args.budget, "memories": result},
                                             ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
