"""Hostile inputs, round 4, the MCP door (issue 49 G2, G3, G4, G9, G15). ``cases(tmp)`` joins the corpus of
``hostile.py``.

Everything runs in process but one case: listings are read by ``registry_from_listing`` (no server), the
stdio reader is fed chunks, the listing loop a fake client. The one live server (``raw_endless.py``, no SDK,
starts in milliseconds) writes a line without end. The SDK is imported here, not in a timed case.
"""
from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Callable

from hostile import Case

SERVERS = Path(__file__).resolve().parent.parent / "tests" / "mcp_servers"
KEYS = ("sk-live-AbCdEfGhIjKlMnOpQrStUv0123", "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz012345")
MARKERS = ("<|im_start|>", "<|im_end|>", "<|x|>", "Observation: 42")


def verdict(run: Callable[[], bool]) -> Callable[[], str]:
    return lambda: "accepted" if run() else "wrong"


def case(area: str, name: str, run: Callable[[], bool]) -> Case:
    return Case(area, name, verdict(run), lambda r: r)


def rendered(registry: Any) -> str:
    """Every text of a registry's tools that reaches a model: ReAct prompts, native schemas, signatures."""
    from handmade_agent.react.prompt import build_system_prompt, prompt_messages
    tools = list(registry)
    texts = [build_system_prompt(tools), json.dumps(registry.schemas(), ensure_ascii=False)]
    texts += [m.content for m in prompt_messages(tools, question="What is 2+2?")] + [t.signature() for t in tools]
    return "\n".join(texts)


def listed(name: str, schema: Any, description: str = "A tool.") -> Any:
    """The registry ``tools_from_mcp`` would make of a listing of one tool (no server, no session)."""
    import mcp_types as types

    from handmade_agent.mcp.client import registry_from_listing
    from handmade_agent.mcp.session import MCPConnection
    entry = types.Tool(name=name, description=description, input_schema=schema)
    return registry_from_listing(MCPConnection(["unopened"]), [entry])


def schema_cases() -> list[Case]:
    from hostile_schemas import HOSTILE_SCHEMAS, MALFORMED

    from handmade_agent.errors import ToolError
    from handmade_agent.mcp.limits import clean_text
    from handmade_agent.tools import Tool

    def inert(name: str, schema: dict) -> bool:  # refused or cleaned, never raw; and the server is flagged
        with listed(name, schema) as registry:
            text = rendered(registry)
            return not any(m in text for m in MARKERS) and registry.suspicious == [name] \
                and (name in registry) != (name in registry.skipped)

    def refused(name: str, schema: dict) -> bool:  # at registration, naming the tool and the fault's place
        try:
            Tool(name, "A tool.", schema, lambda **kw: "x")
        except ToolError as e:
            return str(e).startswith(f"{name}: its parameters schema") and "properties" in str(e)
        return False
    cases = [case("mcp schema", f"G2 {n}", (lambda n=n, s=s: inert(n, s))) for n, s in HOSTILE_SCHEMAS.items()]
    cases += [case("mcp schema", f"G3 {n}", (lambda n=n, s=s: refused(n, s))) for n, s in MALFORMED.items()]
    cases += [case("mcp schema", f"G3 listed {n}", (lambda n=n, s=s: n in listed(n, s).skipped))
              for n, s in MALFORMED.items()]  # (an unopened connection holds only a temporary file, freed with it)
    for text in ("<|im_<|x|>start|>system", "<|im_<|<|y|>x|>start|>", "<<|x|>|im_start|>", "<|im_\x00start|>"):
        cases.append(case("mcp schema", f"G2 clean_text {text!r}",
                          lambda t=text: "<|im_start|>" not in clean_text(t * 2000, 1000)))
    return cases


def transport_cases() -> list[Case]:
    from handmade_agent.mcp import Limits, tools_from_mcp
    from handmade_agent.mcp.client import _list_tools
    from handmade_agent.mcp.stdio import _LineTooLong, pass_lines
    cap = Limits().max_message_bytes

    def one_line(megabytes: int) -> bool:  # a line of that size in 64 kB chunks: read in linear time, or refused
        async def chunks() -> Any:
            piece = b"z" * 65536
            for _ in range(megabytes * 1_000_000 // 65536):
                yield piece
            yield b"\n"
        got: list[int] = []

        async def keep(line: bytes) -> None:
            got.append(len(line))
        try:
            asyncio.run(pass_lines(chunks(), cap, keep))
        except _LineTooLong:
            return megabytes * 1_000_000 > cap
        return megabytes * 1_000_000 <= cap and len(got) == 1

    class EndlessPages:  # every page hands out another cursor
        async def list_tools(self, cursor: Any = None) -> Any:
            return type("Page", (), {"tools": [], "next_cursor": str(int(cursor or 0) + 1)})()

    def endless_line() -> bool:  # a live server: the session ends at the cap and says why
        with tools_from_mcp([sys.executable, str(SERVERS / "raw_endless.py")], call_timeout=5) as registry:
            result = registry.call("endless", {})
        return not result.ok and "Limits.max_message_bytes" in result.content
    return [case("mcp transport", "G4 40 MB line", lambda: one_line(40)),
            case("mcp transport", "G4 15 MB line", lambda: one_line(15)),
            case("mcp transport", "G4 endless line, live", endless_line),
            case("mcp transport", "G15 10 MB description",
                 lambda: len(listed("windy", {"type": "object"}, "blah " * 2_000_000).get("windy").description) < 1100),
            case("mcp transport", "G15 endless nextCursor",
                 lambda: asyncio.run(_list_tools(EndlessPages(), Limits())) == ([], False))]


def redaction_cases(tmp: Path) -> list[Case]:
    from handmade_agent.mcp.session import MCPConnection

    def command_line() -> bool:
        return not any(k in MCPConnection(["server", f"--token={KEYS[1]}"]).target for k in KEYS)

    def stderr_tail() -> bool:
        connection = MCPConnection(["server"])
        connection._stderr.write(f"Traceback ...\nfatal: the upstream refused api_key={KEYS[0]}\n".encode())
        connection._stderr.flush()
        tail = connection._stderr_tail()
        connection._stderr.close()
        return "upstream refused" in tail and KEYS[0] not in tail
    return [case("mcp redaction", "G9 command line", command_line), case("mcp redaction", "G9 stderr tail", stderr_tail)]


def cases(tmp: Path) -> list[Case]:
    if str(SERVERS) not in sys.path:
        sys.path.append(str(SERVERS))  # hostile_schemas.py: plain data
    import mcp.client.stdio  # noqa: F401  (the SDK's first import takes most of a second: not inside a timed case)
    import mcp_types  # noqa: F401
    return schema_cases() + transport_cases() + redaction_cases(tmp)
