"""The course's toolbox as an MCP server: any MCP client (an IDE, a desktop app, another agent) can call it.

MCP, the Model Context Protocol, is a JSON-RPC protocol in which a server lists tools (name, description,
JSON Schema of the arguments) and runs them on request. A ``Tool`` already is exactly that, so
``build_server`` only translates: each tool of a ``ToolRegistry`` (the default toolbox unless told
otherwise) becomes an MCP tool, and a call runs through ``ToolRegistry.call``, so bad arguments, a failing
tool or a time-out come back as a result with ``isError`` set, never as a protocol error or a crash.
It uses the SDK's low-level ``Server``: our tools bring their own schemas, which the SDK's decorator
server would re-derive from type hints.

Transports: stdio (the client starts this module as a subprocess) and streamable HTTP, bound to
127.0.0.1 only: the toolbox has no authentication, so it is never offered to the network.

    python -m handmade_agent.mcp.server                     # stdio
    python -m handmade_agent.mcp.server --http --port 8765  # http://127.0.0.1:8765/mcp

Deliberately left out: resources, prompts, sampling, authentication, and tools with side effects
(the registry refuses them without an approval hook, and a remote client cannot give one).

    >>> tool_listing([t for t in default_registry() if t.name == "calculator"])[0]["name"]
    'calculator'
"""
from __future__ import annotations

import argparse
import datetime
import sys
from typing import Any, Iterable

from ..toolbox import default_registry
from ..tools import Tool, ToolRegistry

LOCAL_HOST = "127.0.0.1"  # the only address the HTTP transport binds to
HTTP_PATH = "/mcp"


def tool_listing(tools: Iterable[Tool]) -> list[dict[str, Any]]:
    """The MCP ``tools/list`` entries for ``tools``: name, description, inputSchema (plain dicts)."""
    return [{"name": t.name, "description": t.description, "inputSchema": t.parameters} for t in tools]


def build_server(registry: ToolRegistry | None = None, *, name: str = "handmade-agent") -> Any:
    """An ``mcp.server.Server`` that lists ``registry``'s tools and runs calls through ``registry.call``."""
    import anyio
    import mcp_types as types
    from mcp.server import Server

    registry = registry if registry is not None else default_registry()

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[types.Tool.model_validate(entry) for entry in tool_listing(registry)])

    async def call_tool(ctx: Any, params: Any) -> Any:
        # registry.call blocks until the tool ends or times out: on a worker thread the server keeps
        # answering other requests (and pings) meanwhile
        result = await anyio.to_thread.run_sync(registry.call, params.name, params.arguments or {},
                                                abandon_on_cancel=True)
        return types.CallToolResult(content=[types.TextContent(text=result.content)], is_error=not result.ok)

    return Server(name, version=_package_version(), on_list_tools=list_tools, on_call_tool=call_tool)


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("handmade-agent")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def serve_stdio(registry: ToolRegistry | None = None) -> None:
    """Serve over this process's stdin/stdout until the client closes stdin."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(registry)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)


def serve_http(registry: ToolRegistry | None = None, port: int = 8765, *, ready: Any = None) -> None:
    """Serve streamable HTTP on http://127.0.0.1:port/mcp until interrupted. ``port=0`` picks a free port.

    ``ready(url)`` is called once the socket listens (the CLI prints the URL, which a caller of port 0 needs).
    """
    import socket

    import anyio
    import uvicorn

    server = build_server(registry)
    # host=127.0.0.1 also makes the SDK refuse requests whose Host/Origin is not local (DNS rebinding)
    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=LOCAL_HOST)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((LOCAL_HOST, port))  # our own socket, so the real port is known before serving
    listener.listen(64)
    url = f"http://{LOCAL_HOST}:{listener.getsockname()[1]}{HTTP_PATH}"
    if ready is not None:
        ready(url)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    anyio.run(uvicorn.Server(config).serve, [listener])


def main(argv: list[str] | None = None) -> int:
    """``python -m handmade_agent.mcp.server [--http --port N] [--today YYYY-MM-DD]``."""
    parser = argparse.ArgumentParser(prog="python -m handmade_agent.mcp.server",
                                     description="Serve the handmade-agent toolbox over MCP (stdio by default).")
    parser.add_argument("--http", action="store_true", help=f"serve streamable HTTP on {LOCAL_HOST} instead of stdio")
    parser.add_argument("--port", type=int, default=8765, help="HTTP port (0: any free port; the URL is printed)")
    parser.add_argument("--today", type=datetime.date.fromisoformat, default=None,
                        help="fix the date tools' clock (YYYY-MM-DD), for repeatable answers")
    args = parser.parse_args(argv)
    try:
        import mcp  # noqa: F401  (only to say what to install)
    except ImportError:
        print("the MCP server needs the `mcp` package: pip install 'handmade-agent[mcp]'", file=sys.stderr)
        return 2
    registry = default_registry(today=args.today)
    if not args.http:
        serve_stdio(registry)  # stdout carries the protocol: nothing else may be printed there
        return 0
    try:
        serve_http(registry, args.port, ready=lambda url: print(f"MCP server on {url}", file=sys.stderr, flush=True))
    except KeyboardInterrupt:
        pass
    except OSError as e:  # the port is taken (or privileged)
        print(f"cannot listen on {LOCAL_HOST}:{args.port} ({e.strerror or e}); pick another --port, or --port 0 "
              "for any free one", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
