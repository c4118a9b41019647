"""What the planner and the answering call are sent, and the grammar a plan is decoded under.

A plan is one line per tool call, "- tool_name: instruction", at most ``MAX_STEPS`` lines (``plan_grammar`` makes
that the only thing a constrained model can write: measured on the 1.5B, free lines added steps no tool runs,
"compare them", "say which is higher", each a full agent run that could only fail). Each step must name every value it needs, because the agent that
runs it sees the step and what earlier steps found, not the question. Worked plans (``PLAN_EXAMPLES``) are sent
only when the registry has every tool they name, like the ReAct examples of chapter 02, and only those in the
question's script; they use cities no suite task asks about.

Deliberately left out: examples chosen by likeness to the question (two short ones cost ~80 tokens), and plans
that say which step feeds which (the step's text says it in words).

    >>> from handmade_agent.toolbox import default_registry
    >>> [m.role for m in plan_messages("Which is colder, 北京 or 上海?", default_registry())]
    ['system', 'user', 'assistant', 'user', 'assistant', 'user']
"""
from __future__ import annotations

from typing import Any, Sequence

from ..agent import results_messages
from ..llm import Message
from ..rag import answer_script

MAX_STEPS = 4
PLAN_SYSTEM = (
    "You plan how to answer a question with tools, before anything is run. Write one line per tool call the "
    "answer needs, at most four lines, each \"- tool_name: instruction\". Each instruction is complete on its "
    "own: it names the city, the day, the numbers and the units it needs, because whoever runs it does not see the "
    "question. Comparing or explaining is not a step: the answer is written after the plan has run. A question one "
    "call answers is a one-line plan; a question no tool helps with is one line \"- none: answer directly\". Do not "
    "answer the question and do not invent results. Write the plan in the language of the question.\n\nTools:\n{tools}")
# (question, plan, tools the plan calls): cities no suite task asks about
PLAN_EXAMPLES = [
    ("Which is warmer tomorrow, 厦门 or 青岛?",
     "- get_weather: Get tomorrow's weather in 厦门\n- get_weather: Get tomorrow's weather in 青岛\n", {"get_weather"}),
    ("What is today's high in 兰州 in Fahrenheit?",
     "- get_weather: Get today's weather in 兰州\n- convert_temperature: Convert 兰州's high today from C to F\n",
     {"get_weather", "convert_temperature"}),
    ("明天厦门和青岛哪个更暖和？", "- get_weather: 查询厦门明天的天气\n- get_weather: 查询青岛明天的天气\n", {"get_weather"}),
    ("兰州今天的最高气温是多少华氏度？", "- get_weather: 查询兰州今天的天气\n- convert_temperature: 把兰州今天的最高气温从摄氏度换算成华氏度\n",
     {"get_weather", "convert_temperature"}),
]


def plan_grammar(names: Sequence[str]) -> str:
    """GBNF for a plan: one to ``MAX_STEPS`` lines, each a tool of ``names`` (or "none") and an instruction."""
    tool = " | ".join(f'"{n}"' for n in [*names, "none"])
    steps = " ".join(["step"] + ["step?"] * (MAX_STEPS - 1))
    return f'root ::= {steps}\nstep ::= "- " tool ": " [^\\n] [^\\n]* "\\n"\ntool ::= {tool}\n'


def tool_lines(tools: Any) -> str:
    """One line per tool: its name and the first sentence of its description."""
    return "\n".join(f"- {t.name}: {t.description.strip().splitlines()[0][:160]}" for t in tools)


def plan_messages(question: str, tools: Any, note: str = "") -> list[Message]:
    """The planner's conversation: system prompt with the tools, the worked plans that fit them, the question."""
    names, han = set(tools.names()), answer_script(question) == "han"
    out = [Message("system", PLAN_SYSTEM.format(tools=tool_lines(tools)))]
    for q, plan, needs in PLAN_EXAMPLES:  # in the question's script: the 1.5B wrote its plan in the examples' language
        if needs <= names and (answer_script(q) == "han") == han:
            out += [Message("user", q), Message("assistant", plan)]
    return out + [Message("user", question + (f"\n\n{note}" if note else ""))]


def _found(done: Sequence[tuple[str, Any]]) -> str:
    return "\n".join(f"- {step}: {(result.answer or 'no answer').strip()}" for step, result in done)


def step_question(step: str, done: Sequence[tuple[str, Any]]) -> str:
    """What the agent running ``step`` ("tool: instruction") is asked: the instruction naming its tool, then what
    earlier steps found (if any)."""
    tool, _, instruction = step.partition(": ")
    asked = f"{instruction} (use {tool})" if instruction and tool != "none" else (instruction or step)
    return asked if not done else f"Already found:\n{_found(done)}\n\nNow: {asked}"


def replan_note(done: Sequence[tuple[str, Any]], step: str, why: str) -> str:
    """What the planner is told when a step failed: what was found, which step failed and why."""
    found = f"Already found:\n{_found(done[:-1])}\n" if len(done) > 1 else ""
    return (f"{found}The step \"{step}\" failed: {why}. Write a new plan for what is still needed, with other "
            "tools or other inputs; if no tool can do it, write a one-line plan that says so.")


def answer_messages(question: str, done: Sequence[tuple[str, Any]]) -> list[Message]:
    """The answering call's conversation (the loop's own, ``agent.results_answer``): each step and what it found."""
    return results_messages(question, [f"{step}: {(result.answer or 'no answer').strip()}" for step, result in done])
