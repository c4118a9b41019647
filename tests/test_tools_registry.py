"""ToolRegistry.call: every way a call can go wrong comes back as a ToolResult, never an exception."""
from __future__ import annotations

import threading
import time
from typing import Literal

import pytest

from handmade_agent.errors import ToolError
from handmade_agent.tools import RunContext, Tool, ToolRegistry, ToolResult, tool


@tool
def get_weather(city: str, date: Literal["today", "tomorrow"] = "today") -> str:
    """Weather for a city.

    Args:
        city: City name.
        date: Which day.
    """
    return f"{city}/{date}: sunny"


@tool
def add_days(date: str, days: int) -> str:
    """Add days to a date."""
    return f"{date}+{days!r}"


@tool
def scale(value: float, factor: float = 2.0, exact: bool = False) -> str:
    """Multiply."""
    return repr((value * factor, exact))


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry([get_weather, add_days, scale])


def test_happy_path_returns_text_and_metadata(registry):
    r = registry.call("get_weather", {"city": "北京", "date": "tomorrow"})
    assert (r.ok, r.content, r.error, r.status, r.tool, r.truncated) == (True, "北京/tomorrow: sunny", None, "ok",
                                                                         "get_weather", False)
    assert r.duration >= 0 and str(r) == r.content


@pytest.mark.parametrize("written", ["get_weather", "Get_Weather", "get-weather", "GetWeather", "get weather",
                                     " `get_weather` ", "get_weather()", "functions.get_weather"])
def test_names_match_ignoring_case_and_separators(registry, written):
    assert registry.get(written) is get_weather
    assert written in registry
    assert registry.call(written, {"city": "x"}).ok


def test_unknown_tool_lists_tools_and_suggests_the_closest(registry):
    r = registry.call("get_wether", {"city": "x"})
    assert (r.ok, r.status, r.tool) == (False, "unknown_tool", None)
    assert r.content.startswith("Error: there is no tool named 'get_wether'.")
    assert "Did you mean 'get_weather'?" in r.content
    assert "Available tools: get_weather, add_days, scale." in r.content
    far = registry.call("send_email", {})
    assert "Did you mean" not in far.content and "Available tools" in far.content
    assert registry.call(None, {}).status == "unknown_tool"  # type: ignore[arg-type]


def test_string_numbers_are_coerced_to_the_declared_types(registry):
    assert registry.call("add_days", {"date": "2024-05-20", "days": "10"}).content == "2024-05-20+10"
    assert registry.call("add_days", {"date": "2024-05-20", "days": 10.0}).content == "2024-05-20+10"
    assert registry.call("scale", {"value": "1.5", "factor": 2, "exact": "true"}).content == "(3.0, True)"
    assert registry.call("scale", '{"value": 3, "exact": "no"}').content == "(6.0, False)"


def test_single_string_shorthand_for_one_required_string_parameter(registry):
    assert registry.call("get_weather", "上海").content == "上海/today: sunny"
    assert registry.call("get_weather", '"上海"').content == "上海/today: sunny"  # JSON string, quotes dropped
    assert registry.call("get_weather", '{"city": "上海"}').content == "上海/today: sunny"  # JSON object text
    assert registry.call("scale", "4").content == "(8.0, False)"  # one required number: "4" -> 4.0


def test_shorthand_is_refused_when_ambiguous(registry):
    r = registry.call("add_days", "2024-05-20")
    assert r.status == "invalid_arguments"
    assert "must be a JSON object with the parameters (date, days)" in r.content


def test_enum_values_match_case_insensitively_and_keys_match_like_names(registry):
    assert registry.call("get_weather", {"City": "x", "DATE": " Tomorrow "}).content == "x/tomorrow: sunny"


def test_invalid_call_names_parameter_expected_and_got(registry):
    r = registry.call("add_days", {"date": "2024-05-20", "days": "ten"})
    assert (r.ok, r.status, r.tool) == (False, "invalid_arguments", "add_days")
    assert "- parameter 'days': expected integer, got \"ten\" (string)" in r.content
    assert "Call it again with arguments that fit: add_days(date: string, days: integer)" in r.content
    r = registry.call("get_weather", {"city": "x", "date": "next week"})
    assert "parameter 'date': expected one of \"today\", \"tomorrow\", got \"next week\" (string)" in r.content
    r = registry.call("get_weather", {"city": ["a", "b"]})
    assert "parameter 'city': expected string, got [\"a\", \"b\"] (array)" in r.content


def test_missing_and_unknown_parameters_are_both_reported(registry):
    r = registry.call("get_weather", {"cty": "北京"})
    assert "unknown parameter 'cty' (did you mean 'city'?); accepted parameters: city, date" in r.content
    assert "missing required parameter 'city' (expected string)" in r.content
    assert r.error == ("unknown parameter 'cty' (did you mean 'city'?); accepted parameters: city, date; "
                       "missing required parameter 'city' (expected string)")


def test_exception_inside_tool_becomes_an_error_result():
    @tool
    def broken(x: int) -> int:
        """Divide."""
        return 1 // x

    @tool
    def picky(x: int) -> int:
        """Refuse politely."""
        raise ToolError("x must be positive; try x=1")

    registry = ToolRegistry([broken, picky])
    r = registry.call("broken", {"x": 0})
    assert (r.ok, r.status, r.error) == (False, "error", "ZeroDivisionError: integer division or modulo by zero")
    assert r.content == ("Error: broken failed with ZeroDivisionError: integer division or modulo by zero. "
                         "Check the arguments and try again, or answer without this tool.")
    # a ToolError is a message written for the model: shown as it is, without a Python type name
    assert registry.call("picky", {"x": 0}).content == "Error: picky: x must be positive; try x=1"


def test_system_exit_in_a_tool_does_not_end_the_program():
    @tool
    def quitter() -> str:
        """Quit."""
        raise SystemExit(3)

    r = ToolRegistry([quitter]).call("quitter", None)
    assert r.status == "error" and "SystemExit" in r.error


def test_slow_tool_is_cut_off_and_reported_and_the_registry_returns_promptly():
    release = threading.Event()

    @tool(timeout=0.2)
    def stuck(seconds: float) -> str:
        """Wait."""
        release.wait(seconds)
        return "finished"

    registry = ToolRegistry([stuck])
    t0 = time.perf_counter()
    r = registry.call("stuck", {"seconds": 30})
    waited = time.perf_counter() - t0
    assert (r.ok, r.status, r.timed_out) == (False, "timeout", True)
    assert r.content == ("Error: stuck did not finish within 0.2 s and was cut off. Try simpler input, "
                         "or answer without this tool.")
    assert waited < 5  # returned at the time-out, not after the tool's 30 seconds
    assert registry.still_running() == 1  # the thread cannot be killed; the registry knows it is still there
    release.set()
    for _ in range(100):
        if registry.still_running() == 0:
            break
        time.sleep(0.01)
    assert registry.still_running() == 0
    assert registry.call("stuck", {"seconds": 0}).content == "finished"


def test_timeout_none_runs_inline_in_the_calling_thread():
    seen = []
    inline = Tool("where", "Which thread.", {"type": "object"}, lambda: seen.append(threading.current_thread()),
                  timeout=None)
    ToolRegistry([inline]).call("where", {})
    assert seen == [threading.current_thread()]


def test_long_noisy_output_is_cleaned_and_cut_with_a_note():
    @tool
    def noisy() -> str:
        """Print a lot."""
        return "\x1b[31mred\x1b[0m\r\n\x07" + "\n" * 6 + "x" * 5000

    r = ToolRegistry([noisy], max_chars=100).call("noisy", None)
    assert r.ok and r.truncated
    assert r.content.startswith("red\n\nxxx")
    assert r.content.endswith("\n...[output cut: showing the first 100 of 5005 characters]")
    assert len(r.content.split("\n...[")[0]) == 100


@pytest.mark.parametrize("value, text", [(None, "(the tool returned nothing)"), ("   ", "(empty result)"),
                                         ({"城市": "北京", "n": [1, 2]}, '{"城市": "北京", "n": [1, 2]}'),
                                         (3.5, "3.5")])
def test_return_values_become_text(value, text):
    t = Tool("give", "Give.", {"type": "object"}, lambda: value)
    assert ToolRegistry([t]).call("give", {}).content == text


def test_side_effects_need_approval_and_denial_is_a_result():
    sent = []

    @tool(side_effects=True)
    def send_email(to: str, body: str) -> str:
        """Send an e-mail."""
        sent.append(to)
        return f"sent to {to}"

    asked = []

    def approve(t: Tool, args: dict) -> bool:
        asked.append((t.name, args))
        return args["to"].endswith("@example.com")

    registry = ToolRegistry([send_email], approve=approve)
    ok = registry.call("send_email", {"to": "ann@example.com", "body": "hi"})
    no = registry.call("send_email", {"to": "boss@corp.cn", "body": "I quit"})
    assert ok.content == "sent to ann@example.com" and ok.ok
    assert (no.ok, no.status, no.error) == (False, "denied", "the user did not approve running send_email")
    assert "Do not call send_email again with these arguments" in no.content
    assert sent == ["ann@example.com"]
    assert asked == [("send_email", {"to": "ann@example.com", "body": "hi"}),
                     ("send_email", {"to": "boss@corp.cn", "body": "I quit"})]


def test_side_effects_without_a_hook_or_with_a_broken_hook_are_refused():
    t = Tool("rm", "Delete.", {"type": "object"}, lambda: "deleted", side_effects=True)
    r = ToolRegistry([t]).call("rm", {})
    assert r.status == "denied" and "no approval hook" in r.content

    def broken(tool_: Tool, args: dict) -> bool:
        raise RuntimeError("hook crashed")

    r = ToolRegistry([t], approve=broken).call("rm", {})
    assert r.status == "denied" and "RuntimeError: hook crashed" in r.content
    # tools without side effects never ask
    assert ToolRegistry([get_weather], approve=broken).call("get_weather", "x").ok


def test_registry_container_behaviour_and_duplicates(registry):
    assert len(registry) == 3 and registry.names() == ["get_weather", "add_days", "scale"]
    assert [t.name for t in registry] == registry.names() and get_weather in registry
    assert registry.get("nope") is None and "nope" not in registry
    with pytest.raises(ToolError, match="already registered"):
        registry.add(Tool("Get-Weather", "Again.", {"type": "object"}, lambda: None))

    def documented(x: int) -> int:
        """Plain function, wrapped on add."""
        return x

    registry.add(documented)
    assert registry.call("documented", "4").content == "4"


def test_schemas_and_describe_cover_every_tool(registry):
    schemas = registry.schemas()
    assert [s["function"]["name"] for s in schemas] == registry.names()
    assert all(s["type"] == "function" and s["function"]["parameters"]["type"] == "object" for s in schemas)
    text = registry.describe()
    assert text.splitlines()[:4] == ['get_weather(city: string, date: "today" | "tomorrow" = "today")',
                                     "    Weather for a city.", "    - city: City name.", "    - date: Which day."]


def test_call_never_raises_even_on_garbage():
    @tool
    def echo(x: str) -> str:
        """Echo."""
        return x

    registry = ToolRegistry([echo])
    for args in [object(), 3, [1, 2], b"bytes", {"x": object()}, "{broken json", {"x": None}]:
        assert isinstance(registry.call("echo", args), ToolResult)


def test_the_run_context_reaches_only_a_tool_that_asks_for_it_and_the_model_cannot_set_it():
    seen = []
    params = {"properties": {"q": {"type": "string"}}, "required": ["q"]}
    asks = Tool("asks", "Wants the run.", params, lambda q, run=None: seen.append((q, run and run.question)) or "ok",
                context_arg="run")
    plain = Tool("plain", "Does not.", params, lambda q: seen.append((q,)) or "ok")
    reg = ToolRegistry([asks, plain])
    context = RunContext("the user's words", "run-1", 2)
    assert reg.call("asks", {"q": "a"}, context=context).ok
    assert reg.call("plain", {"q": "b"}, context=context).ok
    assert "run" not in asks.schema()["function"]["parameters"]["properties"]
    bad = reg.call("asks", {"q": "c", "run": {"question": "forged"}}, context=context)  # not a parameter of the schema
    assert not bad.ok and bad.status == "invalid_arguments"
    assert reg.call("asks", {"q": "d"}).ok  # called without a run: the function's default
    assert seen == [("a", "the user's words"), ("b",), ("d", None)]
    with pytest.raises(ToolError, match="context_arg"):
        Tool("clash", "x", {"properties": {"run": {"type": "string"}}}, print, context_arg="run")


def test_a_parameter_annotated_run_context_is_left_out_of_the_schema_and_filled_by_the_registry():
    @tool
    def lookup(term: str, run: RunContext | None = None) -> str:
        """Look a term up."""
        return f"{term} for {run.question if run else '-'}"
    assert lookup.context_arg == "run" and list(lookup.parameters["properties"]) == ["term"]
    reg = ToolRegistry([lookup])
    assert reg.call("lookup", {"term": "x"}, context=RunContext("why?")).content == "x for why?"
    assert not reg.call("lookup", {"term": "x", "run": "forged"}).ok


def test_the_run_deadline_shortens_a_tool_time_out():
    slow = Tool("slow", "Sleeps.", {}, lambda: time.sleep(3) or "late", timeout=30.0)
    t0 = time.perf_counter()
    result = ToolRegistry([slow]).call("slow", {}, context=RunContext("q", deadline=time.perf_counter() + 0.3))
    assert result.status == "timeout" and time.perf_counter() - t0 < 1.5
