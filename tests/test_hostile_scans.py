"""Scans over model output stay linear: 100,000 characters of the worst input each one saw take well under a second.

Each pattern here once rescanned the rest of the text from every position: ``[`` a hundred thousand times took
3.5-9.5 s in the answer-language check, and a number per cell 8.8 s in the support check. A regression guard:
the limit is generous for a slow machine, the quadratic versions take seconds.
"""
from __future__ import annotations

import time

import pytest

from handmade_agent.rag import check_support, han_share, keeps_facts, needs_translation
from handmade_agent.rag.answer_language import keep_citations
from handmade_agent.rag.support import facts, quantities

N = 100_000


def seconds(fn, *args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


@pytest.mark.parametrize("text", ["[" * N, "[a" * (N // 2), "]" + "[" * N, "[" + "a" * N])
def test_cited_id_scans_are_linear(text):
    assert seconds(han_share, text) < 1.0
    assert seconds(needs_translation, text, "han") < 1.0
    assert seconds(keeps_facts, text, text) < 1.0


def test_restoring_citations_is_linear_in_the_number_of_ids():
    ids = "".join(f"[p{i}:1]" for i in range(N // 8))
    assert seconds(keep_citations, ids, ids[: len(ids) // 2]) < 1.0


@pytest.mark.parametrize("text", ["E" + "1" * N + "a", "A-" * (N // 2), "QF-F" * (N // 4), "Aaaa X1 " * (N // 8)])
def test_code_and_name_scans_are_linear(text):
    assert seconds(keeps_facts, text, "") < 1.0


@pytest.mark.parametrize("text", ["1 " * (N // 2), "| 1 " * (N // 4), "|" + " " * N + "1 |", "| 12 |\n" * (N // 7)])
def test_counting_table_cells_is_linear(text):
    assert seconds(quantities, text, True) < 1.0


def test_checking_a_long_answer_against_a_long_passage_is_linear():
    answer = "Abc Def Ghi " * (N // 12)
    assert seconds(facts, answer) < 1.0
    passage = ("a:1", "| 1 " * (N // 4))
    assert seconds(check_support, "It is 1 [a:1].", [passage]) < 1.0
