"""``handmade-agent serve``: the local model for a whole room, over an OpenAI-compatible HTTP API.

    server.py   run_server (what the command runs), LocalServer (a server in a child process), free_port
    app.py      the ASGI app: routes, the API key, body limits
    queue.py    the waiting line: one model, one request at a time, bounded
    schema.py   an OpenAI chat request checked field by field, and the reply
    limits.py   what one request may ask (grammar, tools, stop strings), checked at the door
    grammar_cost.py  what a client's grammar would cost llama.cpp (with gbnf_reader, rule_graph, grammar_walk,
                     lookahead)
    engine.py   llama_cpp.server as a child process, for comparison (not imported here)

Nothing here loads starlette, uvicorn or llama_cpp at import.
"""
from .server import ENV_SERVE_KEY, LocalServer, check_api_key, free_port, run_server, serve

__all__ = ["run_server", "LocalServer", "serve", "free_port", "ENV_SERVE_KEY", "check_api_key"]
