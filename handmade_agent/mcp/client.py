"""Any MCP server's tools as a ``ToolRegistry``: ``Agent(llm, tools_from_mcp(...))`` uses them like its own.

``tools_from_mcp(server)`` opens one session (``MCPConnection``: a stdio command or an http URL), lists
the server's tools and wraps each in a ``Tool`` whose function forwards the call, with a time-out,
to the server. The registry it returns owns the session: use it in a ``with`` block, or ``close()``
it. Everything the model sees goes through the registry as usual (arguments checked against the
schema, errors turned into observation text); a remote error (``isError``), a time-out or a dead
server becomes a ``ToolResult`` error that says what to do next.

A server is someone else's code, so its listing is treated as untrusted text (``limits.py``): each
description is flattened, capped and prefixed with the server it came from, and so is every string of
its schema; a tool whose schema is too big, too deep or malformed, whose names or enum values carry
chat-template tokens, whose name the registry cannot take, or beyond ``max_tools`` is left out, and
``skipped`` says why (a listing longer than ``max_list_pages`` pages is cut there, and says so);
``suspicious`` names the tools whose text carries such tokens or seems to address the model.
A tool the server marks destructive (``destructiveHint``) needs the registry's approval hook; the
mark is the server's word, so connect only to servers you would let run code for you.

Deliberately left out: the tool list changing mid-session (list again with a new connection),
images and audio in results (shown as a placeholder line), and output schemas.

    >>> result_text([{"type": "text", "text": "21 °C"}, {"type": "image", "mimeType": "image/png", "data": "AAAA"}])
    '21 °C\\n[image/png content, 3 bytes, not shown]'
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable, Sequence

from ..errors import ToolError
from ..tools import Tool, ToolRegistry
from .limits import Limits, clean_schema, clean_text, marked, schema_problem, verbatim_problem
from .session import MCPConnection


class MCPToolRegistry(ToolRegistry):
    """A ``ToolRegistry`` of one MCP server's tools that owns the session; ``close()`` (or ``with``) ends it."""

    def __init__(self, connection: MCPConnection, tools: list[Tool], approve: Callable[[Tool, dict], bool] | None,
                 skipped: dict[str, str], suspicious: list[str]):
        super().__init__(tools, approve)
        self.connection, self.skipped, self.suspicious = connection, skipped, suspicious

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> "MCPToolRegistry":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def tools_from_mcp(server: str | Sequence[str], *, call_timeout: float = 30.0, connect_timeout: float = 20.0,
                   limits: Limits | None = None, approve: Callable[[Tool, dict], bool] | None = None,
                   label: str | None = None, env: dict[str, str] | None = None,
                   cwd: str | None = None) -> MCPToolRegistry:
    """Connect to ``server`` (http(s) URL or command) and return its tools as a registry that forwards calls.

    ``call_timeout`` bounds each forwarded call, ``connect_timeout`` the start and the listing;
    ``label`` names the server in descriptions (default: the name the server gives, cleaned).
    Raises ``MCPServerError`` when the server cannot be started, reached or listed.
    """
    limits = limits or Limits()
    connection = MCPConnection(server, connect_timeout=connect_timeout, env=env, cwd=cwd,
                               max_message_bytes=limits.max_message_bytes).open()
    try:
        listing, complete = connection.request(lambda client: _list_tools(client, limits), connect_timeout,
                                               "listing the tools")
        registry = registry_from_listing(connection, listing, call_timeout=call_timeout, limits=limits,
                                         approve=approve, label=label)
        if not complete:
            registry.skipped[REST] = (f"the server's listing went on past {limits.max_list_pages} pages "
                                      "(Limits.max_list_pages); the rest was not read")
        return registry
    except BaseException:
        connection.close()
        raise


REST = "(the rest of the listing)"  # the key in ``skipped`` for a listing cut short


def registry_from_listing(connection: MCPConnection, listing: list, *, call_timeout: float = 30.0,
                          limits: Limits | None = None, approve: Callable[[Tool, dict], bool] | None = None,
                          label: str | None = None) -> MCPToolRegistry:
    """The registry of the tools in ``listing`` (the SDK's ``Tool`` entries) that pass the limits, calling
    through ``connection``; the rest in ``skipped`` with the reason. Runs without a server (benchmarks use it)."""
    limits = limits or Limits()
    name = clean_text(label or connection.server_name or "unnamed", 40)
    tools, skipped, suspicious = [], {}, []
    for entry in listing:
        shown = clean_text(getattr(entry, "name", "?"), 80)
        if marked(entry.description, entry.input_schema, limits):
            suspicious.append(shown)
        reason = _refusal(entry, len(tools), limits)
        if reason is None:
            try:
                tools.append(_forwarding_tool(connection, entry, name, call_timeout, limits))
            except ToolError as e:  # a name the registry cannot take (spaces, 200 characters, ...), a malformed schema
                reason = clean_text(e, 300)
        if reason is not None:
            skipped[shown] = reason
    registry = MCPToolRegistry(connection, [], approve, skipped, suspicious)
    for t in tools:
        if t in registry:  # two remote names that differ only in case or separators
            skipped[t.name] = "another tool has the same name up to case and separators"
        else:
            registry.add(t)
    return registry


async def _list_tools(client: Any, limits: Limits) -> tuple[list, bool]:
    """The server's tool listing, page by page, and whether it was read to its end. It stops once one more tool
    than ``max_tools`` came, or after ``max_list_pages`` pages (a server may hand out cursors for ever)."""
    tools, cursor = [], None
    for _ in range(limits.max_list_pages):
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor or len(tools) > limits.max_tools:
            return tools, True
    return tools, False


def _refusal(entry: Any, offered: int, limits: Limits) -> str | None:
    if offered >= limits.max_tools:
        return f"the server offers more than {limits.max_tools} tools (Limits.max_tools)"
    return schema_problem(entry.input_schema, limits) or verbatim_problem(entry.input_schema)


def _forwarding_tool(connection: MCPConnection, entry: Any, server_label: str, call_timeout: float,
                     limits: Limits) -> Tool:
    remote_name = entry.name

    def forward(**arguments: Any) -> str:
        result = connection.request(lambda client: client.call_tool(remote_name, arguments,
                                                                     read_timeout_seconds=call_timeout),
                                    call_timeout, f"calling {remote_name}")
        text = result_text(result.content, result.structured_content, limits.max_result_chars)
        if result.is_error:  # the server's own error text is the observation, without a doubled "Error: name:"
            text = re.sub(rf"^\s*(error:\s*)?({re.escape(remote_name)}:\s*)?", "", text, flags=re.IGNORECASE)
            raise ToolError(f"{text or 'failed'} (reported by the MCP server)")
        return text

    description = clean_text(entry.description or "(no description)", limits.max_description_chars)
    hints = entry.annotations
    destructive = bool(hints and hints.destructive_hint is True and not hints.read_only_hint)
    # timeout=None: forward() enforces call_timeout itself and always returns, so no thread is abandoned
    return Tool(remote_name, f"[from MCP server {server_label!r}] {description}",
                clean_schema(entry.input_schema, limits), forward, side_effects=destructive, timeout=None)


def result_text(content: list, structured: Any = None, limit: int = Limits.max_result_chars) -> str:
    """A ``tools/call`` result's content blocks as observation text (non-text blocks as a placeholder)."""
    parts = []
    for block in content or []:
        block = block if isinstance(block, dict) else block.model_dump(by_alias=True, exclude_none=True)
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind in ("image", "audio"):
            size = len(block.get("data", "")) * 3 // 4  # base64 → bytes
            parts.append(f"[{block.get('mimeType', kind)} content, {size:,} bytes, not shown]")
        elif kind == "resource" and "text" in block.get("resource", {}):
            parts.append(str(block["resource"]["text"]))
        else:
            parts.append(f"[{kind} content: {str(block.get('uri') or block.get('resource', {}).get('uri', ''))}]")
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    text = "\n".join(parts)
    return text if len(text) <= limit else text[:limit] + f"\n...[cut: {len(text) - limit:,} more characters]"
