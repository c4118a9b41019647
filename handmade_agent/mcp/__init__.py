"""MCP, the Model Context Protocol: the course's tools offered to any MCP client, and any MCP server's tools
offered to the course's ``Agent``.

``server.py`` serves a ``ToolRegistry`` (the default toolbox) over stdio or local streamable HTTP; it is
also the command line (``python -m handmade_agent.mcp.server``), so this face does not import it
(``from handmade_agent.mcp.server import build_server``): running a module the package already
imported makes Python warn;
``client.py`` connects to an MCP server and returns its tools as a ``ToolRegistry`` whose calls are
forwarded, with a time-out each, and whose descriptions are capped and marked as the server's text;
``session.py`` keeps the one async session open on a background thread for the synchronous agent;
``stdio.py`` reads a stdio server in linear time, up to ``Limits.max_message_bytes`` a message;
``limits.py`` holds the checks that keep a hostile server's listing out of the model's prompt.

What a tool's *result* can carry: the server's text as it sent it. The listing is made inert; results
are not cleaned of what they say: the registry strips control characters and terminal colours and cuts
to its ``max_chars``, but a result keeps its lines, so it can hold chat-template tokens
(``<|im_start|>``, which the local model reads as a real turn marker), lines that read like
``Observation:`` or ``Final Answer:``, and orders addressed to the model. Connect only to servers you
would trust with the conversation; ``evaluation.quarantine`` fences a tool's results as data, a partial defence.

Nothing here is imported by ``import handmade_agent``, and the ``mcp`` SDK itself is imported only
when a server is built or a connection opened (``pip install 'handmade-agent[mcp]'``).

Deliberately left out: resources, prompts, sampling and OAuth; the tools are what an agent needs.

    >>> from handmade_agent.mcp import tools_from_mcp
    >>> callable(tools_from_mcp)
    True
"""
from .client import MCPToolRegistry, result_text, tools_from_mcp
from .limits import Limits
from .session import MCPConnection, MCPServerError

__all__ = ["tools_from_mcp", "MCPToolRegistry", "MCPConnection", "MCPServerError", "Limits", "result_text"]
