"""Secrets never leave: one ``redact()`` that every observer, printer, log, store and error message passes.

Two kinds of evidence mark a secret. Its *value*, when this process knows it: every environment
variable whose name looks like a credential (``*_API_KEY``, ``*_TOKEN``, ``*SECRET*``, ``PASSWORD``...)
is a known secret, wherever its value appears, whatever its shape. And its *shape*: provider key
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
from typing import Any

MARK = "[REDACTED]"
MIN_KNOWN = 8  # shorter env values ("1", "true", "cpu") are settings, not secrets

# Secret-looking names: api_key, OPENAI_API_KEY, client_secret, password, access_token, token ...
# ("max_tokens" and "prompt_tokens" are counts and deliberately do not match.)
_KEY = (r"(?:[A-Za-z0-9]+[_-])*(?:api[_-]?key|apikey|secret(?:[_-]?key)?|password|passwd|pwd|token|"
        r"private[_-]?key|access[_-]?key|authorization)")
KEY_NAME = re.compile(rf"^{_KEY}$", re.I)
_START = r"(?<![A-Za-z0-9_])"  # not \b: Chinese characters are word characters, and 密钥sk-... must match
_PATTERNS: list[tuple[re.Pattern, str]] = [
    # key = value / key: "value" in text; the value stops at space, quote, comma, &, ; or a closing brace
    (re.compile(rf"{_START}({_KEY})(\"?'?[ \t]{{0,3}}[:=][ \t]{{0,3}}[\"']?)(?:Bearer[ \t]+|Basic[ \t]+)?"
                rf"(?!\[REDACTED\])([^\s\"',;&}}]{{4,}})", re.I), rf"\1\2{MARK}"),
    # a bearer token: 8+ characters with a digit or symbol, or 16+ of anything ("Bearer instruments" is prose)
    (re.compile(_START + r"((?:Bearer|Basic)[ \t]+)(?!\[REDACTED\])(?:(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,}"
                r"|[A-Za-z]{16,})", re.I), rf"\1{MARK}"),
    # credentials in a URL's query string: ?key=..., &token=..., &sig=...
    (re.compile(r"([?&](?:key|api[_-]?key|apikey|token|access[_-]?token|auth|sig|signature)=)(?!\[REDACTED\])"
                r"([^&\s#\"']{4,})", re.I), rf"\1{MARK}"),
    (re.compile(_START + r"sk-[A-Za-z0-9_-]{16,}"), MARK),                                  # OpenAI / DeepSeek style
    (re.compile(_START + r"gsk_[A-Za-z0-9]{20,}"), MARK),                                   # Groq
    (re.compile(_START + r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"), MARK),  # GitHub
    (re.compile(_START + r"hf_[A-Za-z0-9]{20,}"), MARK),                                    # Hugging Face
    (re.compile(_START + r"AKIA[0-9A-Z]{16}\b"), MARK),                                     # AWS access key id
    (re.compile(_START + r"AIza[0-9A-Za-z_-]{35}"), MARK),                                  # Google API key
    (re.compile(_START + r"xox[abprs]-[A-Za-z0-9-]{10,}"), MARK),                           # Slack
    (re.compile(_START + r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), MARK),  # JWT
]


def known_secrets() -> list[str]:
    """Values of this process's credential-like environment variables, longest first."""
    values = {v for k, v in os.environ.items() if KEY_NAME.match(k) and len(v.strip()) >= MIN_KNOWN}
    return sorted(values, key=len, reverse=True)


def redact_text(text: str, known: list[str] | None = None) -> str:
    for secret in known_secrets() if known is None else known:
        text = text.replace(secret, MARK)
    for pattern, repl in _PATTERNS:
        text = pattern.sub(repl, text)
    return text


def redact(value: Any, known: list[str] | None = None) -> Any:
    """A copy of ``value`` (a str, or dicts/lists/tuples of them) with secrets replaced by ``[REDACTED]``."""
    known = known_secrets() if known is None else known
    if isinstance(value, str):
        return redact_text(value, known)
    if isinstance(value, dict):
        return {k: (MARK if isinstance(k, str) and KEY_NAME.match(k) and isinstance(v, str) and v
                    else redact(v, known)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact(v, known) for v in value)
    return value
