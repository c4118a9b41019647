"""The walk behind ``grammar_cost``: what each rule of a grammar is, and what it would cost llama.cpp.

Per node (``gbnf_reader``'s trees) an ``Info``: can it match nothing, the characters a match starts with, those
that can extend a complete match, all it may contain (sets of characters are ints), and counts: the reference
chains llama.cpp follows to set it up (``paths``), the stacks it may keep alive at once (``stacks``), and its
stack positions (``spots``: what stays alive where a repetition or a sequence can split one text several ways).
How they combine, node by node:

- a sequence: one stack, unless where a part ends is unsure (the next part starts at many places: its
  ``spots`` count) or a part may be skipped (both stay alive: their ``stacks`` add);
- alternatives: the most of one, unless they read alike (``lookahead.py``): then those alike add, and those that
  reach the same rule after the same characters count in full and multiply through nesting (``r ::= "a" s | "a"
  s``), and doubly so when they both lead back to the rule (recursion: refused);
- a repetition ``x{m,n}``: llama.cpp makes n copies of x; a text that splits several ways into copies keeps
  ``n x spots(x)`` stacks, an x that can be empty ``n x stacks(x)``;
- a reference: the rule's, counted once per rule (a reference back up the walk is recursion: sets from the last
  pass, counts of one).

    >>> from handmade_agent.serve.gbnf_reader import read_gbnf
    >>> Walk(*read_gbnf('root ::= l1{0,4}\\nl1 ::= "x"{0,4}')).run()  # stacks: 4 copies x 5 positions
    (13, 20, 1)
"""
from __future__ import annotations

from .gbnf_reader import ALL
from .lookahead import Lookahead
from .rule_graph import dependency_order

CAP = 10 ** 15              # counts past any limit stop growing here
MAX_ALIKE_LOOKED_AT = 512   # alternatives starting alike past this are refused anyway: not worth reading ahead


class Info:
    """What a node of the grammar is, for the estimate (sets of characters are ints, see ``gbnf_reader``)."""
    __slots__ = ("empty", "first", "ext", "alpha", "stacks", "spots", "paths", "loops", "lead")

    def __init__(self, empty=False, first=0, ext=0, alpha=0, stacks=1, spots=1, paths=0, loops=-1, lead=None):
        self.empty, self.first, self.alpha = empty, first, alpha
        self.ext = ext  # characters that can extend a complete match that is not empty
        self.stacks, self.spots, self.paths = min(stacks, CAP), min(spots, CAP), min(paths, CAP)
        self.loops = loops  # the highest rank of a rule this node leads back to (recursion), or -1
        self.lead = self.stacks if lead is None else min(lead, CAP)  # stacks of what it reads first after literals


class Walk:
    """One pass per rule, the rules it uses first (twice or three times where rules recurse, until the sets
    settle). ``run()`` gives the cost."""

    def __init__(self, rules: dict, uses: dict[str, set[str]]):
        self.rules, self.look = rules, Lookahead(rules)
        self.rank = {name: i for i, name in enumerate(dependency_order(uses))}
        self.info: dict[str, Info] = {}
        self.current, self.alike, self.recursive = "", 1, False

    def run(self) -> tuple[int, int, int]:
        """(paths, stacks, alike): see ``grammar_cost.GrammarCost``."""
        order = sorted(self.rank, key=self.rank.get)
        for _ in range(3):  # sets along reference cycles settle in a pass or two; the counts come from the last
            before = {n: (i.empty, i.first, i.ext, i.alpha) for n, i in self.info.items()}
            self.recursive = False
            for self.current in order:
                self.info[self.current] = self.walk(self.rules[self.current])
            if not self.recursive or before == {n: (i.empty, i.first, i.ext, i.alpha) for n, i in self.info.items()}:
                break
        return (min(sum(i.paths for i in self.info.values()), CAP), max(i.stacks for i in self.info.values()),
                self.alike)

    def walk(self, node: tuple) -> Info:
        kind = node[0]
        if kind == "chars":
            return Info(first=node[1], alpha=node[1])
        if kind == "ref":
            return self.ref(node[1])
        if kind == "seq":
            if _literal(node):  # a literal: one stack, one position per character
                return Info(not node[1], node[1][0][1] if node[1] else 0, 0, _union(c[1] for c in node[1]),
                            spots=len(node[1]))
            return self.seq([self.walk(item) for item in node[1]], node[1])
        if kind == "alt":
            return self.alt(node, [self.walk(s) for s in node[1]])
        return self.rep(self.walk(node[1]), node[2], node[3])

    def ref(self, name: str) -> Info:
        known = self.info.get(name)
        if known is None or self.rank[name] >= self.rank[self.current]:  # recursion: sets of the last pass only
            self.recursive, known = True, known or Info(alpha=ALL)
            return Info(known.empty, known.first, known.ext, known.alpha, loops=self.rank[name])
        return Info(known.empty, known.first, known.ext, known.alpha, known.stacks, known.spots,
                    1 + known.paths, known.loops)

    def seq(self, parts: list[Info], items: tuple) -> Info:
        if not parts:
            return Info(empty=True)
        rest = [0] * (len(parts) + 1)  # what each suffix can start with
        for i in range(len(parts) - 1, -1, -1):
            rest[i] = parts[i].first | (rest[i + 1] if parts[i].empty else 0)
        best, group, opened = 0, parts[0].stacks, len(parts)
        for i in range(1, len(parts)):
            before = parts[i - 1]
            if before.ext & rest[i]:  # where `before` ends is unsure: parts[i] starts at many places
                group, opened = group + parts[i].spots, min(opened, i - 1)
            elif before.empty and before.first & rest[i]:  # `before` may be skipped: both stay alive
                group, opened = group + parts[i].stacks, min(opened, i - 1)
            else:
                best, group = max(best, group), parts[i].stacks
        ext, after = 0, 0
        for part in reversed(parts):  # a complete match ends in the last part that cannot be empty, or after it
            ext |= part.ext | after
            if not part.empty:
                break
            after |= part.first
        alpha = _union(p.alpha for p in parts)
        if opened < len(parts):
            ext |= _union(p.alpha for p in parts[opened:])
        paths = 0
        for part in parts:  # llama.cpp follows the leading references, and those after parts that can be empty
            paths += part.paths
            if not part.empty:
                break
        lead = next((p.stacks for p, item in zip(parts, items) if not _literal(item)), 1)
        return Info(all(p.empty for p in parts), rest[0], ext, alpha, max(best, group),
                    sum(p.spots for p in parts), paths, max(p.loops for p in parts), lead)

    def alt(self, node: tuple, parts: list[Info]) -> Info:
        if len(parts) == 1:
            return parts[0]
        ext, start = _union(p.ext for p in parts), _starting_alike(parts)
        self.alike = max(self.alike, start)
        alike = [[i] for i in range(len(parts))] if start == 1 else \
            [list(range(len(parts)))] if start > MAX_ALIKE_LOOKED_AT else self.look.classes(node)
        heads: dict[tuple, list[int]] = {}
        for i, sequence in enumerate(node[1]):
            heads.setdefault(_head(sequence), []).append(i)
        rank, together = self.rank[self.current], {}
        for head, same in heads.items():  # alike up to a rule they reach at once: alive together all through it
            if head[1] is not None and len(same) > 1:
                # and if two of them lead back here (recursion), the stacks double at every level of it
                recursive = sum(parts[i].loops >= rank for i in same) > 1
                together[head] = CAP if recursive else sum(parts[i].stacks for i in same)
        stacks = max([p.stacks for p in parts] + list(together.values()))
        for members in alike:  # alternatives alike for the lookahead's characters: alive together until they part
            if len(members) > 1:
                ext |= self.look.extensions(node, members)
                met = {_head(node[1][i]) for i in members}
                stacks = max(stacks, sum(together.get(h) or parts[heads[h][0]].lead for h in met))
        first, empty = _union(p.first for p in parts), any(p.empty for p in parts)
        return Info(empty, first, ext, _union(p.alpha for p in parts), stacks,
                    sum(p.spots for p in parts), sum(p.paths for p in parts), max(p.loops for p in parts))

    @staticmethod
    def rep(item: Info, low: int, high: int | None) -> Info:
        count = high if high is not None else low + 1  # llama.cpp's copies: x{m,n} -> n rules, x{m,} -> m + 1
        split = count > 1 and bool(item.ext & item.first)  # one text, several ways into copies
        stacks = count * item.spots if split else count * item.stacks if count > 1 and item.empty else item.stacks
        more = high is None or high > max(low, 1)  # a match of one copy or more may take another
        ext = item.ext | (item.first if more else 0) | (item.alpha if split else 0)
        return Info(low == 0 or item.empty, item.first, ext, item.alpha, stacks, count * item.spots + 1,
                    (count if item.empty else 1) * (1 + item.paths), item.loops)


def _starting_alike(parts: list[Info]) -> int:
    """The most alternatives that can start with one character (1: a first character tells them apart)."""
    groups: list[tuple[int, int]] = []
    for p in parts:
        chars, count, apart = p.first, 1, []
        for seen, n in groups:
            if seen & chars:
                chars, count = chars | seen, count + n
            else:
                apart.append((seen, n))
        groups = apart + [(chars, count)]
    return max(n for _, n in groups) + sum(p.empty for p in parts)  # an empty one is alive with all of them


def _literal(item: tuple) -> bool:
    return item[0] == "chars" or item[0] == "seq" and all(c[0] == "chars" for c in item[1])


def _head(sequence: tuple) -> tuple:
    """An alternative's leading characters and the first thing after them that is not a character."""
    chars: list[int] = []
    for item in sequence[1]:
        if not _literal(item):
            return tuple(chars), item if item[0] == "ref" else id(item)
        chars += [item[1]] if item[0] == "chars" else [c[1] for c in item[1]]
    return tuple(chars), None


def _union(masks) -> int:
    out = 0
    for m in masks:
        out |= m
    return out
