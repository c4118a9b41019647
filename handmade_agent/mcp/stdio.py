"""The stdio transport to an MCP server, with a reader that costs linear time and stops at a cap.

The SDK's ``stdio_client`` joins each 64 kB chunk to the unfinished line and splits the whole again, so
one long line costs time quadratic in its length (a 40 MB result: 13.5 s of a core), and nothing bounds
it: a server that writes a line without end is read, at up to a core, for as long as the session lives.
``stdio_transport`` is the same transport with another reader: it looks for the newline in the new chunk
only, and a line longer than ``max_line_bytes`` is not read on; ``on_overflow`` is told why, and the
session sees the connection end. Starting and stopping the server are the SDK's own helpers (a process
group of its own; stdin closed, then SIGTERM, then SIGKILL), whose version the ``mcp`` extra pins.

Deliberately left out: a cap on the HTTP transport (its replies are read by ``httpx``), and reading on
past an overlong line to keep the session: a line without end would have to be read to its end.

    >>> import asyncio
    >>> async def chunks():  # what a server writes arrives in pieces that ignore line ends
    ...     for piece in (b'{"a": 1}\\n{"b"', b': 2}\\n{"c": 3'):
    ...         yield piece
    >>> lines = []
    >>> async def keep(line): lines.append(line)
    >>> asyncio.run(pass_lines(chunks(), 100, keep))
    >>> lines
    [b'{"a": 1}', b'{"b": 2}']
"""
from __future__ import annotations

import os
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Callable

from ..redaction import redact_text

FLUSH_SECONDS = 0.5  # for the writer to send what the session already handed it, before stdin closes


class _LineTooLong(Exception):
    pass


@asynccontextmanager
async def stdio_transport(params: Any, errlog: Any, max_line_bytes: int,
                          on_overflow: Callable[[str], None]) -> AsyncIterator[tuple[Any, Any]]:
    """Start the server of ``params`` (``StdioServerParameters``) and yield the session's (read, write) streams."""
    import anyio
    from mcp.client import stdio as sdk

    process = await sdk._create_platform_compatible_process(
        command=await sdk._get_executable_command(params.command), args=params.args,
        env=sdk.get_default_environment() | (params.env or {}), errlog=errlog, cwd=params.cwd)
    # no await from here into the task group: a cancellation in between would leave the server running
    to_session, read_stream = anyio.create_memory_object_stream(0)
    write_stream, from_session = anyio.create_memory_object_stream(0)
    writer_done = anyio.Event()

    async def read() -> None:
        overflowed = False
        try:
            async with to_session:
                try:
                    await pass_lines(process.stdout, max_line_bytes,
                                      lambda line: to_session.send(sdk._parse_line(line)))
                except _LineTooLong:  # told before the session sees the end; no drain: the server waits to be stopped
                    overflowed = True
                    on_overflow(f"the MCP server sent a message of more than {max_line_bytes:,} bytes "
                                "(Limits.max_message_bytes), so the session was closed")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError):
            pass  # the session, or our own shutdown, closed a stream under the read
        finally:  # a server flushing its last output must not block on a full pipe and miss its exit
            if not overflowed:
                await _drain(process.stdout, max_line_bytes)

    async def write() -> None:
        try:
            async with from_session:
                async for message in from_session:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await process.stdin.send(text.encode(params.encoding, params.encoding_error_handler))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await to_session.aclose()  # the session must see the end, not wait on a request forever
        finally:
            writer_done.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read)
        tasks.start_soon(write)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):  # every wait below is bounded; the server must not outlive us
                read_stream.close()
                write_stream.close()
                with anyio.move_on_after(FLUSH_SECONDS):
                    await writer_done.wait()
                await sdk._stop_server_process(process)
                for stream in (read_stream, write_stream, to_session, from_session):
                    await stream.aclose()
            tasks.cancel_scope.cancel()


async def pass_lines(stdout: Any, max_line_bytes: int, send: Callable[[bytes], Any]) -> None:
    """Hand each line of ``stdout`` (chunks of bytes) to ``send``; ``_LineTooLong`` once one passes the cap.

    The line that is still arriving when ``stdout`` ends (no newline yet) is not handed on."""
    pending = bytearray()  # the unfinished line grows by each chunk and is never split again
    async for chunk in stdout:
        *complete, rest = chunk.split(b"\n")
        for piece in complete:
            pending += piece
            if len(pending) > max_line_bytes:
                raise _LineTooLong
            await send(bytes(pending))
            pending.clear()
        pending += rest
        if len(pending) > max_line_bytes:
            raise _LineTooLong


async def _drain(stdout: Any, budget: int) -> None:
    """Read and discard up to ``budget`` bytes of what is left: enough for any last words, never an endless line."""
    import anyio
    with anyio.CancelScope(shield=True), anyio.move_on_after(5):
        try:
            while budget > 0:
                budget -= len(await stdout.receive())
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError, OSError):
            pass


def stderr_tail(errlog: Any, chars: int = 400) -> str:
    """The end of a stdio server's stderr file (its traceback, usually), redacted, as a phrase for an error message.

    Redacted because error text reaches the model, and with ``OpenAIChat`` a hosted provider."""
    if errlog is None or errlog.closed:
        return ""
    try:  # pread: the server shares this file's offset, so seeking here would move where it writes
        fd = errlog.fileno()
        size = os.fstat(fd).st_size
        text = os.pread(fd, 4 * chars, max(0, size - 4 * chars)).decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""
    tail, words = text[-chars:], text[-chars:].split(None, 1)
    if (size > 4 * chars or len(text) > chars) and len(words) == 2:  # the first word may be cut in two, and
        tail = words[1]                                               # half a key has no shape to redact
    tail = tail.strip()
    return f" (its stderr ends: {redact_text(tail)!r})" if tail else ""
