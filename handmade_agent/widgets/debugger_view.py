"""What the step debugger says and shows: the reading of a reply, and the steps taken so far as HTML.

``explain_reply`` runs the real parser on a reply and says, in words, what
the loop will do with it (call a tool, end the run, send format feedback,
stop). ``history_html`` renders the steps taken (``Step`` records), edits included;
the thought shown is the parser's (``step.thought``), an unreadable reply is shown raw.
Both are plain functions, testable and reusable without widgets. Every text they show passes the
redactor (``shown``): this HTML is saved into notebooks, and a reply edited by hand never went through ``emit``.

Deliberately left out: predicting tool results (the preview says which tool
runs, not what it returns: running it would be the step itself).

    >>> print(explain_reply("Thought: done\\nFinal Answer: 4", None))
    Final Answer: 4
    The run will end with this answer.
"""
from __future__ import annotations

import json
from typing import Any

from ..agent.events import ReplyEdited
from ..agent import Step
from ..errors import FormatError
from ..observers import step_errors
from ..react import Action, parse
from ..redaction import redact
from .trace_view import ERROR_STYLE, PRE_STYLE, ROW_STYLE, esc


def shown(value: Any, limit: int) -> str:
    """``value`` as HTML for a panel: secrets redacted first (before cutting, so no half key survives), escaped."""
    return esc(redact(value), limit)


def explain_reply(text: str, agent: Any, streak: int = 1) -> str:
    """What ``agent``'s loop will do with reply ``text``; ``streak``: it would be the n-th format error in a row."""
    if not text.strip():
        return "Empty box: ② will ask the model itself."
    if getattr(agent, "strategy", "react") == "native":
        return ("Native tool calling: an edited reply carries no tool calls, so the loop takes it as the "
                "final answer (or a format error if it is empty or a broken <tool_call>).")
    try:
        parsed = parse(text)
    except FormatError as e:
        limit = getattr(agent, "max_format_errors", None)
        stop = " This reaches max_format_errors: the run will stop." if limit and streak >= limit else ""
        return (f"FormatError: {e}\nFormat error {streak} in a row.{stop} The model is sent this correction "
                f"(the loop may fill in the tool names):\n{e.feedback}")
    if isinstance(parsed, Action):
        known = agent is None or agent.tools.get(parsed.tool) is not None
        what = "" if known else (f"\n'{parsed.tool}' is not a registered tool: the registry will answer "
                                 "with an error listing the tools, as the observation.")
        args = parsed.input if isinstance(parsed.input, str) else json.dumps(parsed.input, ensure_ascii=False)
        return f"Action: {parsed.tool}\nInput: {args}\nThe loop will run the tool.{what}"
    return f"Final Answer: {parsed.answer}\nThe run will end with this answer."


def _block(label: str, text: Any, limit: int = 4000) -> str:
    return f"<div style='{ROW_STYLE}'>{label}<pre style='{PRE_STYLE}'>{shown(text, limit)}</pre></div>"


def history_html(steps: list[Step], edits: dict[int, ReplyEdited] | None = None) -> str:
    """The steps of a debugging session, one ``<details>`` block each; an edit shows the model's original."""
    edits, rows = edits or {}, []
    for s in steps:
        edit = edits.get(s.index)
        rows.append(f"<details><summary>Step {s.index} · {s.kind}{' ✎ edited' if edit else ''}</summary>"
                    "<div style='margin-left:16px'>")
        if edit is not None:
            rows.append(_block("The model wrote:", edit.original or "(nothing: typed by hand)"))
        rows.append(_block("Reply used:", s.reply))
        if s.thought:
            rows.append(f"<div style='{ROW_STYLE}'>Thought: {shown(s.thought, 2000)}</div>")
        rows += [f"<div style='{ERROR_STYLE}'>⚠ {shown(e, 2000)}</div>" for e in step_errors(s)]
        for u in s.tool_uses:
            rows.append(f"<div style='{ROW_STYLE}'>Action: <code>{shown(u.tool, 200)}</code> "
                        f"<code>{shown(u.input, 2000)}</code></div>")
        if s.observation:
            rows.append(_block("Observation:", s.observation))
        if s.answer is not None:
            rows.append(f"<div style='{ROW_STYLE}'>Final answer: {shown(s.answer, 2000)}</div>")
        rows.append("</div></details>")
    return "\n".join(rows)
