"""What a client's GBNF grammar would cost llama.cpp, estimated from its rules before llama.cpp sees it.

``grammar.check_client_grammar`` bounds what llama.cpp's parser copies. Two later costs let a few hundred bytes
hold the room's one model line for minutes (issue 49, G1; llama.cpp of llama-cpp-python 0.3.36 with the 1.5B's
vocabulary loaded vocab-only, 2 busy cores):

- setting up: llama.cpp follows every chain of references that can start a rule, remembering none. Twelve
  rules of eight identical alternatives (``r0 ::= r1 | r1 | ...``) are 8^12 chains: 9 levels took 1.0 s, x8 a
  level. ``paths`` counts the chains.
- decoding: llama.cpp keeps one stack per way the text so far can be read and pays for each at every token (a
  pass over the vocabulary costs 1-3 ms a stack; accepting a token, about their square). They multiply where a
  grammar is ambiguous: a repeated rule that can be empty or split one text two ways (``l0 ::= l1{0,256}``,
  ``l1 ::= l2{0,256}``: one token took 161 s), optional items in a row (``"x"? "x"? ...``: 16 s), alternatives
  that read alike (``"a" r "b" | "a" r "b"``, 4 levels of 8: 11 s). ``stacks`` estimates the most alive at once.

``grammar_cost(text)`` reads the text as llama.cpp does (``gbnf_reader.py``: what llama.cpp would refuse is a
``GrammarUnreadable``) and walks each rule once, the rules it uses first (``grammar_walk.py``; alternatives are
told apart by their first characters, as a parser with some lookahead would: ``lookahead.py``). A third count,
``alike``, is the most alternatives of one rule that start alike: llama.cpp reads each of them at every token
until they part. ``check_grammar_cost`` refuses past the limits below, saying what to send instead.

Deliberately left out: exactness. Ambiguity is undecidable in general: this counts the shapes above and their
combinations, accepts every grammar the package builds (tests/test_hostile_round4_serve.py), and may refuse an
ambiguous grammar that llama.cpp would run slowly but within the limits.

    >>> grammar_cost('root ::= "a" [0-9]{1,3}')
    GrammarCost(paths=0, stacks=1, alike=1)
    >>> grammar_cost('root ::= "x"?' * 1 + ' "x"?' * 299).stacks  # optional items in a row: all alive
    300
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..grammar import GrammarTooLarge
from .gbnf_reader import read_gbnf
from .grammar_walk import CAP, Walk

MAX_GRAMMAR_PATHS = 1_000_000  # chains followed while setting up (8^8 = 16.8 M took 0.13 s): about 8 ms
MAX_GRAMMAR_STACKS = 128     # stacks alive at once, at worst: 64 cost 0.06 s a token, 128 0.6 s, 300 16 s
MAX_GRAMMAR_ALIKE = 512      # alternatives starting alike, alive together for the tokens they read alike


@dataclass(frozen=True)
class GrammarCost:
    paths: int   # reference chains llama.cpp follows before the first token
    stacks: int  # the most ways of reading one text it may keep alive at once (an upper estimate)
    alike: int   # the most alternatives of one rule that start alike (alive together while they read alike)


@lru_cache(maxsize=64)  # an agent sends the same grammar at every step
def grammar_cost(text: str) -> GrammarCost:
    """The estimate above for GBNF ``text`` (``GrammarUnreadable`` if llama.cpp could not parse it)."""
    rules, uses = read_gbnf(text)
    try:
        return GrammarCost(*Walk(rules, uses).run())
    except RecursionError:
        raise GrammarTooLarge("grammar nests repetitions too deep to check: name the inner parts as rules") from None


def check_grammar_cost(text: str) -> GrammarCost:
    """The cost of ``text``, or ``GrammarTooLarge`` naming the limit it passes and what to send instead."""
    cost = grammar_cost(text)
    if cost.paths > MAX_GRAMMAR_PATHS:
        raise GrammarTooLarge(
            f"grammar makes llama.cpp follow about {cost.paths:,} chains of rule references before the first token "
            f"(alternatives that repeat a rule multiply along a chain), more than {MAX_GRAMMAR_PATHS:,} "
            "(serve.grammar_cost.MAX_GRAMMAR_PATHS): write each alternative once, or send tools and let the "
            "server build the grammar")
    if cost.stacks > MAX_GRAMMAR_STACKS:
        shown = f"about {cost.stacks:,}" if cost.stacks < CAP else "ever more"
        raise GrammarTooLarge(
            f"grammar can read one text in {shown} ways at once, more than {MAX_GRAMMAR_STACKS:,} "
            "(serve.grammar_cost.MAX_GRAMMAR_STACKS), and llama.cpp pays for each at every token: make it "
            "unambiguous (a repeated rule must not match the empty text nor split one text two ways, so bound "
            "one level rather than nesting {m,n}; alternatives should differ early), or send tools and let the "
            "server build the grammar")
    if cost.alike > MAX_GRAMMAR_ALIKE:
        raise GrammarTooLarge(
            f"grammar has {cost.alike:,} alternatives of one rule that start alike, more than {MAX_GRAMMAR_ALIKE:,} "
            "(serve.grammar_cost.MAX_GRAMMAR_ALIKE), and llama.cpp reads each of them at every token until they "
            "part: group them by their first characters into rules, or send tools and let the server build the "
            "grammar")
    return cost
