"""MCP both ways: the toolbox served over stdio and HTTP, other servers' tools used by the Agent, hostile servers.

Every server is a real subprocess speaking the protocol: our own (``python -m handmade_agent.mcp.server``),
a second one written with another library (fastmcp, ``mcp_servers/fastmcp_units.py``), and a hostile one
(``mcp_servers/hostile.py``) whose tools hang, die, flood, or bring oversized or instruction-laden listings.
No model: the agent test replays a ScriptedLLM. Each server starts once per module; the whole file runs
in about 15 s.
"""
from __future__ import annotations

import datetime
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from handmade_agent.agent import Agent
from handmade_agent.llm import ScriptedLLM
from handmade_agent.mcp import Limits, MCPServerError, tools_from_mcp
from handmade_agent.mcp.limits import clean_text, looks_like_instructions, schema_problem
from handmade_agent.mcp.session import MARGIN
from handmade_agent.toolbox import default_registry

SERVERS = Path(__file__).resolve().parent / "mcp_servers"
TODAY = "2024-05-20"
OUR_SERVER = [sys.executable, "-m", "handmade_agent.mcp.server", "--today", TODAY]
CALLS = [("calculator", {"expression": "2 * (3 + 4) ** 2"}), ("add_days", {"date": "today", "days": 150}),
         ("get_weather", {"city": "北京"}),
         ("convert_temperature", {"value": "100", "from_unit": "C", "to_unit": "F"}),
         ("calculator", {"expression": "1/0"}), ("weekday", {"date": "2024-13-45"}),
         ("convert_temperature", {"value": 1, "unit": "C"})]


@pytest.fixture(scope="module")
def local_tools():
    return default_registry(today=datetime.date.fromisoformat(TODAY))


@pytest.fixture(scope="module")
def stdio_tools():
    with tools_from_mcp(OUR_SERVER, call_timeout=10) as registry:
        yield registry


def start_http_server() -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen(OUR_SERVER + ["--http", "--port", "0"], stderr=subprocess.PIPE, text=True)
    line = server.stderr.readline()  # "MCP server on http://127.0.0.1:PORT/mcp" once it listens
    found = re.search(r"http://\S+", line)
    if not found:
        server.kill()
        pytest.fail(f"the HTTP server did not say where it listens: {line!r}")
    return server, found.group(0)


@pytest.fixture(scope="module")
def http_url():
    server, url = start_http_server()
    try:
        yield url
    finally:
        server.terminate()
        server.wait(10)


@pytest.fixture(scope="module")
def hostile():
    with tools_from_mcp([sys.executable, str(SERVERS / "hostile.py")], call_timeout=1.0) as registry:
        yield registry


def test_our_stdio_server_lists_the_toolbox(stdio_tools, local_tools):
    assert stdio_tools.names() == local_tools.names()
    remote, local = stdio_tools.get("get_weather"), local_tools.get("get_weather")
    assert remote.parameters == local.parameters  # the schema survives the trip unchanged
    assert remote.description == f"[from MCP server 'handmade-agent'] {clean_text(local.description, 1000)}"
    assert stdio_tools.skipped == {} and stdio_tools.suspicious == []


@pytest.mark.parametrize("name, args", CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CALLS)])
def test_a_call_over_stdio_returns_the_in_process_text(stdio_tools, local_tools, name, args):
    remote, local = stdio_tools.call(name, args), local_tools.call(name, args)
    assert (remote.ok, remote.status) == (local.ok, local.status)
    if local.ok or local.status == "invalid_arguments":  # bad arguments are caught before they travel
        assert remote.content == local.content
    else:  # the server's error text arrives as the observation, marked as the server's
        assert local.content.removeprefix(f"Error: {name}: ") in remote.content and "MCP server" in remote.content


def test_the_server_answers_bad_arguments_with_an_error_result_not_a_crash(stdio_tools):
    # straight to the server, past the client's own checks: the server's registry must turn it into isError
    result = stdio_tools.connection.request(lambda c: c.call_tool("calculator", {"expression": "1", "x": 2}), 5, "call")
    assert result.is_error and "unknown parameter 'x'" in result.content[0].text
    result = stdio_tools.connection.request(lambda c: c.call_tool("no_such_tool", {}), 5, "call")
    assert result.is_error and "no tool named" in result.content[0].text
    assert stdio_tools.call("calculator", {"expression": "1+1"}).content == "2"  # and it still serves


def test_the_same_tools_over_streamable_http(http_url, local_tools):
    assert http_url.startswith("http://127.0.0.1:") and http_url.endswith("/mcp")
    with tools_from_mcp(http_url, call_timeout=10) as registry:
        assert registry.names() == local_tools.names()
        for name, args in CALLS[:4]:
            assert registry.call(name, args).content == local_tools.call(name, args).content


def test_the_http_server_refuses_a_foreign_host_header(http_url):
    import httpx  # a DNS-rebinding page would send its own host name
    reply = httpx.post(http_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                       headers={"Host": "attacker.example", "Accept": "application/json, text/event-stream"})
    assert reply.status_code == 421


def test_a_server_written_with_fastmcp():
    with tools_from_mcp([sys.executable, str(SERVERS / "fastmcp_units.py")], call_timeout=10) as registry:
        assert registry.names() == ["miles_to_km", "shout"] and registry.connection.server_name == "units"
        assert registry.call("miles_to_km", {"miles": "26.2"}).content == "42.165"  # "26.2" coerced here
        assert registry.call("shout", {"text": "hi", "times": 2}).content == "HI HI"
        failed = registry.call("shout", {"text": "hi", "times": 0})
        assert not failed.ok and "times must be at least 1" in failed.content


def test_an_agent_answers_with_an_mcp_tool(stdio_tools):
    llm = ScriptedLLM(['Thought: I should compute it.\nAction: calculator\nAction Input: {"expression": "2*(3+4)**2"}',
                       "Thought: I know it.\nFinal Answer: 98"])
    result = Agent(llm, stdio_tools).run("What is 2*(3+4)**2?")
    assert (result.answer, result.stop_reason, result.tools_used) == ("98", "final_answer", ["calculator"])
    assert result.steps[0].observation == "98"
    prompt = "\n".join(m.content for m in llm.calls[0]["messages"] if m.role == "system")
    assert "- calculator: [from MCP server 'handmade-agent'] Evaluate" in prompt  # the prompt says whose tool


def test_a_tool_that_never_answers_times_out_and_the_session_survives(hostile):
    started = time.perf_counter()
    result = hostile.call("hang", {})
    assert time.perf_counter() - started < 1.0 + MARGIN + 1
    assert not result.ok and "no answer from the MCP server within 1 s" in result.content
    assert hostile.call("echo", {"text": "still here"}).content == "echo: still here"


def test_oversized_or_unnamable_tools_are_left_out_and_say_why(hostile):
    assert "echo" in hostile and "huge_schema" not in hostile and "deep_schema" not in hostile
    assert "is 184,922 characters (the limit is 8,000)" in hostile.skipped["huge_schema"]
    assert "nests more than 8 levels" in hostile.skipped["deep_schema"]
    assert "must be 1-64 letters" in hostile.skipped["bad name with spaces"]
    story = hostile.get("long_story").description
    assert len(story) < 1100 and story.endswith("more characters]")


def test_a_listing_beyond_max_tools_is_cut_and_says_so(local_tools):
    with tools_from_mcp(OUR_SERVER, limits=Limits(max_tools=3)) as registry:
        assert registry.names() == local_tools.names()[:3]
        assert registry.skipped == {name: "the server offers more than 3 tools (Limits.max_tools)"
                                    for name in local_tools.names()[3:]}  # one page brought them all


def test_injected_instructions_are_kept_flattened_marked_and_reported(hostile):
    description = hostile.get("helpful").description
    assert description.startswith("[from MCP server 'hostile'] Looks up a word.")
    assert "IGNORE ALL PREVIOUS INSTRUCTIONS" in description  # kept: people must be able to see it
    assert "\n" not in description and "<|im_start|>" not in description and "<|im_end|>" not in description
    assert hostile.suspicious == ["helpful"]
    assert "\nObservation:" not in hostile.describe()  # it cannot forge a protocol line in the ReAct prompt
    # the ReAct prompt shows a description's first sentence only: here the orders never reach the model
    llm = ScriptedLLM(["Thought: no tool needed.\nFinal Answer: hello"])
    assert Agent(llm, hostile).run("Say hello.").answer == "hello"
    prompt = "\n".join(m.content for m in llm.calls[0]["messages"])
    assert "- helpful: [from MCP server 'hostile'] Looks up a word." in prompt and "IGNORE" not in prompt


def test_a_flood_of_output_is_cut(hostile):
    result = hostile.call("flood", {})
    assert result.ok and result.truncated and len(result.content) < hostile.max_chars + 100


def test_a_tool_the_server_marks_destructive_needs_approval(hostile):
    assert hostile.get("wipe").side_effects and not hostile.get("echo").side_effects
    refused = hostile.call("wipe", {})  # this registry has no approval hook, so it never reaches the server
    assert refused.status == "denied" and "no approval hook" in refused.content


def test_a_server_that_dies_mid_session_gives_a_clear_error_then_fails_fast():
    with tools_from_mcp([sys.executable, str(SERVERS / "hostile.py")], call_timeout=5) as registry:
        died = registry.call("die", {})
        assert not died.ok and "closed the connection (it may have crashed)" in died.content
        started = time.perf_counter()
        after = registry.call("echo", {"text": "anyone?"})
        assert time.perf_counter() - started < 0.5 and "is not connected" in after.content


def test_a_server_that_dies_while_a_time_out_probe_runs_is_reported_as_closed_not_as_silent():
    # notebook 09's order: a call times out (a probe of the server starts), the session works, then the server dies
    with tools_from_mcp([sys.executable, str(SERVERS / "hostile.py")], call_timeout=1) as registry:
        assert not registry.call("hang", {}).ok
        assert registry.call("echo", {"text": "still here"}).content == "echo: still here"
        died = registry.call("die", {})
        assert not died.ok and "closed the connection" in died.content, died.content


def test_an_http_server_that_dies_mid_session_gives_a_clear_error():
    server, url = start_http_server()
    try:
        with tools_from_mcp(url, call_timeout=5) as registry:
            assert registry.call("calculator", {"expression": "1+1"}).content == "2"
            server.kill()
            server.wait(10)
            started = time.perf_counter()
            gone = registry.call("calculator", {"expression": "1+1"})
            assert time.perf_counter() - started < 5 and not gone.ok and "closed the connection" in gone.content
    finally:
        server.kill()
        server.wait(10)


def test_a_server_that_never_finishes_the_handshake_is_given_up():
    started = time.perf_counter()
    with pytest.raises(MCPServerError, match="did not finish the handshake within 1.5 s"):
        tools_from_mcp([sys.executable, "-c", "import sys; sys.stdin.read()"], connect_timeout=1.5)
    assert time.perf_counter() - started < 1.5 + 5


def test_a_server_that_fails_to_start_shows_its_stderr():
    with pytest.raises(MCPServerError, match="stderr ends: 'boom: no config file'"):
        tools_from_mcp([sys.executable, "-c", "import sys; sys.exit('boom: no config file')"])
    with pytest.raises(MCPServerError, match="could not connect"):
        tools_from_mcp(["surely-no-such-command-here"])
    with pytest.raises(MCPServerError, match="could not connect to the MCP server 'http://127.0.0.1:9/mcp'"):
        tools_from_mcp("http://127.0.0.1:9/mcp", connect_timeout=5)


def test_the_limits_on_their_own():
    limits = Limits(max_schema_chars=200, max_schema_depth=3)
    assert schema_problem({"type": "array"}, limits) == "its input schema has type 'array', not 'object'"
    assert schema_problem({"type": "object", "properties": {"a": {"type": "string"}}}, limits) is None
    assert "characters" in schema_problem({"type": "object", "description": "x" * 300}, limits)
    assert clean_text("a\u202eb\x00c\n\nd" + "e" * 50, 10).startswith("a b c deee …[description cut: 47")
    assert not looks_like_instructions("Convert a temperature between Celsius and Fahrenheit.")


def test_importing_the_package_does_not_import_the_sdk():
    code = "import sys, handmade_agent, handmade_agent.mcp; print('mcp' in sys.modules, 'mcp_types' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
