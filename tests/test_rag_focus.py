"""focus.best_lines: each retrieved passage cut to the lines that match the question, by code."""
from __future__ import annotations

from handmade_agent.rag import HashingEmbedder
from handmade_agent.rag.chunking import Chunk
from handmade_agent.rag.focus import best_lines, lines_of, named_columns

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


SPECS = Chunk("s:4", "s", "| Water tank | 2.6 L | 4.1 L |", table_header="| Item | Tessel T4 | Tessel T4 Pro |")
PRICES = Chunk("p:1", "p", "| Tessel T4 | Mobile robot, 2.6 L tank | €649 |", table_header="| Product | What it is | Price |")


def test_a_question_naming_one_of_several_value_columns_sees_only_that_one():
    assert lines_of(SPECS, ["What is the water tank capacity of the Tessel T4 Pro?"]) == \
        ["Item: Water tank; Tessel T4 Pro: 4.1 L"]
    # "Tessel T4" names both columns; the one with no term left unasked wins
    assert lines_of(SPECS, ["Tessel T4 的水箱容量是多少？"]) == ["Item: Water tank; Tessel T4: 2.6 L"]
    assert best_lines([SPECS], ["T4 Pro tank"])[0][1] == "Item: Water tank; Tessel T4 Pro: 4.1 L"


def test_columns_stay_when_the_question_names_none_all_or_just_the_attribute():
    assert lines_of(SPECS, ["How big is the water tank?"]) == ["Item: Water tank; Tessel T4: 2.6 L; Tessel T4 Pro: 4.1 L"]
    assert named_columns(["Item", "Tessel T4", "Tessel T4 Pro"], ["Tessel T4 or Tessel T4 Pro?"]) is None  # both named
    assert named_columns(["Item", "Tessel T4", "Tessel T4 Pro"], ["Which tank is bigger, T4 or T4 Pro?", "T4 Pro"]) is None
    # one named column is what is asked about, not a choice between columns: the whole row stays
    assert lines_of(PRICES, ["What is the price of the Tessel T4?"]) == \
        ["Product: Tessel T4; What it is: Mobile robot, 2.6 L tank; Price: €649"]
