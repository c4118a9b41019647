"""Which alternatives of a grammar read alike: what llama.cpp keeps alive together, for ``grammar_cost``.

``Lookahead(rules).classes(node)`` groups the alternatives of an ``("alt", ...)`` node of ``gbnf_reader`` that no
character among their first ``LOOKAHEAD`` tells apart, or where one may end while another goes on (what follows
could read like the other). A parser with that much lookahead keeps such alternatives alive together; the others
part within it. ``LOOKAHEAD`` covers a property's name after ``{"`` and the start of a tool's name after
``{"name": "`` (tools alike past that count as alive together: one stack each, a few dozen at most).

A node's first characters are a set of ways to start, each ``(character sets by position, lengths where a match
may end (bits))``; at most ``MAX_WAYS`` of them (past that, each is cut after as many first characters as keep
them that few, and read as anything after: names and keys differ early, string contents late).

Deliberately left out: more lookahead. Alternatives alike for ``LOOKAHEAD`` characters count as alive together
however much later they part (the estimate is too high), and one that is a longer version of another past the
lookahead (``"x"{30} | "x"{31}``) is not seen to extend it (measured harmless in a repetition: 73 ms a token).

    >>> from handmade_agent.serve.gbnf_reader import read_gbnf
    >>> rules, _ = read_gbnf('root ::= "ab" | "ac" | "ab" "d"')
    >>> Lookahead(rules).classes(rules["root"])
    [[0, 2], [1]]
"""
from __future__ import annotations

from .gbnf_reader import ALL

LOOKAHEAD = 20
MAX_WAYS = 32             # ways to start kept apart per node (more: grouped by their first characters)
MAX_LOOK_STEPS = 400_000  # ways joined while reading ahead in one grammar (the package's grammars: 33,000 at most)
FULL = (1 << LOOKAHEAD) - 1

Way = tuple[tuple[int, ...], int]
EMPTY: frozenset[Way] = frozenset({((), 1)})
CUT = ALL | 1 << 257      # any character, where a way was cut or recursion met: not known, so not counted as seen
UNKNOWN: frozenset[Way] = frozenset({((CUT,) * LOOKAHEAD, 0)})
TAILS = [(CUT,) * (LOOKAHEAD - d) for d in range(LOOKAHEAD + 1)]


class Lookahead:
    def __init__(self, rules: dict[str, tuple]):
        self.rules, self.memo, self.steps = rules, {}, 0
        self.groups: dict[int, list[list[int]]] = {}

    def classes(self, node: tuple) -> list[list[int]]:
        """The alternatives of ``node`` (indices) in groups a parser with this lookahead keeps alive together."""
        if id(node) not in self.groups:
            owner = list(range(len(node[1])))

            def find(i: int) -> int:
                while owner[i] != i:
                    owner[i] = i = owner[owner[i]]
                return i

            def merge(indices: set[int]) -> None:
                first, *rest = [find(i) for i in indices]
                for i in rest:
                    owner[i] = first
            _split([(i, way) for i, s in enumerate(node[1]) for way in self.of(s)], 0, merge)
            found: dict[int, list[int]] = {}
            for i in range(len(owner)):
                found.setdefault(find(i), []).append(i)
            self.groups[id(node)] = list(found.values())
        return self.groups[id(node)]

    def extensions(self, node: tuple, members: list[int]) -> int:
        """Characters that can follow a whole (non-empty) match of one of ``members`` inside a longer match of
        another, as far as the lookahead sees (all characters, if the alternatives have too many ways to compare)."""
        ways = [(i, way) for i in members for way in self.of(node[1][i])]
        ending = [(i, sets, ends & ~1) for i, (sets, ends) in ways if ends & ~1]
        if len(ending) * len(ways) > 64 * MAX_WAYS * MAX_WAYS:
            return ALL
        out = 0
        for i, sets, ends in ending:
            while ends:
                at = (ends & -ends).bit_length() - 1
                ends &= ends - 1
                for j, (other, _) in ways:
                    if j != i and len(other) > at and other[at] != CUT and all(a & b for a, b in zip(sets, other)):
                        out |= other[at]
        return out

    def of(self, node: tuple) -> frozenset[Way]:
        target = self.rules[node[1]] if node[0] == "ref" else node
        if id(target) not in self.memo:
            self.memo[id(target)] = UNKNOWN
            self.memo[id(target)] = self.read(target)
        return self.memo[id(target)]

    def read(self, node: tuple) -> frozenset[Way]:
        kind = node[0]
        if kind == "chars":
            return frozenset({((node[1],), 0b10)})
        if kind == "alt":
            return _bound(frozenset().union(*(self.of(s) for s in node[1])))
        if kind == "seq":
            out, plain = EMPTY, []
            for item in (*node[1], None):
                if item is not None and _plain(item):  # characters in a row join in one step
                    plain += [item[1]] if item[0] == "chars" else [c[1] for c in item[1]]
                    continue
                if plain:
                    out, plain = self.then(out, frozenset({(tuple(plain[:LOOKAHEAD]), _end(len(plain)))})), []
                if item is None or not any(ends for _, ends in out):
                    break  # the end, or every way is LOOKAHEAD long already
                out = self.then(out, self.of(item))
            return out
        item, low, high = self.of(node[1]), node[2], node[3]
        out, run, count = (EMPTY if low == 0 else frozenset()), EMPTY, 0
        while high is None or count < high:
            count += 1
            longer = self.then(run, item)
            settled = longer == run or not any(ends for _, ends in longer) or count > low + LOOKAHEAD
            if count >= low or settled:  # once settled, every later count reads the same
                out = _bound(out | longer)
            if settled:
                break
            run = longer
        return out

    def then(self, a: frozenset[Way], b: frozenset[Way]) -> frozenset[Way]:
        """The ways of ``a`` followed by those of ``b``."""
        out = set()
        for sets, ends in a:
            if len(sets) == LOOKAHEAD:
                out.add((sets, 0))  # the matches that go on past the lookahead
            while ends:
                at = (ends & -ends).bit_length() - 1
                ends &= ends - 1
                out.update(((sets[:at] + more)[:LOOKAHEAD], (stop << at) & FULL) for more, stop in b)
                self.steps += len(b)
        if self.steps > MAX_LOOK_STEPS:
            from ..grammar import GrammarTooLarge
            raise GrammarTooLarge(f"grammar takes more than {MAX_LOOK_STEPS:,} steps to check "
                                  "(serve.lookahead.MAX_LOOK_STEPS): many alternatives start alike; make them differ "
                                  "early, name shared parts as rules, or send tools and let the server build it")
        return _bound(frozenset(out))


def _plain(item: tuple) -> bool:
    return item[0] == "chars" or item[0] == "seq" and all(c[0] == "chars" for c in item[1])


def _end(length: int) -> int:
    return 1 << length if length < LOOKAHEAD else 0


def _bound(ways: frozenset[Way]) -> frozenset[Way]:
    """At most ``MAX_WAYS``: past that, ways are cut after as many first characters as keep them that few, and
    read as anything from there on (names and keys differ early; what is cut is mostly string contents)."""
    if len(ways) <= MAX_WAYS:
        return ways
    depth = next((d for d in (16, 12, 8, 6, 5, 4, 3, 2, 1)
                  if len({sets[:d] if len(sets) > d else (sets, ends) for sets, ends in ways}) <= MAX_WAYS), 0)
    cut: dict[tuple, int] = {}
    for sets, ends in ways:
        if len(sets) > depth:
            sets, ends = sets[:depth] + TAILS[depth], ends & ((2 << depth) - 1)
        cut[sets] = cut.get(sets, 0) | ends
    return frozenset(cut.items())


def _split(items: list[tuple[int, Way]], at: int, merge) -> None:
    """Merge the alternatives whose ways no character at positions ``at``.. tells apart (overlap connects)."""
    if len({i for i, _ in items}) < 2:
        return
    if at >= LOOKAHEAD or any(ends & ((2 << at) - 1) or len(sets) <= at for _, (sets, ends) in items):
        merge({i for i, _ in items})  # one may have ended by now, and what follows it could read like the others
        return
    groups: list[tuple[int, list]] = []
    for item in items:
        chars, joined, apart = item[1][0][at], [item], []
        for seen, group in groups:
            if seen & chars:
                chars |= seen
                joined += group
            else:
                apart.append((seen, group))
        groups = apart + [(chars, joined)]
    for _, group in groups:
        _split(group, at + 1, merge)
