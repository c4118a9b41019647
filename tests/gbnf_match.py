"""A small GBNF reader and matcher, for testing the package's grammars without a model.

``parse_gbnf(text)`` reads the subset llama.cpp grammars use here (literals, character classes,
``.``, groups, ``|``, ``* + ?`` and ``{m,n}``) into rules, raising ``ValueError`` on anything
else or on an undefined rule; ``matches(rules, text)`` says whether ``root`` derives ``text``
exactly. Slow (sets of positions) but plenty for one reply.
"""
from __future__ import annotations

import re

_TOKEN = re.compile(r'\s*(?:(?P<def>[a-zA-Z0-9-]+\s*::=)|(?P<lit>"(?:\\.|[^"\\])*")|(?P<cls>\[(?:\\.|[^\]\\])*\])'
                    r'|(?P<name>[a-zA-Z0-9-]+)|(?P<rep>\{\d*(?:,\d*)?\})|(?P<op>[()|*+?.]))')


def _unescape(body: str) -> list[str]:
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            n = body[i + 1]
            if n in "xuU":
                width = {"x": 2, "u": 4, "U": 8}[n]
                out.append(chr(int(body[i + 2:i + 2 + width], 16)))
                i += 2 + width
                continue
            out.append({"n": "\n", "t": "\t", "r": "\r"}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return out


def _char_class(text: str) -> tuple:
    body, negate = text[1:-1], False
    if body.startswith("^"):
        body, negate = body[1:], True
    chars, ranges, i = _unescape(body), [], 0
    while i < len(chars):
        if i + 2 < len(chars) and chars[i + 1] == "-":
            ranges.append((chars[i], chars[i + 2]))
            i += 3
        else:
            ranges.append((chars[i], chars[i]))
            i += 1
    return ("class", negate, tuple(ranges))


def parse_gbnf(text: str) -> dict:
    text = "\n".join(line.split("#", 1)[0] if '"' not in line else line for line in text.splitlines())
    tokens, pos = [], 0
    while pos < len(text):
        if not text[pos:].strip():
            break
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"cannot read GBNF at {text[pos:pos + 30]!r}")
        tokens.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
    rules: dict = {}
    i = 0

    def alternatives(stop: set) -> tuple:
        nonlocal i
        alts, seq = [], []
        while i < len(tokens) and not (tokens[i][0] == "def" or (tokens[i][0] == "op" and tokens[i][1] in stop)):
            kind, value = tokens[i]
            i += 1
            if kind == "op" and value == "|":
                alts.append(("seq", tuple(seq)))
                seq = []
                continue
            if kind == "lit":
                item = ("lit", "".join(_unescape(value[1:-1])))
            elif kind == "cls":
                item = _char_class(value)
            elif kind == "name":
                item = ("ref", value)
            elif kind == "op" and value == ".":
                item = ("any",)
            elif kind == "op" and value == "(":
                item = alternatives({")"})
                i += 1  # the ")"
            else:
                raise ValueError(f"unexpected {value!r} in GBNF")
            while i < len(tokens) and (tokens[i][0] == "rep" or tokens[i][1] in ("*", "+", "?")):
                op = tokens[i][1]
                i += 1
                lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}.get(op, (None, None))
                if lo is None:
                    a, _, b = op[1:-1].partition(",")
                    lo, hi = int(a or 0), (int(b) if b else None) if "," in op else int(a)
                item = ("rep", item, lo, hi)
            seq.append(item)
        alts.append(("seq", tuple(seq)))
        return ("alt", tuple(alts))

    while i < len(tokens):
        kind, value = tokens[i]
        if kind != "def":
            raise ValueError(f"expected a rule definition, got {value!r}")
        i += 1
        rules[value.split("::=")[0].strip()] = alternatives(set())
    for name in re.findall(r"\('ref', '([^']+)'\)", repr(rules)):
        if name not in rules:
            raise ValueError(f"undefined rule {name!r}")
    if "root" not in rules:
        raise ValueError("no root rule")
    return rules


def _ends(rules: dict, node: tuple, text: str, pos: int, memo: dict) -> frozenset:
    key = (id(node), pos)
    if key in memo:
        return memo[key]
    memo[key] = frozenset()  # guards against left recursion (none expected)
    kind = node[0]
    if kind == "lit":
        out = {pos + len(node[1])} if text.startswith(node[1], pos) else set()
    elif kind == "any":
        out = {pos + 1} if pos < len(text) else set()
    elif kind == "class":
        ok = pos < len(text) and (any(a <= text[pos] <= b for a, b in node[2]) != node[1])
        out = {pos + 1} if ok else set()
    elif kind == "ref":
        out = set(_ends(rules, rules[node[1]], text, pos, memo))
    elif kind == "alt":
        out = set().union(*(_ends(rules, a, text, pos, memo) for a in node[1]))
    elif kind == "seq":
        out = {pos}
        for item in node[1]:
            out = set().union(*(_ends(rules, item, text, p, memo) for p in out)) if out else set()
    else:  # rep
        _, item, lo, hi = node
        out, frontier, n = ({pos} if lo == 0 else set()), {pos}, 0
        while frontier and (hi is None or n < hi):
            frontier = set().union(*(_ends(rules, item, text, p, memo) for p in frontier)) - {p for p in frontier}
            n += 1
            if n >= lo:
                out |= frontier
    memo[key] = frozenset(out)
    return memo[key]


def matches(rules: dict, text: str) -> bool:
    return len(text) in _ends(rules, rules["root"], text, 0, {})
