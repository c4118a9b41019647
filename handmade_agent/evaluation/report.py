"""Outcomes into figures: ``summarize`` per configuration, ``format_table`` as plain text, ``read_outcomes``.

``summarize(outcomes)`` gives, for each configuration in the order first seen: the number of
tasks, the success rate (overall and by kind), the share of sound trajectories, the answers in the
question's language (of those whose question has a clear script), the mean steps,
prompt and completion tokens and seconds per task, and a count of stop reasons. ``read_outcomes``
reads back the JSONL that ``evaluate`` appends to (a last line cut off by a killed run is skipped).

Deliberately left out: confidence intervals and significance tests (with tens of tasks, read the
counts, not the decimals), and plots.

    >>> summarize([TaskOutcome("t1", "weekday", "en", "react+c", success=True)])[0]["success_rate"]
    1.0
"""
from __future__ import annotations

from collections import Counter
from dataclasses import fields
from pathlib import Path
from typing import Any

from ..errors import ConfigError, StateError
from ..observers import read_jsonl
from .runner import TaskOutcome


def _mean(values: list[float], digits: int = 1) -> float:
    return round(sum(values) / len(values), digits) if values else 0.0


def summarize(outcomes: list[TaskOutcome]) -> list[dict[str, Any]]:
    """One dict of figures per configuration (see the module docstring)."""
    by_config: dict[str, list[TaskOutcome]] = {}
    for o in outcomes:
        by_config.setdefault(o.config, []).append(o)
    summary = []
    for config, rows in by_config.items():
        kinds: dict[str, list[TaskOutcome]] = {}
        for o in rows:
            kinds.setdefault(o.kind, []).append(o)
        summary.append({
            "config": config, "n": len(rows), "successes": sum(o.success for o in rows),
            "success_rate": round(sum(o.success for o in rows) / len(rows), 3),
            "by_kind": {k: {"n": len(v), "successes": sum(o.success for o in v),
                            "rate": round(sum(o.success for o in v) / len(v), 3)} for k, v in kinds.items()},
            "trajectory_ok_rate": round(sum(o.trajectory_ok for o in rows) / len(rows), 3),
            # over the answers whose question has a clear script (outcomes read from older files have none)
            "language_ok": sum(o.language_ok is True for o in rows),
            "language_n": sum(o.language_ok is not None for o in rows),
            "mean_steps": _mean([o.steps for o in rows]),
            "mean_prompt_tokens": _mean([o.prompt_tokens for o in rows], 0),
            "mean_completion_tokens": _mean([o.completion_tokens for o in rows], 0),
            "mean_latency": _mean([o.latency for o in rows]),
            "replayed": sum(getattr(o, "replayed", False) for o in rows),  # such seconds are no model's: not shown
            "stop_reasons": dict(Counter(o.stop_reason for o in rows).most_common()),
            "errors": sum(o.error is not None for o in rows),
        })
    return summary


def _row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [_row(header, widths), _row(["-" * w for w in widths], widths), *(_row(r, widths) for r in rows)]


def format_table(summary: list[dict[str, Any]]) -> str:
    """The summary as plain-text tables: one row per configuration, then success by kind, then stop reasons."""
    if not summary:
        return "no outcomes"
    head = ["config", "tasks", "success", "trajectory ok", "language ok", "steps", "prompt tok", "completion tok",
            "s/task"]
    lines = _table(head, [[s["config"], str(s["n"]), f"{s['successes']}/{s['n']} ({s['success_rate']:.0%})",
                           f"{s['trajectory_ok_rate']:.0%}",
                           f"{s['language_ok']}/{s['language_n']}" if s.get("language_n") else "-",
                           f"{s['mean_steps']:.1f}",
                           f"{s['mean_prompt_tokens']:.0f}", f"{s['mean_completion_tokens']:.0f}",
                           "replayed" if s.get("replayed") else f"{s['mean_latency']:.1f}"] for s in summary])
    kinds = list(dict.fromkeys(k for s in summary for k in s["by_kind"]))

    def cell(s: dict, kind: str) -> str:
        return f"{s['by_kind'][kind]['successes']}/{s['by_kind'][kind]['n']}" if kind in s["by_kind"] else "-"
    lines += ["", *_table(["kind", *(s["config"] for s in summary)],
                          [[k, *(cell(s, k) for s in summary)] for k in kinds])]
    lines += [""] + [f"stop reasons, {s['config']}: " + ", ".join(f"{r} {n}" for r, n in s["stop_reasons"].items())
                     + (f" ({s['errors']} errors)" if s["errors"] else "") for s in summary]
    return "\n".join(lines)


def read_outcomes(path: str | Path) -> list[TaskOutcome]:
    """The outcomes in a JSONL file written by ``evaluate``."""
    path, known, outcomes = Path(path), {f.name for f in fields(TaskOutcome)}, []
    try:
        for number, row in read_jsonl(path, cut_last_ok=True):  # a last line cut off by a killed run is skipped
            try:
                outcomes.append(TaskOutcome(**{k: v for k, v in row.items() if k in known}))
            except (TypeError, AttributeError) as e:
                raise ConfigError(f"{path}, line {number} is not an outcome ({e}); the file must hold one JSON "
                                  "outcome per line, as evaluate() writes it.") from None
    except StateError as e:
        raise ConfigError(f"{e} The file must hold one JSON outcome per line, as evaluate() writes it.") from None
    except OSError as e:
        raise ConfigError(f"Cannot read the results file {path} ({e.strerror}); "
                          "pass the --out file of a run.") from None
    return outcomes
