"""The package against llama-cpp-python's own server (``python -m llama_cpp.server``), not only our own.

"Any OpenAI-compatible server works with no code change" was tested only against ``handmade-agent serve``.
Here the real ``Agent`` drives the real ``OpenAIChat`` against llama_cpp.server serving the default model
(the 1.5B, its GGUF template, an API key): text ReAct under a grammar, native tool calls, token counting
through ``/extras/tokenize``, the key. One server for the module; one question per strategy, few tokens.

Measured 2026-12-03 and pinned below: with ``tool_choice`` "auto" (or none) the engine returns the model's
call as text (in a ```json block), not as ``tool_calls``; the agent's native reader recovers it from the
text. Only a named ``tool_choice`` comes back structured. Left out: the capacity comparison
(benchmarks/serve.py --engine both) and hostile requests (it has no limits to test: docs/backends.md).
"""
from __future__ import annotations

import secrets

import pytest

from handmade_agent import Agent, OpenAIChat, default_registry
from handmade_agent.errors import ConfigError
from handmade_agent.llm import Message
from handmade_agent.serve.engine import LlamaCppServer

pytestmark = pytest.mark.model
QUESTION = "What weekday is 2024-10-17?"


@pytest.fixture(scope="module")
def engine():
    key = secrets.token_hex(16)  # made here, for this run: no secret in the code
    server = LlamaCppServer(api_key=key, n_ctx=4096, startup_timeout=240)
    try:
        server.start()
        yield server
    finally:
        server.stop()  # a failed start stops it too; stop() on a stopped server does nothing


@pytest.fixture(scope="module")
def llm(engine):
    # grammar=True: llama.cpp's servers take GBNF in a "grammar" field (course_llm() sends it for a course model)
    return OpenAIChat(engine.model_id, base_url=engine.base_url, api_key=engine.api_key, grammar=True,
                      timeout=300, max_retries=0)


class Recording:
    """The client, with every grammar the agent sent recorded (to show the replies really were constrained)."""

    def __init__(self, llm):
        self.llm, self.grammars = llm, []

    def __getattr__(self, name):
        return getattr(self.llm, name)

    def complete(self, messages, **kwargs):
        self.grammars.append(kwargs.get("grammar"))
        return self.llm.complete(messages, **kwargs)


def tools_called(result) -> list[str]:
    return [use.tool for step in result.steps for use in step.tool_uses]


def native_question(llm) -> list[Message]:
    """The native agent's first request: the engine reuses the KV of its prompt (15 s of prefill otherwise)."""
    return [*Agent(llm, default_registry(), strategy="native").prompt_messages(), Message("user", QUESTION)]


def test_the_server_applies_a_grammar_it_is_sent(llm):
    reply = llm.complete([Message("user", "Name a weekday.")], max_tokens=8, grammar='root ::= "Thursday" | "Monday"')
    assert reply.text in ("Thursday", "Monday")


def test_a_grammar_constrained_react_agent_calls_the_tool_and_answers(llm):
    client = Recording(llm)
    agent = Agent(client, default_registry(), strategy="react", constrained=True, max_tokens=96, max_steps=4)
    assert agent.constrained
    result = agent.run(QUESTION)
    assert result.stop_reason == "final_answer", result.steps
    assert tools_called(result) == ["weekday"] and "Thursday" in result.answer
    assert client.grammars and all(g and "root" in g for g in client.grammars)


def test_a_native_agent_calls_the_tool_and_answers(llm):
    result = Agent(llm, default_registry(), strategy="native", max_tokens=96, max_steps=4).run(QUESTION)
    assert result.stop_reason == "final_answer", result.steps
    assert "weekday" in tools_called(result) and "Thursday" in result.answer
    assert result.steps[0].native and result.steps[0].tool_uses[0].ok


def test_a_named_tool_choice_comes_back_as_a_structured_call(llm):
    reply = llm.complete(native_question(llm), tools=default_registry().schemas(), max_tokens=48,
                         tool_choice={"type": "function", "function": {"name": "weekday"}})
    assert [c.name for c in reply.tool_calls] == ["weekday"] and "2024-10-17" in reply.tool_calls[0].arguments


@pytest.mark.xfail(strict=True, reason="measured 2026-12-03: with the GGUF's template llama_cpp.server returns the "
                   "call as text (a ```json block) with tool_choice='auto'; chatml-function-calling returns it "
                   "structured but the agent then repeated the call and never answered")
def test_an_auto_tool_choice_comes_back_as_a_structured_call(llm):
    reply = llm.complete(native_question(llm), tools=default_registry().schemas(), max_tokens=48,
                         tool_choice="auto")
    assert [c.name for c in reply.tool_calls] == ["weekday"]


def test_tokens_are_counted_by_the_served_model(llm):
    assert llm.can_count_tokens
    assert llm.count_tokens("Hello world") == 2  # Qwen's tokenizer; estimate_tokens would say 3
    assert llm.count_tokens("<|im_start|>") == 1  # special tokens count as one, as LocalLLM counts them


def test_a_wrong_or_missing_key_is_refused(engine):
    for key in ("wrong-" + secrets.token_hex(4), None):
        client = OpenAIChat(engine.model_id, base_url=engine.base_url, api_key=key, max_retries=0)
        with pytest.raises(ConfigError, match="401"):
            client.complete([Message("user", "hi")], max_tokens=1)
