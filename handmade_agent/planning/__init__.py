"""Chapter 09: beyond one loop — an agent that plans first, and one that checks its answer and tries again.

``plan.py``: ``PlanAndExecute`` writes a plan (one line per tool call, under a grammar), runs each step through
the chapter-03 loop and answers from the steps' results; a failed step re-plans once. ``reflection.py``:
``Reflection`` runs the loop, checks the answer by code (``CHECKS``) and retries once with what was wrong.
``prompts.py`` holds what both send; ``refusals.py`` reads whether an answer refuses (the suite scores with it too). Both return an ordinary ``RunResult``, so the suite scores them like the
plain loop (``handmade-agent eval --configs plan+react+c,reflect+react+c``). It sits in chapter 08's floor of the
house because the suite runs it; notebook 09 teaches it.

Deliberately left out: multi-agent set-ups, plans as graphs, and a model grading answers.

    >>> read_plan("1. look it up\\n2. convert it")
    ['look it up', 'convert it']
"""
from .plan import PlanAndExecute, PlannedRun, failed, merged_result, read_plan
from .prompts import MAX_STEPS, plan_grammar, answer_messages, plan_messages, step_question
from .reflection import CHECKS, Check, Reflection, answered, both_sides, grounded_figures, problems, question_script, \
    unit_named
from ..agent import refused

__all__ = ["PlanAndExecute", "PlannedRun", "read_plan", "failed", "merged_result", "MAX_STEPS", "plan_grammar",
           "plan_messages", "answer_messages", "step_question", "Reflection", "CHECKS", "Check", "problems",
           "answered", "grounded_figures", "unit_named", "both_sides", "question_script", "refused"]
