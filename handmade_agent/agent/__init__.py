"""Chapter 03: the agent loop — ask the model, read its step, run the tool, show it the result, repeat.

``Agent`` (``loop.py``) runs it; ``Step`` and ``RunResult`` (``steps.py``) are the one record of a
run; ``events.py`` is what the loop emits for observers (chapter 04) to read; ``model_call.py`` is
the one observed, retried model call; ``native.py`` reads native tool-calling replies;
``setup.py`` is what an agent is made of; ``policies.py`` is how code from outside checks a final answer (and sends
it back: ``figure_check.py``, ``comparison_check.py``, ``unit_check.py``, ``weekday_check.py``, ``tool_errors.py``) or rewrites it (chapter 06's ``translate_answer``); ``memory_link.py`` lends the run's observers to a memory that calls the model; ``figure_reading.py`` is how every check reads figures; ``results_answer.py`` has the model answer again from the tool results when its answer left them out;
``refusals.py`` reads whether an answer refuses; ``tool_fit.py`` offers no tool when the local model finds none fits
(on by default where every tool is narrow and the weights are here); ``tool_errors.py`` keeps a tool's error message from being the answer; ``config.py`` holds and
checks the settings.

    >>> from handmade_agent.llm import ScriptedLLM
    >>> Agent(ScriptedLLM(["Thought: easy\\nFinal Answer: 4"]), []).run("2+2?").stop_reason
    'final_answer'
"""
from . import events
from .events import Event, Observer, emit
from .config import AgentConfig, check_setting
from .loop import Agent
from .model_call import complete
from .policies import AnswerCheck, AnswerContext, AnswerPolicy, apply_policies
from .setup import DEFAULT_CHECKS
from .refusals import refused
from .figure_reading import figures, shows
from .results_answer import answer_from_results, cited, results_messages
from .steps import STEP_KINDS, STOP_REASONS, RunResult, Step, ToolUse
from .tool_errors import copies_tool_error, error_not_answer
from .figure_check import figures_found, unfound
from .comparison_check import both_sides, like_with_like, same_quantity, wrong_way
from .unit_check import asked_unit, missing_units
from .weekday_check import weekday_found
from .tool_fit import ToolFit, fit_gate, scorer_for

__all__ = ["AgentConfig", "Agent", "Step", "ToolUse", "RunResult", "STEP_KINDS", "STOP_REASONS", "events", "Event", "Observer",
           "emit", "complete", "check_setting", "copies_tool_error", "AnswerContext", "AnswerPolicy", "apply_policies",
           "AnswerCheck", "DEFAULT_CHECKS", "asked_unit", "missing_units", "weekday_found", "both_sides", "error_not_answer", "figures_found", "unfound", "like_with_like",
           "same_quantity", "wrong_way", "ToolFit", "fit_gate", "scorer_for",
           "refused", "answer_from_results", "results_messages", "figures", "shows", "cited"]
