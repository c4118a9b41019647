"""``CodeAgent``: the chapter-03 loop, where one step is one program over the tools instead of one JSON call.

The loop is ``Agent``'s (``run``, ``step``, ``stop_reason``, the time budget, ``_final`` with its checks and answer
policies); a ``CodeAgent`` changes four things. Its prompt (``prompt.py``: the tools as Python signatures, worked
examples chosen per question). Its grammar under ``constrained`` (``replies.code_grammar``: a thought, then a
fenced program or a final answer; the stop sequences ``replies.STOP`` without one). How a reply is read
(``_read``): a final answer goes to ``_final`` as in the base loop; a program runs through ``run_program`` and
makes a ``ProgramStep`` (kind ``action``) whose ``tool_uses`` are the real calls it made, each with its result, so
``RunResult.tools_used``, traces, panels and the evaluation's checks see the real tools, and whose ``feedback`` is
the program's observation (what it printed, then its error); the model sees its step, then "Observation: " and
that. A reply with neither is a ``format_error`` whose feedback restates the format. Nothing a program does
raises: a refused construct, a tool's error, a cap, all come back as the observation.

The base loop's repeat guard is about one JSON call: here a program starts with no variables, so calling a tool
again in a later program is how it re-reads a value, and the guard would misfire. So calls are never checked one
by one; with ``repeat_guard`` a *program* identical to an earlier one (same lines, blank lines and indentation
at the ends aside) is not run again: the model is shown what it printed before (bare when constrained, as the
base loop does), ``error`` is ``"repeated_action"``, and the next step's grammar allows only a final answer. A
second repeat stops the run (``stop_reason`` ``repeated_action``, the base rule). The base's ``answer_now`` is
never set (it follows repeated single calls), and ``recap_results`` does not apply: a program prints what it
needs. Events: each call a program makes is a ``ToolStarted``/``ToolFinished`` pair, as in the base loop, and
no call starts once the time budget is over.

Deliberately left out: keeping variables between programs, native tool calling (``strategy`` must stay
``"react"``: the text protocol), and plan-and-execute or reflection around it (they build a plain ``Agent``).

    >>> from handmade_agent.llm import ScriptedLLM
    >>> CodeAgent(ScriptedLLM(["Thought: no tool\\nFinal Answer: 4"]), []).run("2+2?").answer
    '4'
"""
from __future__ import annotations

import re
from typing import Any

from ..agent import Agent, Step, ToolUse
from ..agent import events as ev
from ..errors import ConfigError
from ..llm import Completion, Message
from ..tools import RunContext, ToolResult
from .examples import chosen_examples
from .limits import Limits
from .program import run_program
from .prompt import code_prompt_messages, example_messages
from .replies import STOP, ProgramStep, code_grammar, read_code_reply

_AT_LINE = re.compile(r"^line \d+: ")  # copied answers drop where the error was
REPEATED = ("You already ran this program; it printed:\n{}\nDo not run it again. Use that output, write a different "
            "program, or give the Final Answer.")


class CodeAgent(Agent):
    """An ``Agent`` whose step is a program (see the module docstring); ``limits`` caps each program."""

    gates_tools = False  # a program calls functions, not one tool per question: the fit gate does not apply

    def __init__(self, llm: Any, tools: Any, *, limits: Limits | None = None, **kwargs: Any):
        super().__init__(llm, tools, **kwargs)
        if self.config.strategy != "react":
            raise ConfigError(f"A CodeAgent speaks its own text protocol; strategy={self.config.strategy!r} does not "
                              "apply (leave it out, or use Agent for native tool calls).")
        self.limits = limits or Limits()

    def prompt_messages(self, question: str | None = None) -> list[Message]:
        """The system message (format, rules, tools) and the worked examples chosen for ``question``."""
        if self.config.system_prompt is not None:
            return [Message("system", self.config.system_prompt), *self.examples(question)]
        return code_prompt_messages(self.tools, self.config.few_shot, question)

    def examples(self, question: str | None = None) -> list[Message]:
        examples, _ = chosen_examples(self.tools, question)
        return [m for e in examples for m in example_messages(e)] if self.config.few_shot else []

    def grammar(self) -> str | None:
        """The step's GBNF when constrained; after a repeated program, a final answer only."""
        if not self.constrained:
            return None
        steps = self._run.steps if self._run is not None else []
        return code_grammar(answer_only=bool(steps) and steps[-1].error == "repeated_action")

    # --- the loop's hooks ----------------------------------------------------------------------------

    def _ask(self, index: int) -> tuple[Completion | None, str]:
        grammar = self.grammar()  # constrained, the grammar ends the reply: a stop could cut a program's own text
        extra = {"grammar": grammar} if grammar else {"stop": STOP}
        return self._complete(index, self.messages(), **extra)

    def _read(self, r: Any, index: int, c: Completion) -> Step:
        """The step a reply makes: a program run, a final answer, or a format error."""
        reply = read_code_reply(c.text)
        if reply.problem:
            r.format_errors += 1
            self._emit(ev.ParseFailed(text=reply.text, error=reply.problem, feedback=reply.feedback), index)
            return Step(index, "format_error", reply.text, error=reply.problem, feedback=reply.feedback)
        r.format_errors = 0
        if reply.answer is not None:
            return self._final(r, index, reply.text, reply.answer, reply.thought)
        return self._program(r, index, reply.text, reply.thought, reply.code or "")

    def _program(self, r: Any, index: int, text: str, thought: str, code: str) -> Step:
        """Run ``code`` (unless it repeats an earlier program, with ``repeat_guard``) and make its step."""
        key = ("program", "\n".join(line.rstrip() for line in code.strip().splitlines() if line.strip()))
        if self.config.repeat_guard and key in r.seen:
            r.repeats += 1
            shown = r.seen[key] if self.constrained else REPEATED.format(r.seen[key])
            return ProgramStep(index, "action", text, thought, feedback=shown, error="repeated_action")
        tools = ObservedTools(self, index)
        result = run_program(code, tools, self.limits, context=RunContext(r.question, r.run_id, index, r.deadline))
        uses = [ToolUse(c.name, dict(c.arguments), c.result.ok, c.result.content, c.result.error, c.result.duration)
                for c in result.tool_calls]
        r.seen[key] = result.observation
        return ProgramStep(index, "action", text, thought, uses, error=result.error, feedback=result.observation)


    def _failures(self, r: Any) -> list[tuple[str, str]]:
        """Failed tool calls, and programs the interpreter stopped for their own fault (a refused ``import``, a
        cap): the model copies those as its answer too, so ``error_not_answer`` must see them."""
        failed = super()._failures(r)
        for s in r.steps:  # a failed tool stops its program with that tool's error: counted once, as the tool's
            if s.kind == "action" and s.error and s.error != "repeated_action" \
                    and all(u.ok for u in s.tool_uses):
                failed.append((f"Error: {_AT_LINE.sub('', s.error)}", "program"))
        return failed


class ObservedTools:
    """The registry as a program reaches it: every call emitted as the base loop's events, none after the budget."""

    def __init__(self, agent: CodeAgent, index: int):
        self.agent, self.index, self.registry = agent, index, agent.tools

    def get(self, name: str) -> Any:
        return self.registry.get(name)

    def names(self) -> list[str]:
        return self.registry.names()

    def call(self, name: str, args: dict | str | None = None, *, context: RunContext | None = None) -> ToolResult:
        a = self.agent
        a._emit(ev.ToolStarted(name=name, args=args), self.index)
        if a._out_of_time():  # the program started in time, but nothing more may start once the budget is over
            res = ToolResult(False, "Error: not run: the run's time budget is over.", "time_budget", status="error")
        else:
            res = self.registry.call(name, args, context=context)
        a._emit(ev.ToolFinished(name=name, args=args, ok=res.ok, content=res.content, error=res.error,
                                duration=res.duration), self.index)
        return res
