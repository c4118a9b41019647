"""What the step debugger says and shows: the reading of a reply, and the steps taken so far as HTML.

``explain_reply`` runs the real parser on a reply and says, in words, what
the loop will do with it (call a tool, end the run, send format feedback,
stop). ``history_html`` renders the debugger's history, edits included.
Both are plain functions, testable and reusable without widgets.

Deliberately left out: predicting tool results (the preview says which tool
runs, not what it returns: running it would be the step itself).

    >>> print(explain_reply("Thought: done\\nFinal Answer: 4", None))
    Final Answer: 4
    The run will end with this answer.
"""
from __future__ import annotations

import json
from typing import Any

from ..errors import FormatError
from ..react import Action, parse
from .trace_view import ERROR_STYLE, PRE_STYLE, ROW_STYLE, esc


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
    return f"<div style='{ROW_STYLE}'>{label}<pre style='{PRE_STYLE}'>{esc(text, limit)}</pre></div>"


def history_html(history: list[dict]) -> str:
    """The steps of a debugging session, one ``<details>`` block each; an edit shows the model's original."""
    rows = []
    for h in history:
        mark = " ✎ edited" if h["edited"] else ""
        rows.append(f"<details><summary>Step {h['step']} · {h['kind']}{mark}</summary><div style='margin-left:16px'>")
        if h["edited"]:
            rows.append(_block("The model wrote:", h["original"] or "(nothing: typed by hand)"))
        rows.append(_block("Reply used:", h["reply"]))
        if h["error"]:
            rows.append(f"<div style='{ERROR_STYLE}'>⚠ {esc(h['error'], 2000)}</div>")
        if h["action"]:
            rows.append(f"<div style='{ROW_STYLE}'>Action: <code>{esc(h['action'], 200)}</code> "
                        f"<code>{esc(h['input'], 2000)}</code></div>")
        if h["observation"]:
            rows.append(_block("Observation:", h["observation"]))
        if h["answer"] is not None:
            rows.append(f"<div style='{ROW_STYLE}'>Final answer: {esc(h['answer'], 2000)}</div>")
        rows.append("</div></details>")
    return "\n".join(rows)
