"""The course's model server as a small ASGI app: one in-process model, OpenAI-compatible routes.

``make_app(llm)`` serves any ``LLM`` (``LocalLLM`` in the CLI, a fake one in the tests) at
``POST /v1/chat/completions``, ``GET /v1/models``, ``POST /extras/tokenize`` and ``GET /health``.
Being a good citizen in a room: an optional API key (``Authorization: Bearer``, compared in
constant time; /health needs none), a body size limit (413), short OpenAI-style JSON errors
(``{"error": {"message", "type"}}``, redacted, never a traceback), 404 for a model name it does not
serve, a bounded FIFO line to the model (503 + ``Retry-After`` when full, ``queue.py``; tokenizing has
its own bounded line), the limits of one request (``limits.py``), and requests whose client left are
dropped, or stop decoding at the next token.

Web pages the student opens must not drive the server (with no key, the default, nothing else stops
them): a POST needs ``Content-Type: application/json`` (415 otherwise; a page can send text/plain
without asking, but JSON needs a CORS preflight this server never grants), and with ``hosts`` given
(loopback binds) the ``Host`` header must name one of them (403 otherwise: DNS rebinding, where
evil.example resolves to 127.0.0.1, keeps the page's name in ``Host``).

Deliberately left out: streaming, TLS, CORS, rate limits per client, and more than one model.

    >>> app = make_app(LocalLLM(), api_key="room-word")     # doctest: +SKIP
"""
from __future__ import annotations

import asyncio
import hmac
import json
import threading
import time
from typing import Any

from ..errors import LLMError
from ..redaction import redact_text
from .limits import check_tokenize
from .queue import Abandoned, Line, QueueFull, stop_on_cancel
from .schema import BadRequest, chat_request, chat_response

MAX_BODY = 1_000_000  # bytes: an agent transcript is tens of KB; a megabyte is a mistake or an attack
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
NO_KEY = "Missing or wrong API key: send the header Authorization: Bearer <the room key>."


def error(status: int, message: str, kind: str, headers: dict | None = None, *, redact: bool = True) -> Any:
    """An OpenAI-style JSON error; ``redact=False`` only for fixed texts of ours (the redactor would eat a hint
    such as "Authorization: Bearer <key>")."""
    from starlette.responses import JSONResponse
    text = redact_text(message) if redact else message
    return JSONResponse({"error": {"message": text, "type": kind}}, status, headers=headers)


def host_name(header: str) -> str:
    """The name in a ``Host`` header, without its port: "[::1]:8080" -> "::1", "Localhost.:80" -> "localhost"."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return (header.rsplit(":", 1)[0] if header.count(":") == 1 else header).rstrip(".")


async def read_json(request: Any, limit: int) -> Any:
    """The body as JSON, or an error response (413 over ``limit`` bytes, counted as they arrive; 400 if not JSON)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return error(413, f"The request body is over {limit} bytes.", "request_too_large")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:  # a chunked body has no length header: stop reading here
            return error(413, f"The request body is over {limit} bytes.", "request_too_large")
    try:
        return json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: JSON nested thousands deep
        return error(400, "The body is not valid JSON.", "invalid_request_error")


async def watch(request: Any, cancel: threading.Event) -> None:
    """Set ``cancel`` when the client disconnects (uvicorn does not cancel a handler that is waiting).

    Once the body is read, the next ASGI message is ``http.disconnect``: awaiting it wakes the moment the
    client goes away (a poll every 0.1 s let the next request in line start before its flag was set).
    """
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            cancel.set()
            return


def make_app(llm: Any, *, api_key: str | None = None, queue_limit: int = 16, max_body: int = MAX_BODY,
             retry_after: int = 5, hosts: tuple[str, ...] | None = LOOPBACK_HOSTS, on_request: Any = None) -> Any:
    """The ASGI app serving ``llm`` (see the module docstring); ``hosts=None`` takes any ``Host`` header.
    ``on_request(record)`` is told of each answered chat request: model, messages, reply, usage, start, seconds."""
    from contextlib import asynccontextmanager

    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    line, tokens_line = Line(queue_limit), Line(queue_limit, name="tokenize")
    stop_on_cancel(llm, line)
    model = llm.model

    def authorized(request: Any) -> bool:
        if not api_key:
            return True
        given = request.headers.get("authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {api_key}".encode())

    def refused(request: Any, key: bool) -> Any:
        """The error for a request from somewhere it must not come from, or None."""
        if hosts is not None and host_name(request.headers.get("host", "")) not in hosts:
            return error(403, f"This server answers to the host names {', '.join(hosts)} only, not "
                              f"{request.headers.get('host', '')[:100]!r}: a web page cannot use it. To serve "
                              f"a room, start it with --host 0.0.0.0 and an API key.", "forbidden_host")
        if key and not authorized(request):
            return error(401, NO_KEY, "authentication_error", redact=False)
        media = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if request.method == "POST" and media != "application/json":
            return error(415, "Send the body as JSON with the header Content-Type: application/json.",
                         "invalid_request_error")
        return None

    def guarded(handler: Any, key: bool = True) -> Any:
        async def endpoint(request: Any) -> Any:
            refusal = refused(request, key)
            if refusal is not None:
                return refusal
            try:
                return await handler(request)
            except BadRequest as e:
                return error(400, str(e), "invalid_request_error")
            except Exception as e:  # a bug of ours: the client gets its kind, never a traceback
                return error(500, f"Internal error ({type(e).__name__}).", "server_error")
        return endpoint

    async def models(request: Any) -> Any:
        return JSONResponse({"object": "list", "data": [{"id": model, "object": "model", "owned_by": "handmade-agent"}]})

    async def health(request: Any) -> Any:
        return JSONResponse({"status": "ok", "model": model, "queue": line.pending, "queue_limit": line.limit})

    async def tokenize(request: Any) -> Any:
        body = await read_json(request, max_body)
        if isinstance(body, JSONResponse):
            return body
        text = body.get("input") if isinstance(body, dict) else None
        if not isinstance(text, str):
            raise BadRequest("input must be a string")
        tok = getattr(llm, "_tokens", None) or getattr(llm, "tokenize")
        text = check_tokenize(text)
        try:
            future = tokens_line.submit(lambda: tok(text), threading.Event())
        except QueueFull as e:
            return error(503, f"The tokenizer is busy ({e}); try again shortly.", "server_busy",
                         {"Retry-After": str(retry_after)})
        try:
            return JSONResponse({"tokens": await asyncio.wrap_future(future)})
        except UnicodeEncodeError:
            raise BadRequest("input is not valid UTF-8 text") from None

    async def chat(request: Any) -> Any:
        body = await read_json(request, max_body)
        if isinstance(body, JSONResponse):
            return body
        asked = body.get("model") if isinstance(body, dict) else None
        if asked not in (None, "", model):
            return error(404, f"The model {str(asked)[:100]!r} does not exist here; this server serves {model!r}.",
                         "model_not_found")
        kwargs = chat_request(body)
        started = time.time()
        cancel = threading.Event()
        try:
            future = line.submit(lambda: llm.complete(**kwargs), cancel)
        except QueueFull as e:
            return error(503, f"The model is busy ({e}); try again shortly.", "server_busy",
                         {"Retry-After": str(retry_after)})
        watcher = asyncio.create_task(watch(request, cancel))
        try:
            completion = await asyncio.wrap_future(future)
        except Abandoned:
            return error(499, "The client closed the request.", "client_closed")
        except LLMError as e:
            too_long = "context holds" in str(e)
            return error(400 if too_long else 500, str(e)[:500], "context_length_exceeded" if too_long else "server_error")
        finally:
            watcher.cancel()
        if cancel.is_set():
            return error(499, "The client closed the request.", "client_closed")
        if on_request is not None:  # e.g. spans of the room's traffic (cli: serve --trace-to)
            on_request({"model": model, "messages": list(kwargs["messages"]), "text": completion.text,
                        "usage": completion.usage, "started": started, "seconds": time.time() - started})
        return JSONResponse(chat_response(completion, model))

    @asynccontextmanager
    async def lifespan(app: Any):
        yield
        line.close()  # shutdown: stop a decode in progress instead of waiting for it
        tokens_line.close()

    app = Starlette(routes=[Route("/v1/models", guarded(models)), Route("/health", guarded(health, key=False)),
                            Route("/v1/chat/completions", guarded(chat), methods=["POST"]),
                            Route("/extras/tokenize", guarded(tokenize), methods=["POST"])], lifespan=lifespan)
    app.state.line = line
    return app
