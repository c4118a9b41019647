"""Chapter 08: evaluating the agent — a fixed task suite, checks by code, configurations compared.

``tasks.py`` reads the suite (``data/eval_tasks.jsonl``: arithmetic, dates, temperatures, forecasts,
comparisons, manual questions, questions that need no tool and questions to refuse; English and
Chinese) or its held-out test split (``data/eval_tasks_test.jsonl``, never tuned on); ``checks.py``
(with ``comparison.py``) judges an answer and the trajectory to it;
``runner.py`` runs every task under every ``EvalConfig`` and saves each outcome as it ends;
``toolsets.py`` builds the tools a task is asked with; ``report.py`` turns outcomes into a table;
``injection.py`` attacks an agent through a tool's result, and fences results as untrusted data.
``handmade-agent eval`` is the command. Importing this package loads no model and no retriever.

Deliberately left out: judging answers with a model, and the figures of any particular run
(they belong to the README's benchmark table, measured on a named machine).

    >>> check_answer("2024-10-17 is a Thursday.", {"any": ["Thursday", "星期四"]})
    True
"""
from .checks import (CHECKER_KEYS, check_answer, expected_tools_called, failed_results, invented_observation,
                     no_tool_called, refused, tool_error_text, tools_called, trajectory_ok)
from .comparison import ASPECTS, compare_ok
from .injection import (MARKER, PAYLOAD, PAYLOAD_ZH, WITHHELD, hijacked, inject, looks_like_instruction, neutralize,
                        quarantine)
from .report import format_table, read_outcomes, summarize
from .runner import EvalConfig, TaskOutcome, check_out_path, evaluate, parse_configs, run_task
from .tasks import KINDS, SPLITS, SUITE_TODAY, TASKS_FILE, TEST_TASKS_FILE, Task, load_tasks
from .toolsets import TaskTools

__all__ = ["Task", "load_tasks", "KINDS", "SUITE_TODAY", "TASKS_FILE", "TEST_TASKS_FILE", "SPLITS", "CHECKER_KEYS",
           "check_answer", "refused", "tool_error_text", "failed_results", "compare_ok", "ASPECTS",
           "expected_tools_called", "no_tool_called", "invented_observation", "tools_called", "trajectory_ok",
           "EvalConfig", "TaskOutcome", "parse_configs", "run_task", "evaluate", "check_out_path", "TaskTools",
           "summarize", "format_table", "read_outcomes", "inject", "quarantine", "hijacked",
           "looks_like_instruction", "neutralize", "PAYLOAD", "PAYLOAD_ZH", "MARKER", "WITHHELD"]
