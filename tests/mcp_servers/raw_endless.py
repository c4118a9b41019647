"""A bare MCP server without the SDK, so it starts in milliseconds (benchmarks/hostile_round4_mcp.py times it).

It finishes the handshake, lists one tool, ``endless``, and answers a call to it with a result line that
never ends. It exits when its stdin closes, as a stdio server should.
"""
import json
import os
import sys
import threading

LOCK = threading.Lock()


def send(message: dict) -> None:
    with LOCK:
        sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
        sys.stdout.buffer.flush()


def endless(request_id: object) -> None:
    piece = b"z" * 65536
    with LOCK:  # held for good: nothing else may end the line
        sys.stdout.buffer.write(b'{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"'
                                % json.dumps(request_id).encode())
        while True:
            sys.stdout.buffer.write(piece)
            sys.stdout.buffer.flush()


def answer(message: dict) -> None:
    method, params = message.get("method"), message.get("params") or {}
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {
            "protocolVersion": params.get("protocolVersion"), "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw-endless", "version": "0"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": [
            {"name": "endless", "description": "A line that never ends.",
             "inputSchema": {"type": "object", "properties": {}}}]}})
    elif method == "tools/call":
        threading.Thread(target=endless, args=(message["id"],), daemon=True).start()
    else:
        send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}})


def main() -> None:
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" in message and "method" in message:  # a request; notifications need no answer
            answer(message)
    os._exit(0)  # stdin closed: the daemon writer must not keep the process alive


if __name__ == "__main__":
    main()
