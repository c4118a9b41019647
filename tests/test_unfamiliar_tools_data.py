"""The unfamiliar-tool sets (benchmarks/unfamiliar_tools.py): each expected call fits its own tool's schema, and the
held-out set shares no tool or question with the set the fit gate's thresholds were read from."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

DATA = Path(__file__).resolve().parent.parent / "data"


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["unfamiliar_tools.json", "unfamiliar_tools_test.json"])
def test_every_expected_call_is_valid_for_its_tool(name):
    data = load(name)
    assert len({t["name"] for t in data["tools"]}) == len(data["tools"]) >= 20
    for t in data["tools"]:
        assert t["expected"]["name"] == t["name"]
        first = {k: v[0] if isinstance(v, list) else v for k, v in t["expected"]["arguments"].items()}
        jsonschema.validate(first, t["parameters"])  # every accepted alternative is checked below
        for k, v in t["expected"]["arguments"].items():
            for alternative in v if isinstance(v, list) else [v]:
                jsonschema.validate({**first, k: alternative}, t["parameters"])
    assert all(q not in {t["question"] for t in data["tools"]} for q in data["no_tool_questions"])


def test_the_held_out_set_shares_nothing_with_the_tuning_set():
    tuning, held = load("unfamiliar_tools.json"), load("unfamiliar_tools_test.json")
    assert not {t["name"] for t in tuning["tools"]} & {t["name"] for t in held["tools"]}
    questions = lambda d: {t["question"] for t in d["tools"]} | set(d["no_tool_questions"])  # noqa: E731
    assert not questions(tuning) & questions(held)
    assert any(any("\u4e00" <= c <= "\u9fff" for c in q) for q in held["no_tool_questions"])  # Chinese as well
