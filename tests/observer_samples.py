"""Hand-made event sequences for the observer tests (no agent, no model: every number is known)."""
from __future__ import annotations

from handmade_agent.agent.events import (FinalAnswer, LLMCallFinished, LLMCallStarted, ParseFailed, RunFinished,
                                         RunStarted, StepFinished, ToolFinished, ToolStarted)
from handmade_agent.agent.steps import Step, ToolUse
from handmade_agent.llm import Usage
from handmade_agent.react import parse

QUESTION = "北京明天的天气怎么样？用华氏度回答。"
WEATHER_REPLY = ('Thought: I need tomorrow\'s weather in Beijing.\nAction: get_weather\n'
                 'Action Input: {"city": "北京", "date": "tomorrow"}')
CALC_REPLY = 'Thought: convert 25 °C to °F.\nAction: calculator\nAction Input: {"expression": "25*9/5+32"}'
# Replies for a scripted Agent run: a tool call, a format error, a failing tool call, an answer.
REPLIES = [
    'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "北京", "date": "tomorrow"}',
    "It will be cloudy, I think.",
    'Thought: convert.\nAction: calculator\nAction Input: {"expression": "1/0"}',
    "Thought: I know it now.\nFinal Answer: 北京明天多云。",
]

FINAL_REPLY = "Thought: I have everything.\nFinal Answer: 北京明天晴，77°F。"


def finished(ev: list, run_id: str, record: Step) -> StepFinished:
    """The ``StepFinished`` that closes the step whose events end ``ev``, timed as the agent times it."""
    started = next(e.ts for e in ev if e.step == record.index)
    record.started, record.duration, record.model_calls = started, ev[-1].ts - started, 1
    return StepFinished(run_id=run_id, step=record.index, ts=ev[-1].ts, record=record)


def sample_run(run_id: str = "run-abc123", t0: float = 1000.0) -> list:
    """Four steps: a good tool call, a format error, a failing tool call, a final answer."""
    t = [t0]

    def at(dt: float) -> float:
        t[0] += dt
        return t[0]

    msgs = [{"role": "system", "content": "You are an agent."}, {"role": "user", "content": QUESTION}]
    weather, calc = {"city": "北京", "date": "tomorrow"}, {"expression": "25*9/5+32"}
    ev = [RunStarted(run_id=run_id, step=0, ts=at(0), question=QUESTION,
                     settings={"strategy": "react", "max_steps": 8, "max_tokens": 256})]
    # step 1: good tool call
    ev += [LLMCallStarted(run_id=run_id, step=1, ts=at(0.01), messages=msgs),
           LLMCallFinished(run_id=run_id, step=1, ts=at(1.5), text=WEATHER_REPLY, usage=Usage(120, 30), latency=1.5),
           ToolStarted(run_id=run_id, step=1, ts=at(0.001), name="get_weather", args=weather),
           ToolFinished(run_id=run_id, step=1, ts=at(0.02), name="get_weather", args=weather,
                        ok=True, content="北京 tomorrow: 晴, 25°C", duration=0.02)]
    ev.append(finished(ev, run_id, Step(1, "action", WEATHER_REPLY, parse(WEATHER_REPLY).thought,
                                        [ToolUse("get_weather", weather, True, "北京 tomorrow: 晴, 25°C", None, 0.02)],
                                        usage=Usage(120, 30), latency=1.5)))
    # step 2: the reply has no action and no answer
    feedback = "Write either 'Action:' with 'Action Input:' or 'Final Answer:'."
    ev += [LLMCallStarted(run_id=run_id, step=2, ts=at(0.01), messages=msgs),
           LLMCallFinished(run_id=run_id, step=2, ts=at(0.5), text="It is sunny I think.", usage=Usage(160, 10),
                           latency=0.5),
           ParseFailed(run_id=run_id, step=2, ts=at(0.001), text="It is sunny I think.",
                       error="no Action or Final Answer found", feedback=feedback)]
    ev.append(finished(ev, run_id, Step(2, "format_error", "It is sunny I think.",
                                        error="no Action or Final Answer found", feedback=feedback,
                                        usage=Usage(160, 10), latency=0.5)))
    # step 3: the tool fails
    failed = "Error: division by zero. Check the expression."
    ev += [LLMCallStarted(run_id=run_id, step=3, ts=at(0.01), messages=msgs),
           LLMCallFinished(run_id=run_id, step=3, ts=at(1.0), text=CALC_REPLY, usage=Usage(200, 25), latency=1.0),
           ToolStarted(run_id=run_id, step=3, ts=at(0.001), name="calculator", args=calc),
           ToolFinished(run_id=run_id, step=3, ts=at(0.01), name="calculator", args=calc,
                        ok=False, content=failed, error="division by zero", duration=0.01)]
    ev.append(finished(ev, run_id, Step(3, "action", CALC_REPLY, parse(CALC_REPLY).thought,
                                        [ToolUse("calculator", calc, False, failed, "division by zero", 0.01)],
                                        usage=Usage(200, 25), latency=1.0)))
    # step 4: the answer
    ev += [LLMCallStarted(run_id=run_id, step=4, ts=at(0.01), messages=msgs),
           LLMCallFinished(run_id=run_id, step=4, ts=at(0.8), text=FINAL_REPLY, usage=Usage(260, 15), latency=0.8),
           FinalAnswer(run_id=run_id, step=4, ts=at(0.001), answer="北京明天晴，77°F。")]
    ev.append(finished(ev, run_id, Step(4, "final_answer", FINAL_REPLY, parse(FINAL_REPLY).thought,
                                        answer="北京明天晴，77°F。", usage=Usage(260, 15), latency=0.8)))
    ev.append(RunFinished(run_id=run_id, step=4, ts=at(0.001), answer="北京明天晴，77°F。", stop_reason="final_answer",
                          steps=4, usage=Usage(740, 80), duration=4.0))
    return ev


def planted_key_run(key: str) -> tuple:
    """A tool, scripted replies and a question that carry ``key`` everywhere a run has text: the question, a tool's
    argument (in a URL), its result and the final answer. For the tests that no exporter ever sees it."""
    from handmade_agent.tools import ToolRegistry, tool

    @tool
    def fetch(url: str) -> str:
        """Fetch a page."""
        return f"fetched {url}; the server said token={key}"

    replies = [f'Thought: fetch it.\nAction: fetch\nAction Input: {{"url": "https://api.example.com/v1?api_key={key}"}}',
               f"Final Answer: done, your key is {key}"]
    return ToolRegistry([fetch]), replies, f"use {key} to fetch the page"
