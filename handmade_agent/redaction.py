"""Secrets never leave: one ``redact()`` that every observer, printer, log, store and error message passes.

Two kinds of evidence mark a secret. Its *value*, when this process knows it: every environment
variable whose name looks like a credential (``*_API_KEY``, ``*_TOKEN``, ``*SECRET*``, ``PASSWORD``...)
is a known secret, wherever its value appears, whatever its shape (``PWD``, the working directory, is not one),
and so is a long piece of one, with the run of key characters around it (another key sharing the piece). And
its *shape*: provider key
formats (``sk-``, ``gsk_``, ``hf_``, ``ghp_``, ``AKIA``, ``AIza``, ``xox?-``, JWTs), ``Bearer``/``Basic``
credentials, ``api_key=...`` / ``"password": "..."`` pairs, and ``?key=...`` in URLs. Matches become
``[REDACTED]``; redacting twice changes nothing more. The choke points call it: ``agent.events.emit``
(every observer sees redacted events), ``storage`` (state files and SQLite), and error text shown
by the CLI and by ``OpenAIChat``.

Deliberately left out: entropy guessing for unknown, unprefixed keys (it redacts hashes, ids and
base64 images too). A key the process does not know, in no known shape, is not caught — this is a
best effort, not a proof. Keep keys in environment variables so they are known.

    >>> redact("call with api_key=abc123secret please")
    'call with api_key=[REDACTED] please'
    >>> redact("https://example.com/v1?key=AbCdEf123456&x=1")
    'https://example.com/v1?key=[REDACTED]&x=1'
"""
from __future__ import annotations

import os
import re
from collections import OrderedDict
from functools import lru_cache
from typing import Any, Callable

MARK = "[REDACTED]"
MIN_KNOWN = 8  # shorter env values ("1", "true", "cpu") are settings, not secrets
# Names that look like a credential's and are not: PWD is the shell's working directory, not a password (taken
# for one, the directory and every long piece of it vanished from logs, traces and saved memory).
NOT_SECRETS = frozenset({"PWD", "OLDPWD"})

# Secret-looking names: api_key, OPENAI_API_KEY, client_secret, password, access_token, token ...
# ("max_tokens" and "prompt_tokens" are counts and deliberately do not match.)
_WORD = (r"(?:api[_-]?key|apikey|secret(?:[_-]?key)?|password|passwd|pwd|token|"
         r"private[_-]?key|access[_-]?key|authorization)")
_KEY = rf"(?:[A-Za-z0-9]+[_-])*{_WORD}"
KEY_NAME = re.compile(rf"^{_KEY}$", re.I)
_START = r"(?<![A-Za-z0-9_])"  # not \b: Chinese characters are word characters, and 密钥sk-... must match
# In text the name's prefix words (OPENAI_ in OPENAI_API_KEY) are not matched but only allowed before it:
# matching them made every "-" a new start that rescanned the rest of the run (quadratic in "1-2-3-...").
_NAME = rf"(?<![A-Za-z0-9]){_WORD}"


def _key_value(m: re.Match) -> str:
    # "PWD=/home/..." in an environment dump is the working directory; "Pwd=..." in a connection string stays hidden
    if m.group(1).upper() in NOT_SECRETS and m.group(3)[0] in "/~":
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}{MARK}"


# (pattern, replacement, hints): a pattern runs only on a text whose lower case holds one of its hints, since
# scanning for a literal is many times faster than running a pattern over a long reply that has no key
_PATTERNS: list[tuple[re.Pattern, str | Callable[[re.Match], str], tuple[str, ...]]] = [
    # key = value / key: "value" in text; the value stops at space, quote, comma, &, ; or a closing brace
    (re.compile(rf"({_NAME})(\"?'?[ \t]{{0,3}}[:=][ \t]{{0,3}}[\"']?)(?:Bearer[ \t]+|Basic[ \t]+)?"
                rf"(?!\[REDACTED\])([^\s\"',;&}}]{{4,}})", re.I), _key_value,
     ("key", "secret", "passw", "pwd", "token", "authorization")),
    # a bearer token: 8+ characters with a digit or symbol, or 16+ of anything ("Bearer instruments" is prose)
    (re.compile(_START + r"((?:Bearer|Basic)[ \t]+)(?!\[REDACTED\])(?:(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,}"
                r"|[A-Za-z]{16,})", re.I), rf"\1{MARK}", ("bearer", "basic")),
    # a password in a URL's userinfo: scheme://user:PASSWORD@host (the user name stays, it says which account)
    (re.compile(r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,20}://[^\s:/@?#\[\]]{0,128}:)(?!\[REDACTED\]@)"
                r"([^\s/@?#]{1,256})@"), rf"\1{MARK}@", ("://",)),
    # credentials in a URL's query string: ?key=..., &token=..., &sig=...
    (re.compile(r"([?&](?:key|api[_-]?key|apikey|token|access[_-]?token|auth|sig|signature)=)(?!\[REDACTED\])"
                r"([^&\s#\"']{4,})", re.I), rf"\1{MARK}", ("=",)),
    (re.compile(_START + r"sk-[A-Za-z0-9_-]{16,}"), MARK, ("sk-",)),                         # OpenAI / DeepSeek style
    (re.compile(_START + r"gsk_[A-Za-z0-9]{20,}"), MARK, ("gsk_",)),                         # Groq
    (re.compile(_START + r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"), MARK,
     ("gh", "github_pat_")),                                                                 # GitHub
    (re.compile(_START + r"hf_[A-Za-z0-9]{20,}"), MARK, ("hf_",)),                           # Hugging Face
    (re.compile(_START + r"AKIA[0-9A-Z]{16}\b"), MARK, ("akia",)),                           # AWS access key id
    (re.compile(_START + r"AIza[0-9A-Za-z_-]{35}"), MARK, ("aiza",)),                        # Google API key
    (re.compile(_START + r"xox[abprs]-[A-Za-z0-9-]{10,}"), MARK, ("xox",)),                   # Slack
    # a JWT: not after a character it could contain, or "-eyJ-eyJ-..." rescans the run from every start
    (re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), MARK, ("eyj",)),
]


def known_secrets() -> list[str]:
    """Values of this process's credential-like environment variables, longest first."""
    values = {v for k, v in os.environ.items()
              if KEY_NAME.match(k) and k.upper() not in NOT_SECRETS and len(v.strip()) >= MIN_KNOWN}
    return sorted(values, key=len, reverse=True)


def redact_text(text: str, known: list[str] | None = None) -> str:
    """``text`` with every secret (known, or in a known shape, or a long piece of a known one) replaced."""
    known = known_secrets() if known is None else known
    if len(text) < _MEMO_MIN:
        return _redact_text(text, known)
    return _MEMO.get(text, tuple(known))


def _redact_text(text: str, known: list[str] | tuple[str, ...]) -> str:
    for secret in known:
        text = text.replace(secret, MARK)
    text = _redact_pieces(text, tuple(known))
    lower = text.lower()
    for pattern, repl, hints in _PATTERNS:
        if any(h in lower for h in hints):
            text = pattern.sub(repl, text)
    return text


def redact(value: Any, known: list[str] | None = None) -> Any:
    """A copy of ``value`` (a str, or dicts/lists/tuples of them) with secrets replaced by ``[REDACTED]``.
    Dict keys are redacted too (a key can be a secret: ``{"sk-...": 1}``)."""
    known = known_secrets() if known is None else known
    if isinstance(value, str):
        return redact_text(value, known)
    if isinstance(value, dict):
        return {(redact_text(k, known) if isinstance(k, str) else k):
                (MARK if isinstance(k, str) and KEY_NAME.match(k) and isinstance(v, str) and v
                 else redact(v, known)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact(v, known) for v in value)
    return value


# --- pieces of known secrets: a key split across two tool results, or cut by a display limit

MIN_PIECE = 8           # a piece of a known secret this long is a secret too, if it has a digit ...
MIN_LETTERS_PIECE = 12  # ... or this long without one: 8 letters of a secret can be an ordinary word
MIN_SPLIT_SECRET = 16   # shorter known secrets are only redacted whole (their pieces are too common)
# A piece inside a longer run of these is taken with the whole run: another key that shares 8 characters with a
# known one kept the rest of itself. "/" and "." end a run, so a path or a sentence around a piece survives.
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+=")


@lru_cache(maxsize=8)
def _piece_pattern(known: tuple[str, ...]) -> re.Pattern | None:
    """Every MIN_PIECE-character window of the long known secrets, as one alternation."""
    windows = {s[i:i + MIN_PIECE] for s in known if len(s) >= MIN_SPLIT_SECRET for i in range(len(s) - MIN_PIECE + 1)}
    return re.compile("|".join(map(re.escape, sorted(windows)))) if windows else None


def _redact_pieces(text: str, known: tuple[str, ...]) -> str:
    pattern = _piece_pattern(known)
    if pattern is None:
        return text
    out, done, pos = [], 0, 0
    while (m := pattern.search(text, pos)) is not None:
        start, size = m.start(), 0
        for secret in known:  # the longest run from here that is a piece of a secret
            at = secret.find(m.group())
            while at >= 0:
                n = MIN_PIECE
                while start + n < len(text) and at + n < len(secret) and text[start + n] == secret[at + n]:
                    n += 1
                size, at = max(size, n), secret.find(m.group(), at + 1)
        piece, end = text[start:start + size], start + size
        if size >= MIN_LETTERS_PIECE or any(c.isdigit() for c in piece):
            while start > done and text[start - 1] in _KEY_CHARS:
                start -= 1
            while end < len(text) and text[end] in _KEY_CHARS:
                end += 1
            out += [text[done:start], MARK]
            done = pos = end
        else:
            pos = start + 1
    return "".join(out) + text[done:] if out else text


# --- each long text is redacted once: an LLMCallStarted event carries the whole history again every step

_MEMO_MIN = 512  # shorter texts are redacted again: cheaper than remembering them


class _Memo:
    """Redactions of recent long texts, within a budget of characters (the oldest go first)."""

    def __init__(self, budget: int = 32_000_000) -> None:
        self.budget, self.size, self.known = budget, 0, ()
        self.done: OrderedDict[str, str] = OrderedDict()

    def get(self, text: str, known: tuple[str, ...]) -> str:
        if known != self.known:  # another set of secrets: what was redacted before may not be now
            self.done.clear()
            self.size, self.known = 0, known
        if text in self.done:
            self.done.move_to_end(text)
            return self.done[text]
        clean = self.done[text] = _redact_text(text, known)
        self.size += len(text)
        while self.size > self.budget and self.done:
            self.size -= len(self.done.popitem(last=False)[0])
        return clean


_MEMO = _Memo()
