"""The live audit: recorded replies, drawn afresh each run from every notebook's recording, asked of the real model.

The notebook tier replays recordings, so without this a stale or hand-edited reply could pass forever. Each run
draws a new sample (the seed is printed, to repeat a failure: ``HANDMADE_AGENT_AUDIT_SEED``), re-runs it cold and
requires the recorded text, or a near-tie at the first token where they part (tests/recording_audit.py says why).
A planted wrong reply must be caught.
"""
from __future__ import annotations

import os
import time

import pytest

import recording_audit as ra

pytestmark = pytest.mark.model
TOKEN_BUDGET = 5000  # about a minute and a half of cold prefill on 2 cores


@pytest.fixture(scope="module")
def pool():
    found = ra.entries()
    assert len(found) >= 50, "the notebooks' recordings are missing or nearly empty: make notebooks records them"
    return found


def test_a_fresh_sample_of_recorded_calls_reproduces_on_the_real_model(local_llm, pool):
    seed = int(os.environ.get("HANDMADE_AGENT_AUDIT_SEED") or time.time())
    picked = ra.sample(pool, seed, TOKEN_BUDGET)
    assert len(picked) >= 3 and len({e["notebook"] for e in picked}) >= 2, (seed, [e["notebook"] for e in picked])
    results = ra.audit(local_llm, picked)
    print(f"audit seed {seed}: " + ", ".join(f"{e['notebook']}:{v}" for e, v, _ in results))
    wrong = [(e["notebook"], e["key"], detail) for e, v, detail in results if v == "differs"]
    assert not wrong, (f"recorded replies the model does not give (seed {seed}; re-record the notebook with "
                       f"make notebooks after deleting these entries): {wrong}")


def test_a_planted_wrong_reply_is_caught(local_llm, pool):
    short = min((e for e in pool if e["call"] == "complete" and 3 <= e["completion_tokens"] <= 40),
                key=lambda e: len(e["prompt"]))
    planted = {**short, "text": "Final Answer: the moon is made of green cheese, 42."}
    [(_, verdict, detail)] = ra.audit(local_llm, [planted])
    assert verdict == "differs", detail
    [(_, verdict, detail)] = ra.audit(local_llm, [short])  # the same call as recorded passes
    assert verdict in ("same", "tie"), detail


def test_an_edited_prompt_is_caught_by_its_key_without_running(local_llm, pool):
    e = next(e for e in pool if e["call"] == "complete")
    [(_, verdict, detail)] = ra.audit(local_llm, [{**e, "prompt": e["prompt"] + " "}])
    assert verdict == "differs" and "key" in detail


def test_a_tool_call_spelled_out_under_a_grammar_counts_as_its_own_text(local_llm):
    # CI, 2026-12-06: a reply recorded under a grammar began "<" "tool" ... (a grammar matches text); re-tokenized it
    # read as the one added token <tool_call> at -21.33 nats, and a near tie ("<" -2.62 vs "To" -2.55) failed the audit
    tokens = local_llm._tokens('<tool_call>\n{"name": "x"}')
    ways = ra.spellings(local_llm, tokens, 0)
    assert tokens[0] in ways and local_llm._tokens("<")[0] in ways, ways
    assert ra.spellings(local_llm, tokens, len(tokens)) == {local_llm._llama.token_eos()}


def test_a_recorded_fit_score_is_audited_and_a_planted_one_caught(local_llm, tmp_path):
    # the fit gate's scores (agent/tool_fit.py) are recorded like replies; the audit re-measures them cold
    from handmade_agent.agent import ToolFit
    from handmade_agent.local import Recording
    from handmade_agent.tools import tool

    @tool
    def air_quality(city: str) -> str:
        "Air quality index of a city."
        return "AQI 42"
    rec = Recording(tmp_path / "nb.jsonl", "record")
    ToolFit(local_llm.path, recording=rec, model_sha256=local_llm.model_sha256()).scores(
        "What is the capital of Australia?", [air_quality])
    [entry] = rec.entries.values()
    [(_, verdict, detail)] = ra.audit(local_llm, [{**entry, "notebook": "nb"}])
    assert entry["call"] == "fit" and verdict == "same", detail
    planted = {**entry, "scores": {"air_quality": 9.0}, "notebook": "nb"}  # the gate would have let it through
    [(_, verdict, detail)] = ra.audit(local_llm, [planted])
    assert verdict == "differs", detail
