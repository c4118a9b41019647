"""One MCP session kept open on a background thread, so synchronous code (the ``Agent``) can use it.

The ``mcp`` SDK is async; the agent loop is not. ``MCPConnection`` runs an asyncio loop on a daemon
thread, opens the SDK's ``Client`` in one long-lived task there (the SDK's streams and task groups
must be entered and left by the same task), and hands each request to that loop with a deadline:
``list_tools`` and ``call_tool`` return or raise ``MCPServerError`` within their time-out plus a
small margin, whatever the server does. A server that dies or closes the connection marks the
connection dead; later calls fail at once with the reason, and the tail of a stdio server's stderr.
A stdio server is read by ``stdio.py``: a message over ``max_message_bytes`` ends the session. After a
call times out, the server is asked for its tool list in the background: one that answers (a slow tool)
keeps its session; one that does not (writing a line without end, stuck whole) is stopped, so nothing keeps
reading it or leaves it running. Error text goes to the model, so the command line and the stderr
tail are redacted first (a key in an argument or a traceback would reach a hosted provider).

Deliberately left out: reconnecting (a restarted server is a new session: open a new connection),
server-initiated requests (sampling, elicitation) and notifications.

    >>> MCPConnection(["python", "-m", "handmade_agent.mcp.server"]).target
    'python -m handmade_agent.mcp.server'
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import shlex
import tempfile
import threading
from typing import Any, Sequence

from ..errors import ToolError
from ..redaction import redact_text
from .limits import Limits
from .stdio import stderr_tail, stdio_transport

MARGIN = 2.0  # seconds beyond a request's own time-out before the waiting side gives up regardless


def innermost(error: BaseException) -> BaseException:
    """The first leaf of an exception group (the SDK's task groups wrap the error that matters)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _run_until_stopped(loop: asyncio.AbstractEventLoop) -> None:
    try:
        loop.run_forever()
    finally:
        loop.close()  # frees the loop's selector; close() only stops it, from another thread


class MCPServerError(ToolError):
    """An MCP server could not be started or reached, did not answer in time, answered badly, or went away."""


class MCPConnection:
    """A session with one MCP server: ``server`` is an http(s) URL, or a command (a string or an argv list)."""

    def __init__(self, server: str | Sequence[str], *, connect_timeout: float = 20.0,
                 env: dict[str, str] | None = None, cwd: str | None = None,
                 max_message_bytes: int = Limits.max_message_bytes):
        self.url = server if isinstance(server, str) and server.startswith(("http://", "https://")) else None
        self.argv = None if self.url else (shlex.split(server) if isinstance(server, str) else list(server))
        if self.argv is not None and not self.argv:
            raise MCPServerError("no MCP server given: pass an http(s) URL or a command such as "
                                 "['python', '-m', 'handmade_agent.mcp.server'].")
        self.target = redact_text(self.url or shlex.join(self.argv or []))  # shown in errors, so to the model
        self.connect_timeout, self.env, self.cwd, self.max_message_bytes = connect_timeout, env, cwd, max_message_bytes
        self.server_name: str = ""
        self.dead: str | None = None  # why the session ended, once it has
        self._ended: str | None = None  # why we ended it (the server broke a limit), for the call that was waiting
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: Any = None
        self._closing: asyncio.Event | None = None
        self._holder: concurrent.futures.Future | None = None
        self._started = False               # the session task has begun (so it will set _finished)
        self._finished = threading.Event()  # set when the session task has ended and cleaned up
        self._stderr = tempfile.TemporaryFile() if self.argv else None  # a stdio server's stderr, for errors

    def open(self) -> "MCPConnection":
        """Start the server (stdio) or connect (HTTP) and finish the MCP handshake, within ``connect_timeout``."""
        import mcp  # noqa: F401  (fail here, clearly, when the SDK is missing)
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=_run_until_stopped, args=(self._loop,), name=f"mcp {self.target[:40]}",
                         daemon=True).start()
        opened: concurrent.futures.Future = concurrent.futures.Future()
        self._holder = asyncio.run_coroutine_threadsafe(self._hold(opened), self._loop)
        try:
            opened.result(self.connect_timeout)
            return self
        except concurrent.futures.TimeoutError:
            problem = (f"the MCP server {self.target!r} did not finish the handshake within {self.connect_timeout:g} s"
                       f"{self._stderr_tail()}; check that it is an MCP server and that it starts, or raise "
                       "connect_timeout.")
        except Exception as e:
            cause = innermost(e)
            problem = (f"could not connect to the MCP server {self.target!r}: {type(cause).__name__}: "
                       f"{str(cause)[:300]}{self._stderr_tail()}")
        self.close()  # after reading the stderr tail: closing discards it
        raise MCPServerError(redact_text(problem))

    async def _hold(self, opened: concurrent.futures.Future) -> None:
        from mcp import Client, StdioServerParameters
        self._started, self._closing = True, asyncio.Event()
        if self.url:
            server: Any = self.url
        else:
            params = StdioServerParameters(command=self.argv[0], args=self.argv[1:], env=self.env, cwd=self.cwd)
            server = stdio_transport(params, self._stderr, self.max_message_bytes, self._end)
        try:
            async with Client(server) as client:
                self._client = client
                info = getattr(client, "server_info", None)
                self.server_name = str(getattr(info, "name", "") or "")
                opened.set_result(True)
                await self._closing.wait()
        except BaseException as e:  # noqa: BLE001  (any end of the session is reported, never raised here)
            if not opened.done():
                opened.set_exception(e if isinstance(e, Exception) else RuntimeError(repr(e)))
            self.dead = self.dead or f"the session ended ({type(e).__name__}: {str(e)[:200]})"
            if not isinstance(e, Exception):
                raise
        finally:
            self.dead = self.dead or "the connection was closed"
            self._client = None
            self._finished.set()

    def request(self, make: Any, timeout: float, what: str) -> Any:
        """Run ``make(client)`` (a coroutine) on the session's loop; its result, or MCPServerError in time."""
        if self.dead or self._client is None or self._loop is None:
            raise MCPServerError(redact_text(f"the MCP server {self.target!r} is not connected: "
                                             f"{self.dead or 'open the connection first'}{self._stderr_tail()}. "
                                             "Answer without its tools, or restart the server and connect again."))
        future = asyncio.run_coroutine_threadsafe(make(self._client), self._loop)
        stuck = (f"{what} got no answer from the MCP server within {timeout:g} s; the server may be stuck. Try "
                 "again later, or answer without this tool.")
        try:
            return future.result(timeout + MARGIN)
        except concurrent.futures.TimeoutError:
            future.cancel()
            self._probe_or_end(timeout)
            raise MCPServerError(stuck) from None
        except Exception as e:
            e = innermost(e)
            if self._looks_closed(e):
                self.dead = self.dead or f"the server closed the connection ({type(e).__name__})"
                ended = self._ended or f"the MCP server {self.target!r} closed the connection (it may have crashed)"
                raise MCPServerError(f"{what} failed: {ended}{self._stderr_tail()}. Answer without its tools, "
                                     "or restart the server and connect again.") from None
            if "timed out" in str(e).lower() or isinstance(e, TimeoutError):
                self._probe_or_end(timeout)
                raise MCPServerError(stuck) from None
            raise MCPServerError(redact_text(f"{what} failed: {type(e).__name__}: {str(e)[:300]}")) from None

    def _end(self, reason: str) -> None:
        """End the session from the loop's thread (the transport found the server unfit); later calls get ``reason``."""
        self.dead, self._ended = self.dead or reason, self._ended or reason
        if self._closing is not None:
            self._closing.set()

    def _probe_or_end(self, timeout: float) -> None:
        """After a call timed out: end the session unless the server answers a listing within ``timeout`` (1-5 s).

        Any answer will do, an error too: it proves the server reads and writes. (``ping`` is not used: the
        protocol has dropped it, and servers answer "Method not found".)"""
        loop, client = self._loop, self._client
        if loop is None or client is None:
            return

        async def probe() -> None:
            try:
                await asyncio.wait_for(client.list_tools(cache_mode="bypass"), max(1.0, min(timeout, 5.0)))
            except asyncio.TimeoutError:  # only silence condemns the server
                self._end("the server answered neither a call nor a second request in time, so it was stopped")
            except Exception:  # noqa: BLE001  (an error is an answer; a closed connection is reported as closed)
                pass
        try:
            asyncio.run_coroutine_threadsafe(probe(), loop)
        except RuntimeError:  # the connection was closed meanwhile: nothing left to stop
            pass

    def _looks_closed(self, error: BaseException) -> bool:
        import anyio
        text = str(error).lower()
        return (isinstance(error, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream,
                                   ConnectionError, EOFError))
                or "connection closed" in text or (self._holder is not None and self._holder.done()))

    def _stderr_tail(self) -> str:
        return stderr_tail(self._stderr)

    def close(self) -> None:
        """End the session (a stdio server is stopped) and the background loop. Safe to call twice."""
        loop, self._loop = self._loop, None
        if loop is None:  # never opened (or closed already): only the stderr file may be left
            if self._stderr is not None:
                self._stderr.close()
            return
        if self._client is not None and self._closing is not None:
            loop.call_soon_threadsafe(self._closing.set)  # a live session ends politely
        elif self._holder is not None:
            self._holder.cancel()  # a handshake still waiting is abandoned
        # the SDK stops a stdio server (stdin closed, then SIGTERM, then SIGKILL): bounded, a few seconds
        if self._started:
            self._finished.wait(10)
        loop.call_soon_threadsafe(loop.stop)
        self.dead = self.dead or "the connection was closed"
        if self._stderr is not None:
            self._stderr.close()

    def __enter__(self) -> "MCPConnection":
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()
