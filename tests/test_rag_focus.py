"""focus.best_lines: each retrieved passage cut to the lines that match the question, by code."""
from __future__ import annotations

from handmade_agent.rag import HashingEmbedder
from handmade_agent.rag.chunking import Chunk
from handmade_agent.rag.focus import best_lines, lines_of

PROSE = Chunk("m:1", "m", "The M1 is a desk waterer for small pots. It has no battery. "
                          "Each of its two hoses is 450 mm long. It was launched in March 2024.")
ROW = Chunk("s:2", "s", "| Arm payload | 350 g |", table_header="| Item | Value |")
ZH = Chunk("z:1", "z", "M1 没有电池。断电期间不会浇水。每根水管长 450 毫米。", lang="zh")


def test_prose_keeps_the_best_lines_in_their_own_order_and_a_table_row_becomes_column_value_pairs():
    [(hit, text)] = best_lines([PROSE], ["How long is each hose of the M1?"], keep=1)
    assert hit is PROSE and text == "Each of its two hoses is 450 mm long."
    [(_, two)] = best_lines([PROSE], ["How long is each hose?", "battery"], keep=2)
    assert two == "It has no battery. Each of its two hoses is 450 mm long."  # document order, not score order
    assert lines_of(ROW) == ["Item: Arm payload; Value: 350 g"]  # each value beside its column's name
    assert best_lines([ROW], ["arm payload"])[0][1] == "Item: Arm payload; Value: 350 g"
    two_rows = Chunk("s:3", "s", "| Tank | 2.6 L | 4.1 L |\n| Hose | 6 m |", table_header="| Item | T4 | T4 Pro |")
    assert lines_of(two_rows) == ["Item: Tank; T4: 2.6 L; T4 Pro: 4.1 L / | Hose | 6 m |"]  # a ragged row as it is


def test_hits_keep_the_retrievers_order_and_chinese_is_matched_by_bigrams():
    shown = best_lines([ROW, PROSE, ZH], ["水管多长？"], HashingEmbedder(256), keep=1)
    assert [h.id for h, _ in shown] == ["s:2", "m:1", "z:1"]
    assert shown[2][1] == "每根水管长 450 毫米。"


def test_no_query_or_no_lines_shows_the_passage_whole():
    assert best_lines([PROSE], ["", "  "]) == [(PROSE, PROSE.text)]
    blank = Chunk("b:1", "b", "   ")
    assert best_lines([blank], ["hose"]) == [(blank, "   ")]
