"""What each of the loop's mechanisms is worth: on the tasks where it acted, the agent with it and without it.

A run of the suite records, per task, which mechanisms acted (``TaskOutcome.fired``: the repeat guard and the
answer-only step after a repeat, the second answer from the results, the answer translation; ``sent_back``: the
copied-error check). Where a mechanism did not act it changes nothing, so its whole effect on the suite lies in
the tasks where it did. This script reruns exactly those tasks twice, in one session: with the configuration as it
is and with that one mechanism switched off (the suite's ablation suffix), and prints per mechanism how many tasks
it acted on and the successes and prompt tokens both ways. Both sides are rerun, not read from the first run,
because greedy decoding after a reused prefix can part by a token between runs.

    python benchmarks/mechanisms.py --outcomes run.jsonl --config react+c --out docs/results/mechanisms.jsonl

Left out: mechanisms that act on every task (the result recap, the worked examples: ablate them on the whole
suite, ``--configs react+c-recap``) and the knowledge-base tool's own (``kb_tasks.py``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# what an outcome records when the mechanism acted -> the suite's switch that turns it off
MECHANISMS = {"repeat_guard": "-guard", "call:answer": "-reanswer", "call:translate": "-translate",
              "error_not_answer": "-errors"}


def acted(outcome, mechanism: str) -> bool:
    return mechanism in outcome.fired or mechanism in outcome.sent_back


def main(argv: list[str] | None = None) -> None:
    from handmade_agent.cli import make_llm
    from handmade_agent.evaluation import evaluate, load_tasks, parse_configs
    from handmade_agent.evaluation.report import read_outcomes

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--outcomes", required=True, help="a JSONL run of the suite that recorded `fired`")
    ap.add_argument("--config", default="react+c")
    ap.add_argument("--split", default="suite")
    ap.add_argument("--only", default="", help="comma-separated mechanisms (default: all)")
    ap.add_argument("--out", default=None, help="JSONL file the reruns' outcomes are appended to")
    args = ap.parse_args(argv)
    first = [o for o in read_outcomes(args.outcomes) if o.config == args.config]
    tasks = {t.id: t for t in load_tasks(split=args.split)}
    chosen = [m for m in MECHANISMS if not args.only or m in args.only.split(",")]
    llm, rows = make_llm("auto"), []
    for mechanism in chosen:
        ids = [o.task_id for o in first if acted(o, mechanism)]
        if not ids:
            rows.append((mechanism, 0, len(first), None, None))
            continue
        configs = parse_configs([args.config, args.config + MECHANISMS[mechanism]])
        outcomes = evaluate(llm, [tasks[i] for i in ids], configs, out=args.out, progress=None)
        on, off = outcomes[:len(ids)], outcomes[len(ids):]
        rows.append((mechanism, len(ids), len(first), on, off))
        print(f"{mechanism}: acted on {len(ids)} tasks; changed: "
              f"{[(a.task_id, a.success, b.success) for a, b in zip(on, off) if a.success != b.success]}", flush=True)
    print(f"\n{'mechanism':18} {'acted on':>10} {'with':>6} {'without':>8} {'tokens (without/with)':>22}")
    for mechanism, n, total, on, off in rows:
        if not n:
            print(f"{mechanism:18} {f'0/{total}':>10} {'-':>6} {'-':>8} {'-':>22}")
            continue
        ratio = sum(o.prompt_tokens for o in off) / max(1, sum(o.prompt_tokens for o in on))
        print(f"{mechanism:18} {f'{n}/{total}':>10} {sum(o.success for o in on):>6} {sum(o.success for o in off):>8} "
              f"{ratio:>21.2f}x")


if __name__ == "__main__":
    main()
