"""A second MCP server, written with a different library (fastmcp), for tests/test_mcp.py: two small tools.

Run as ``python tests/mcp_servers/fastmcp_units.py`` (stdio). It shares no code with the course's server,
so a test against it shows the client works with MCP as spoken by someone else.
"""
from __future__ import annotations

from fastmcp import FastMCP

server = FastMCP("units")


@server.tool
def miles_to_km(miles: float) -> float:
    """Convert a distance in miles to kilometres."""
    return round(miles * 1.609344, 3)


@server.tool
def shout(text: str, times: int = 1) -> str:
    """Repeat the text in capitals, separated by spaces."""
    if times < 1:
        raise ValueError("times must be at least 1")
    return " ".join([text.upper()] * times)


if __name__ == "__main__":
    server.run(show_banner=False)  # stdio: stdout is the protocol, so no banner
