"""Hostile inputs, kept as a regression corpus (issue 16): runaway scans, a wrong calculator, escaping
exceptions, None from a server, junk in the knowledge base, secrets in errors.

Timing checks measure each case with ``time.perf_counter`` after one warm-up and assert on the
slowest: 50 ms is generous for linear code on a busy 2-core machine and far below what the old
quadratic scans took (seconds). Storage and model-file cases are in ``test_hostile_storage.py``.
"""
from __future__ import annotations

import time
import warnings

import pytest

from handmade_agent.errors import ConfigError, FormatError, LLMError
from handmade_agent.react import parse
from handmade_agent.react.actions import bare_name, json_actions
from handmade_agent.react.repair import find_object
from handmade_agent.react.labels import drop_thinking, split_blocks
from handmade_agent.toolbox.arithmetic import CalculatorError, evaluate

LIMIT = 0.05


def slowest(fn, cases) -> tuple[float, object]:
    """The slowest case's seconds (and the case), after one warm-up call; FormatError counts as an answer."""
    def run(case):
        try:
            fn(case)
        except FormatError:
            pass
    run(cases[0])
    worst = (0.0, None)
    for case in cases:
        t0 = time.perf_counter()
        run(case)
        worst = max(worst, (time.perf_counter() - t0, case[:40]), key=lambda w: w[0])
    return worst


def adversarial() -> list[str]:
    """Whitespace, brackets, labels and tags in the shapes that made the old regexes backtrack."""
    blanks = [" " * 8000, "\t" * 8000, " \t" * 4000, "x" + " " * 8000 + "y", " " * 8000 + "Action"]
    cases = blanks + [f"{pre}{b}" for pre in ("Thought:", "**", "### ", "- ", "1. ", "Action") for b in blanks[:3]]
    cases += ["{}" * 40_000, "{" * 60_000, "[" * 60_000, "}" * 60_000, '{"a": "' + "\\" * 60_000,
              "{'" * 30_000, '{"action": "x", "action_input": ' * 2000, "<tool_call>{" * 8000,
              "<think>" * 12_000, "</think>" * 12_000, "a Action: " * 9000, "Action: " + "the " * 20_000 + "x",
              "Action: f(" + ")" * 60_000, "Action: x\nAction Input: " + "{" * 60_000,
              "Final Answer: " + " " * 90_000, "Thought: " + "*" * 90_000, "```" * 30_000,
              "Action:" + " " * 90_000 + "calculator", ("Thought: a\n" + " " * 500 + "\n") * 180]
    return cases


def test_the_parser_finishes_every_adversarial_case_in_linear_time():
    took, case = slowest(parse, adversarial())
    assert took < LIMIT, f"{took:.3f} s on {case!r}"


@pytest.mark.parametrize("fn", [split_blocks, drop_thinking, json_actions, find_object, bare_name],
                         ids=lambda f: f.__name__)
def test_each_scanner_is_linear_on_its_own(fn):
    # the pieces are also called on their own (by the native strategy, the widgets), without parse's length cap
    cases = adversarial() + ["{}" * 500_000, " " * 200_000 + "x", "<think>" * 100_000, "the " * 100_000]
    took, case = slowest(fn, cases)
    assert took < 4 * LIMIT, f"{fn.__name__}: {took:.3f} s on {case!r}"


def test_a_reply_longer_than_any_step_is_refused_with_feedback():
    with pytest.raises(FormatError, match="characters long"):
        parse("Thought: " + "x" * 200_000)


def test_json_actions_still_reads_actions_after_junk():
    text = "{}" * 10 + '{"action": "calculator", "action_input": {"expression": "2+3"}}'
    assert json_actions(text) == [("calculator", {"expression": "2+3"})]
    assert drop_thinking("<THINK>a</think>b<think>c</Think>d<think>e") == "bd"


# --- the calculator ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, value", [("3²+4²", 25), ("10³", 1000), ("2⁻¹", 0.5), ("(1+2)²", 9), ("2³²", 2 ** 32),
                                         ("-2²", -4), ("３²", 9), ("2⁽¹⁺¹⁾", 4), ("10⁻³", 0.001), ("e²", 2.718281828459045 ** 2)])
def test_superscripts_are_exact_powers(text, value):
    assert evaluate(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["²", "2+²", "2² ³", "2ⁿ", "x₂", "2₃"])
def test_a_superscript_with_nothing_to_raise_is_refused(text):
    with pytest.raises(CalculatorError):
        evaluate(text)


def test_a_flat_sum_is_one_level_and_real_nesting_is_still_refused():
    assert evaluate("+".join(["1"] * 100)) == 100
    assert evaluate("*".join(["2"] * 40)) == 2 ** 40
    with pytest.raises(CalculatorError, match="nested more than"):
        evaluate("abs(" * 35 + "1" + ")" * 35)
    with pytest.raises(CalculatorError, match="nested more than"):
        evaluate("-" * 40 + "1")


# --- tools -----------------------------------------------------------------------------------------------------
def _registry():
    from handmade_agent.tools import ToolRegistry, tool

    @tool(timeout=None)
    def leave(code: int) -> int:
        """Exit."""
        raise SystemExit(code)

    @tool(timeout=None)
    def stop_generator(x: int) -> int:
        """Raise GeneratorExit."""
        raise GeneratorExit("bye")

    @tool(timeout=None)
    def interrupted(x: int) -> int:
        """Raise KeyboardInterrupt."""
        raise KeyboardInterrupt

    @tool(timeout=None)
    def echo_error(text: str) -> str:
        """Fail with the argument in the message."""
        raise ValueError(text)
    return ToolRegistry([leave, stop_generator, interrupted, echo_error])


@pytest.mark.parametrize("name", ["leave", "stop_generator"])
def test_base_exceptions_from_an_inline_tool_become_error_results(name):
    res = _registry().call(name, {"code": 3} if name == "leave" else {"x": 1})
    assert not res.ok and res.status == "error" and "Exit" in res.content


def test_ctrl_c_is_the_users_and_still_stops_the_run():
    with pytest.raises(KeyboardInterrupt):
        _registry().call("interrupted", {"x": 1})


def test_error_results_do_not_echo_a_megabyte():
    reg = _registry()
    for res in (reg.call("echo_error", {"text": "x" * 1_000_000}), reg.call("g" * 1_000_000, {}),
                reg.call("leave", {"code": "y" * 1_000_000})):
        assert not res.ok and len(res.content) <= reg.max_chars + 100 and len(res.error or "") < 1000


# --- the native strategy ------------------------------------------------------------------------------------
@pytest.mark.parametrize("first", ["text_none", "name_none", "args_object", "all_wrong_types"])
def test_native_replies_with_none_or_odd_types_do_not_raise(first):
    from handmade_agent.agent import Agent
    from handmade_agent.llm import Completion, ScriptedLLM, ToolCall
    from handmade_agent.tools import tool

    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b
    reply = {"text_none": Completion(text=None),
             "name_none": Completion(text=None, tool_calls=[ToolCall(None, '{"a": 1, "b": 2}', "c1")]),
             "args_object": Completion(text=None, tool_calls=[ToolCall("add", {"a": 1, "b": 2}, None)]),
             "all_wrong_types": Completion(text=5, tool_calls=[ToolCall(7, 5, 9)])}[first]
    result = Agent(ScriptedLLM([reply, "done"]), [add], strategy="native", max_steps=3).run("q")
    assert result.answer == "done" and result.stop_reason == "final_answer"
    if first == "args_object":
        assert result.steps[0].tool_uses[0].observation == "3"


# --- RAG ---------------------------------------------------------------------------------------------------------
def test_one_bad_file_does_not_abort_load_documents(tmp_path):
    from handmade_agent.rag import load_documents
    en = tmp_path / "en"
    en.mkdir()
    (en / "good.md").write_text("# Good\n\n## Power {#power}\n\n220 V.\n", encoding="utf-8")
    (en / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (en / "latin1.md").write_bytes("# Caf\xe9\n".encode("latin-1"))
    (en / "empty.md").write_text("")
    with open(en / "huge.md", "wb") as f:  # 50 MB, sparse: refused from its size, never read
        f.truncate(50 << 20)
    (en / "spaces.md").write_text("# T\n## " + " " * 5000 + "x {#a}\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        docs = load_documents(tmp_path)
    assert sorted(d.doc_id for d in docs) == ["good", "spaces"]
    reasons = dict(docs.skipped)
    assert set(reasons) == {"en/binary.md", "en/latin1.md", "en/empty.md", "en/huge.md"}
    assert "binary" in reasons["en/binary.md"] and "UTF-8" in reasons["en/latin1.md"]
    assert "bytes" in reasons["en/huge.md"] and "empty" in reasons["en/empty.md"]
    assert caught and "skipped 4 file(s)" in str(caught[0].message)


def test_a_heading_full_of_spaces_parses_in_linear_time():
    from handmade_agent.rag.documents import parse_document
    cases = ["## a" + " " * n + "b" for n in (5000, 20_000, 80_000)] + ["## " + " " * 50_000 + "x",
                                                                      "#" + " " * 50_000 + "{#", "## a" + "\t " * 30_000 + "b"]
    took, case = slowest(lambda c: parse_document("d", c), cases)
    assert took < LIMIT, f"{took:.3f} s on {case!r}"
    assert parse_document("d", "## " + " " * 5000 + "Title  {#t}  ").sections[1].anchor == "t"


@pytest.mark.parametrize("query", ["🙂🙂", "?!...", "\x00\x00", "   ", "", "—"])
def test_queries_with_nothing_to_match_find_nothing(query):
    from handmade_agent.rag.chunking import Chunk
    from handmade_agent.rag.embedding import HashingEmbedder
    from handmade_agent.rag.retriever import Retriever
    from handmade_agent.rag.tool import knowledge_search_tool
    r = Retriever([Chunk("a:1", "a", "The pump runs at 3 bar."), Chunk("b:1", "b", "Fan noise")], HashingEmbedder(64))
    for method in ("dense", "bm25", "hybrid", "rrf"):
        assert r.search(query, k=2, method=method) == []
    text = knowledge_search_tool(r).fn(query=query)
    assert "[a:1]" not in text and ("no passage found" in text or "empty" in text)


# --- the OpenAI-compatible client ---------------------------------------------------------------------------
def test_a_base_url_that_is_not_a_url_is_reported_as_such(monkeypatch):
    from handmade_agent.llm import OpenAIChat
    for var in ("HANDMADE_AGENT_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ConfigError, match="is not a URL"):
        OpenAIChat("m", base_url="notaurl")


def test_a_server_error_echoing_the_key_does_not_put_it_in_the_llm_error():
    import httpx
    import openai

    from handmade_agent.llm import OpenAIChat
    key = "gsk_live_Secret0123456789abcdef"
    llm = OpenAIChat("m", base_url="http://127.0.0.1:9/v1", api_key=key)
    llm._model_checked = True
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")

    def fail(**kwargs):
        raise openai.APIStatusError(f"bad request; headers: Authorization: Bearer {key}; x-api-key={key}; "
                                    "Authorization: Bearer tok-without-digits",
                                    response=httpx.Response(500, request=request), body=None)
    llm._client.chat.completions.create = fail
    with pytest.raises(LLMError) as e:
        llm.complete([{"role": "user", "content": "hi"}])
    shown = str(e.value) + repr(e.value) + str(e.value.__cause__ or "") + str(e.value.__context__ or "")
    assert key not in shown and "tok-without-digits" not in shown and "Bearer ***" in shown
