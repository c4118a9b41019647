"""The real local model in-process and served over HTTP. Marked `model`: these load the GGUF file."""
from __future__ import annotations

import json

import pytest

from handmade_agent.errors import ConfigError, LLMError
from handmade_agent.llm import Message, OpenAIChat
from handmade_agent.local import MODEL_ID, parse_tool_calls
from handmade_agent.serve.server import LocalServer

pytestmark = pytest.mark.model

WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather for a city today.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


def ask(text: str) -> list[Message]:
    return [Message("user", text)]


def test_greedy_output_is_identical_run_to_run(local_llm):
    a = local_llm.complete(ask("Name three colours."), max_tokens=24)
    local_llm.complete(ask("Something else entirely, to move the cache."), max_tokens=8)
    b = local_llm.complete(ask("Name three colours."), max_tokens=24)
    assert a.text == b.text and a.text.strip()


def test_usage_counts_the_prompt_with_the_models_tokenizer(local_llm):
    msgs = ask("Say hi.")
    c = local_llm.complete(msgs, max_tokens=8)
    assert c.usage.prompt_tokens == local_llm.count_tokens(local_llm.format_prompt(msgs))
    assert 0 < c.usage.completion_tokens <= 8 and c.latency > 0 and c.model == MODEL_ID


def test_stop_sequence_cuts_generation(local_llm):
    msgs = ask("Count from 1 to 10 separated by commas, nothing else.")
    full = local_llm.complete(msgs, max_tokens=40).text
    cut = local_llm.complete(msgs, max_tokens=40, stop=["5"]).text
    assert "5" in full and "5" not in cut and full.startswith(cut)


def test_native_tool_call_uses_the_models_own_format(local_llm):
    c = local_llm.complete(ask("What is the weather in Beijing today?"), tools=[WEATHER_TOOL], max_tokens=60)
    assert [t.name for t in c.tool_calls] == ["get_weather"] and c.finish_reason == "tool_calls"
    assert "beijing" in json.loads(c.tool_calls[0].arguments)["city"].lower()


def test_a_prompt_longer_than_the_context_is_a_clear_error(local_llm):
    with pytest.raises(LLMError, match="context holds"):
        local_llm.complete(ask("word " * 5000), max_tokens=4)


def test_prefix_reuse_evaluates_only_the_new_tokens(local_llm):
    first = ask("Here is a long shared preamble. " * 20 + "Reply OK.")
    local_llm.complete(first, max_tokens=4)
    longer = first + [Message("assistant", "OK."), Message("user", "Now reply YES.")]
    local_llm.complete(longer, max_tokens=4)
    total = local_llm.count_tokens(local_llm.format_prompt(longer))
    assert local_llm.last_prompt_eval_tokens < total / 4  # the preamble was not evaluated again


def test_tool_call_parser_keeps_malformed_blocks_as_text():
    text, calls = parse_tool_calls('<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>')
    assert (text, calls[0].name, json.loads(calls[0].arguments)) == ("", "f", {"x": 1})
    bad = "<tool_call>{not json}</tool_call>"
    assert parse_tool_calls(bad) == (bad, [])
    fenced = '```json\n{"name": "get_weather", "arguments": {"city": "北京"}}\n```'
    assert parse_tool_calls(fenced)[1][0].arguments == '{"city": "北京"}'
    prose = 'I would call {"name": "get_weather"} here.'
    assert parse_tool_calls(prose) == (prose, [])


@pytest.fixture(scope="module")
def server():
    with LocalServer() as s:
        yield s


def test_openai_client_talks_to_the_served_model(server, local_llm):
    llm = OpenAIChat(MODEL_ID, base_url=server.base_url, api_key="unused-locally")
    msgs = ask("What is 2+3? Answer with the number only.")
    c = llm.complete(msgs, max_tokens=8)
    assert "5" in c.text and c.usage.prompt_tokens > 0
    assert c.text.strip() == local_llm.complete(msgs, max_tokens=8).text.strip()  # same model, same greedy reply


def test_wrong_model_name_is_one_clear_error(server):
    llm = OpenAIChat("gpt-4o", base_url=server.base_url, api_key="unused-locally")
    with pytest.raises(ConfigError, match=f"has no model 'gpt-4o'.*{MODEL_ID}"):
        llm.complete(ask("hi"), max_tokens=4)


def test_a_server_that_requires_a_key_rejects_a_client_without_one(monkeypatch):
    for var in ("HANDMADE_AGENT_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with LocalServer(api_key="s3cret-for-this-test") as guarded:
        with pytest.raises(ConfigError, match="rejected the API key.*HANDMADE_AGENT_API_KEY"):
            OpenAIChat(MODEL_ID, base_url=guarded.base_url).complete(ask("hi"), max_tokens=4)
        ok = OpenAIChat(MODEL_ID, base_url=guarded.base_url, api_key="s3cret-for-this-test")
        assert ok.complete(ask("Say OK."), max_tokens=4).text
