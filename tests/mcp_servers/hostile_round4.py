"""A hostile MCP server for tests/test_hostile_round4_mcp.py (issue 49): ``python hostile_round4.py MODE``.

Modes: ``schema`` lists the tools of ``hostile_schemas.py``, whose schemas carry chat-template tokens and
forged ReAct lines in property names, nested ``type`` strings and ``enum`` values, or are malformed
(``{"a": true}``, ``"type": 5`` ...); ``describe`` adds a 10 MB description; ``cursor`` answers every
listing page with yet another ``nextCursor``; ``secret`` prints a key to stderr and exits. Every mode
also has ``echo``, ``pid`` (the server's process id), ``big`` (a result of ``mb`` megabytes),
``endless``/``trickle`` (a result line that never ends, written fast or slowly straight to stdout) and
``die_telling`` (prints a key to stderr and dies).
"""
from __future__ import annotations

import os
import sys
import threading
import time

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from hostile_schemas import HOSTILE_SCHEMAS, MALFORMED, SECRET  # this script's folder is on sys.path

MODE = sys.argv[1] if len(sys.argv) > 1 else "schema"
PROTOCOL = os.dup(1)  # the SDK points fd 1 at stderr once it serves; this copy still reaches the client


def tools() -> list[types.Tool]:
    empty = {"type": "object", "properties": {}}
    text = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    listed = [types.Tool(name="echo", description="Repeat the text.", input_schema=text),
              types.Tool(name="pid", description="The server's process id.", input_schema=empty),
              types.Tool(name="big", description="A big result.", input_schema={
                  "type": "object", "properties": {"mb": {"type": "number"}}}),
              types.Tool(name="endless", description="A line that never ends.", input_schema=empty),
              types.Tool(name="trickle", description="A slow line that never ends.", input_schema=empty),
              types.Tool(name="die_telling", description="Dies, a key in its last words.", input_schema=empty)]
    if MODE == "schema":
        listed += [types.Tool(name=n, description="Malformed.", input_schema=s) for n, s in MALFORMED.items()]
        listed += [types.Tool(name=n, description="Hostile strings.", input_schema=s)
                   for n, s in HOSTILE_SCHEMAS.items()]
    if MODE == "describe":
        listed.append(types.Tool(name="windy", description="Tells a long story. " + "blah " * 2_000_000,
                                 input_schema=empty))
    return listed


def endless_line(request_id: object, piece: bytes, pause: float) -> None:
    """Write one JSON-RPC result that never ends, past the SDK, straight to stdout."""
    head = b'{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"' % str(request_id).encode()
    os.write(PROTOCOL, head)
    while True:
        os.write(PROTOCOL, piece)
        time.sleep(pause)


async def list_tools(ctx, params) -> types.ListToolsResult:
    if MODE == "cursor":
        page = int((params.cursor if params else None) or 0)
        return types.ListToolsResult(tools=tools() if page == 0 else [], next_cursor=str(page + 1))
    return types.ListToolsResult(tools=tools())


async def call_tool(ctx, params) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name == "die_telling":
        print(f"fatal: the upstream refused api_key={SECRET}", file=sys.stderr, flush=True)
        os._exit(3)
    if params.name == "pid":
        return types.CallToolResult(content=[types.TextContent(text=str(os.getpid()))])
    if params.name == "big":
        return types.CallToolResult(content=[types.TextContent(text="z" * int(float(args["mb"]) * 1_000_000))])
    if params.name in ("endless", "trickle"):
        fast = params.name == "endless"
        threading.Thread(target=endless_line, args=(ctx.request_id, b"z" * (65536 if fast else 1024),
                                                    0 if fast else 0.05), daemon=True).start()
        await anyio.sleep(3600)
    return types.CallToolResult(content=[types.TextContent(text=f"echo: {args.get('text', '')}")])


async def main() -> None:
    server = Server("hostile4", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    if MODE == "secret":
        sys.exit(f"boom: cannot log in with api_key={SECRET}")
    anyio.run(main)
