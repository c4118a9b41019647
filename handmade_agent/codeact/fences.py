'''Finding the program in a model's reply: the first fenced block marked python, py, or nothing.

A coder model writes its program the way it saw code in training, inside a Markdown fence, often with a
sentence before it. ``extract_code`` returns the first block whose fence is bare or says ``python`` /
``py`` / ``python3``; a block in another language (```json) is skipped. A fence the reply never closes
runs to the end of the text, since a stop sequence or the token limit may have cut the reply there.

Deliberately left out: several blocks in one reply (only the first runs: one program per step) and
indented code without a fence.

    >>> extract_code("Let me check.\\n```python\\nprint(1 + 1)\\n```\\nDone.")
    'print(1 + 1)'
    >>> extract_code("no code here") is None
    True
'''
from __future__ import annotations

FENCE = "```"
LANGUAGES = ("", "python", "py", "python3")


def extract_code(reply_text: str) -> str | None:
    """The code of the first python (or unlabelled) fenced block in ``reply_text``, or None if there is none."""
    if not isinstance(reply_text, str):
        return None
    start = reply_text.find(FENCE)
    while start != -1:
        line_end = reply_text.find("\n", start)
        if line_end == -1:  # a fence on the last line opens nothing
            return None
        label = reply_text[start + len(FENCE):line_end].strip().lower()
        close = reply_text.find(FENCE, line_end + 1)
        if label in LANGUAGES:
            body = reply_text[line_end + 1:] if close == -1 else reply_text[line_end + 1:close]
            return body.strip("\n")
        if close == -1:
            return None
        start = reply_text.find(FENCE, close + len(FENCE))  # skip the other language's block
    return None
