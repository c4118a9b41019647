"""GBNF read as llama.cpp reads it, for ``grammar_cost``: rules as small trees.

``read_gbnf(text)`` follows llama.cpp's parser (llama-grammar.cpp: names of ``a-zA-Z0-9-``, literals and classes
with its escapes, ``.``, tokens ``<...>``, groups, ``* + ? {m} {m,} {m,n}``, comments, new lines only inside
groups) and returns ``(rules, uses)``: each rule a node — ``("chars", set)``, ``("ref", name)``,
``("seq", items)``, ``("alt", sequences)``, ``("rep", item, min, max or None)`` — and the names each rule uses.
What llama.cpp would refuse (a syntax error, an undefined rule, no ``root``, left recursion, ``{m,n}`` with n
below m: that one made llama.cpp 0.3.36 allocate until the kernel killed it) is a ``GrammarUnreadable`` saying
where: the server answers 400 instead of failing in the model line. A set of characters is an int: bit c for
code point c below 256, one more bit for all the others together (what tells grammars apart is mostly ASCII).

    >>> read_gbnf('root ::= "a" | b\\nb ::= [0-9]*')[1]
    {'root': {'b'}, 'b': set()}
"""
from __future__ import annotations

from typing import NoReturn

from ..errors import HandmadeAgentError
from .rule_graph import dependency_order, left_recursion

BIG = 1 << 256                # every code point from 256 up, as one character
ALL = (1 << 257) - 1
WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
ESCAPES = {"t": "\t", "r": "\r", "n": "\n", "\\": "\\", '"': '"', "[": "[", "]": "]"}
HEX = {"x": 2, "u": 4, "U": 8}
MAX_MARKS = 64                # repetition marks in a row on one item (a?????...): each one nests


class GrammarUnreadable(HandmadeAgentError, ValueError):
    """A grammar llama.cpp would refuse to parse (a ValueError too: a bad request)."""


def span(low: int, high: int) -> int:
    """The set of code points ``low``..``high``."""
    inside = (1 << (min(high, 255) + 1)) - (1 << low) if low <= min(high, 255) else 0
    return inside | (BIG if high >= 256 else 0)


def read_gbnf(text: str) -> tuple[dict[str, tuple], dict[str, set[str]]]:
    """(rules, the names each rule uses) of GBNF ``text``, or ``GrammarUnreadable`` (see above)."""
    reader = _Reader(text)
    reader.space(True)
    while reader.at < len(text):
        reader.rule()
    for name, used in reader.uses.items():
        for missing in sorted(used - reader.rules.keys())[:1]:
            raise GrammarUnreadable(f"the grammar cannot be read: rule {missing[:60]!r} (used by {name[:60]!r}) is "
                                    "never defined; llama.cpp would refuse it too. Define it, or fix the name")
    if "root" not in reader.rules:
        raise GrammarUnreadable("the grammar cannot be read: it has no rule named root, where llama.cpp starts")
    looping = left_recursion(reader.rules, dependency_order(reader.uses))
    if looping:
        raise GrammarUnreadable(f"the grammar cannot be read: rule {looping[:60]!r} can start with itself (left "
                                "recursion), which llama.cpp refuses: write x ::= x y | y as x ::= y+, or x ::= "
                                "x \",\" y | y as x ::= y (\",\" y)*")
    return reader.rules, reader.uses


class _Reader:
    def __init__(self, text: str):
        self.text, self.at = text, 0
        self.rules: dict[str, tuple] = {}
        self.uses: dict[str, set[str]] = {}
        self.used: set[str] = set()

    def fail(self, what: str) -> NoReturn:
        raise GrammarUnreadable(f"the grammar cannot be read: {what} at character {self.at} "
                                f"({self.text[self.at:self.at + 24]!r}); llama.cpp would refuse it too. Fix the GBNF")

    def peek(self, ahead: int = 0) -> str:
        return self.text[self.at + ahead:self.at + ahead + 1]

    def space(self, newlines: bool) -> None:
        t, i, n = self.text, self.at, len(self.text)
        while i < n and (t[i] in " \t#" or newlines and t[i] in "\r\n"):
            if t[i] == "#":
                while i < n and t[i] not in "\r\n":
                    i += 1
            else:
                i += 1
        self.at = i

    def name(self) -> str:
        start = self.at
        while self.peek() and self.peek() in WORD:
            self.at += 1
        if self.at == start:
            self.fail("expecting a rule name")
        return self.text[start:self.at]

    def rule(self) -> None:
        name = self.name()
        self.space(False)
        if not self.text.startswith("::=", self.at):
            self.fail("expecting ::=")
        self.at += 3
        self.space(True)
        self.used = set()
        self.rules[name] = self.alternates(False)
        self.uses[name] = self.used  # a rule defined twice is its last definition, as in llama.cpp
        if self.peek() == "\r":
            self.at += 2 if self.peek(1) == "\n" else 1
        elif self.peek() == "\n":
            self.at += 1
        elif self.peek():
            self.fail("expecting a new line or the end")
        self.space(True)

    def alternates(self, nested: bool) -> tuple:
        sequences = [self.sequence(nested)]
        while self.peek() == "|":
            self.at += 1
            self.space(True)
            sequences.append(self.sequence(nested))
        return ("alt", tuple(sequences))

    def sequence(self, nested: bool) -> tuple:
        items: list[tuple] = []
        marks = 0  # repetition marks on the last item; -1: nothing to repeat (start, or an empty literal)
        while self.peek():
            c = self.peek()
            if c in "*+?{":
                if marks < 0 or not items:
                    self.fail("expecting an item before */+/?/{")
                if marks >= MAX_MARKS:
                    self.fail(f"more than {MAX_MARKS} repetition marks in a row")
                items[-1], marks = self.repetition(items[-1], nested), marks + 1
                continue
            if c == '"':
                self.at += 1
                chars = []
                while self.peek() != '"':
                    if not self.peek():
                        self.fail("a literal is not closed")
                    code = self.char()
                    chars.append(("chars", span(code, code)))
                self.at += 1
                items += [("seq", tuple(chars))] if chars else []
                marks = 0 if chars else -1
            elif c == "[":
                items.append(self.klass())
            elif c in WORD:
                name = self.name()
                self.used.add(name)
                items.append(("ref", name))
            elif c == "(":
                self.at += 1
                self.space(True)
                items.append(self.alternates(True))
                if self.peek() != ")":
                    self.fail("expecting ')'")
                self.at += 1
            elif c == "." or c == "<" or c == "!" and self.peek(1) == "<":  # any character, or one token
                end = self.text.find(">", self.at) if c != "." else self.at
                if end < 0:
                    self.fail("a token is not closed with >")
                self.at = end + 1
                items.append(("chars", ALL))
            else:
                break
            if c != '"':
                marks = 0
            self.space(nested)
        return ("seq", tuple(items))

    def char(self) -> int:
        t, i = self.text, self.at
        if t[i] != "\\":
            self.at = i + 1
            return ord(t[i])
        kind = t[i + 1:i + 2]
        if kind and kind in HEX:
            digits = t[i + 2:i + 2 + HEX[kind]]
            if len(digits) != HEX[kind] or any(d not in "0123456789abcdefABCDEF" for d in digits):
                self.fail(f"expecting {HEX[kind]} hex digits")
            self.at = i + 2 + HEX[kind]
            return int(digits, 16)
        if kind and kind in ESCAPES:
            self.at = i + 2
            return ord(ESCAPES[kind])
        self.fail("unknown escape")

    def klass(self) -> tuple:
        self.at += 1
        negate = self.peek() == "^"
        self.at += negate
        chars = 0
        while self.peek() != "]":
            if not self.peek():
                self.fail("a character class is not closed")
            low = high = self.char()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.at += 1
                high = self.char()
            chars |= span(low, high)
        self.at += 1
        return ("chars", (ALL & ~chars) | BIG if negate else chars)

    def repetition(self, item: tuple, nested: bool) -> tuple:
        mark = self.peek()
        self.at += 1
        self.space(nested)
        if mark != "{":
            return ("rep", item, 1 if mark == "+" else 0, 1 if mark == "?" else None)
        low = high = self.count()
        self.space(nested)
        if self.peek() == ",":
            self.at += 1
            self.space(nested)
            high = self.count() if self.peek() and self.peek() in "0123456789" else None
            self.space(nested)
        if self.peek() != "}":
            self.fail("expecting '}'")
        if high is not None and high < low:
            self.fail("a repetition's maximum is below its minimum")
        self.at += 1
        self.space(nested)
        return ("rep", item, low, high)

    def count(self) -> int:
        start = self.at
        while self.peek() and self.peek() in "0123456789":
            self.at += 1
        if self.at == start or self.at - start > 9:
            self.fail("expecting a repetition count (at most 9 digits)")
        return int(self.text[start:self.at])
