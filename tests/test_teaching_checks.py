"""check and check_model (handmade_agent/teaching.py): a claim about code fails everywhere; a claim about the
model fails only on the course's model, and elsewhere prints the course's run against yours."""
from __future__ import annotations

import pytest

from handmade_agent.teaching import check, check_model, on_course_model


@pytest.fixture
def course(monkeypatch):
    monkeypatch.delenv("HANDMADE_AGENT_BASE_URL", raising=False)
    monkeypatch.delenv("HANDMADE_AGENT_LOCAL_MODEL", raising=False)


def test_on_the_course_model_a_model_claim_is_asserted_like_a_code_claim(course, capsys):
    assert on_course_model()
    check_model("the model called the calculator", True)
    assert capsys.readouterr().out == "✓ the model called the calculator\n"
    with pytest.raises(AssertionError, match="✗ the model called the calculator .got 'weather'."):
        check_model("the model called the calculator", False, detail="weather")


@pytest.mark.parametrize("elsewhere", [{"HANDMADE_AGENT_LOCAL_MODEL": "0.5b"},
                                       {"HANDMADE_AGENT_BASE_URL": "http://127.0.0.1:9/v1"}])
def test_on_any_other_model_it_prints_both_runs_and_goes_on(course, monkeypatch, capsys, elsewhere):
    for name, value in elsewhere.items():
        monkeypatch.setenv(name, value)
    assert not on_course_model()
    check_model("the model called the calculator", False, detail="weather")
    check_model("it answered 1093", True)
    assert capsys.readouterr().out.splitlines() == [
        "≠ the course's run: the model called the calculator; yours: 'weather'",
        "✓ it answered 1093"]
    with pytest.raises(AssertionError):  # a claim about code holds on every model
        check("the parser read the action", False)


def test_the_course_root_is_found_from_every_folder_a_notebook_runs_in(tmp_path):
    from handmade_agent.errors import ConfigError
    from handmade_agent.teaching import course_root
    for folder in ("data", "handmade_agent", "notebooks/zh", "student/zh"):
        (tmp_path / folder).mkdir(parents=True)
    for start in ("", "notebooks", "notebooks/zh", "student", "student/zh"):
        assert course_root(tmp_path / start) == tmp_path.resolve()
    with pytest.raises(ConfigError, match="open the notebooks from the cloned repository"):
        course_root(tmp_path.parent)
