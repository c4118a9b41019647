"""Issues 31 and 49 on the real server: the attacks of ``benchmarks/hostile_round3.py`` and the G1 grammars of
``hostile_round4_serve.py`` sent over a socket to
``handmade-agent serve`` with the course's model, a plain request after each, and SIGTERM mid-grammar."""
import socket
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

pytestmark = pytest.mark.model


def test_the_room_server_refuses_each_attack_and_still_answers_within_2_s_then_exits_on_sigterm():
    from hostile_live import EXIT_SECONDS, PLAIN_SECONDS, exit_during_grammar, rows

    from handmade_agent.serve.server import LocalServer
    server = LocalServer().start()
    try:
        table = rows(server)
        port, seconds = server.port, exit_during_grammar(server)
    finally:
        server.stop()
    wrong = [(r["attack"], r["status"]) for r in table if r["status"] != r["expected"] or not r["said_why"]]
    assert not wrong, wrong
    assert all(r["plain_status"] == 200 and r["plain_seconds"] < PLAIN_SECONDS for r in table), \
        [(r["attack"], r["plain_status"], round(r["plain_seconds"], 2)) for r in table]
    assert len(table) >= 25 and {r["expected"] for r in table} >= {200, 400, 403, 415, 503}
    assert sum(r["attack"].startswith("G1 grammar") for r in table) >= 8  # issue 49: each refused, the line free
    assert seconds < EXIT_SECONDS, f"the server took {seconds:.1f} s to exit on SIGTERM"
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0, "the port is still taken"
