"""The worked examples of the code-as-action prompt, as data, and which of them a question gets.

Each ``CodeExample`` is a question, its programs (thought, code, what it printed) and the final thought and
answer. ``chosen_examples(tools, question)`` gives one answered without a tool, then one of ``TOOLBOX`` in the
question's language: a forecast read by one program and converted by the next when the question asks for a day's
weather in a unit, else a comparison fetched by one program with two calls. A registry without their tools gets
``GENERIC``, whose one tool, ``train_time``, the prompt says is not theirs. The cities and figures are invented
(none is in the toolbox's weather table) and no task of the suite asks about them (``tests/test_eval_tasks.py``).

What was measured on the 1.5B (code+c, the suite's first four comparisons and four °F forecasts, then its six
refusals and six no-tool questions): sent together, a comparison and a conversion made it answer comparisons in
the conversion's words ("北京今天最高 27 °C，即 91.4 °F"); chosen by character pairs, as chapter 02's ``choice.py``
does, three of the eight comparisons got the conversion, hence the rule by shape. A comparison's thought names what
is asked and its answer repeats those words: it had copied the example's quantity (rain) into a question about
humidity. A refusal example ("none of my tools gives ferry times") next to one tool example made it refuse all four
comparisons ("none of my tools gives humidity"); naming the tools in its thought, two of four still went without a
tool. So there is none: refusals are 2/6 (``prompt.RULES`` says never to invent a fact), comparisons and forecasts 7/8.

Deliberately left out: examples for the toolbox's other tools (calculator, dates get the comparison).

    >>> [e.question for e in chosen_examples([], "天气？")[0]][-1][:24]
    'Which is quicker from Ly'
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable


@dataclass
class Program:
    thought: str
    code: str
    observation: str


@dataclass
class CodeExample:
    question: str
    programs: list[Program]
    thought: str
    answer: str
    tools: tuple[str, ...] = ()  # the tools its programs call


def weather(city: str, sky: str, low: int, high: int, humidity: int, wind: str, rain: int) -> str:
    """Tomorrow's forecast written as the toolbox's ``get_weather`` writes it."""
    return (f"{city}, tomorrow: {sky}, low {low} °C, high {high} °C, humidity {humidity}%, wind {wind}, "
            f"chance of rain {rain}%")


SANYA = weather("三亚 (Sanya)", "Thunderstorms / 雷阵雨", 25, 31, 85, "S 12 km/h", 80)
GUILIN = weather("桂林 (Guilin)", "Cloudy / 多云", 17, 24, 70, "N 6 km/h", 20)
DALI = weather("大理 (Dali)", "Sunny / 晴", 9, 22, 40, "W 15 km/h", 10)
LIJIANG = weather("丽江 (Lijiang)", "Partly cloudy / 多云", 8, 19, 55, "W 20 km/h", 15)
TWO = 'a = get_weather(city="{}", date="tomorrow")\nb = get_weather(city="{}", date="tomorrow")\nprint(a)\nprint(b)'
PLAN = "Plan: 1. get_weather 2. convert_temperature of its high. Step 1."
WEATHER, CONVERT = ("get_weather",), ("get_weather", "convert_temperature")


def converted(city: str, question: str, forecast: str, high: int, fahrenheit: str, answer: str) -> CodeExample:
    """A forecast printed by one program, its high converted by the next."""
    return CodeExample(question, [
        Program(PLAN, f'print(get_weather(city="{city}", date="tomorrow"))', forecast),
        Program(f"Step 2: convert the high, {high} °C.",
                f'print(convert_temperature(value={high}, from_unit="C", to_unit="F"))',
                f"{high} °C = {fahrenheit} °F")],
        "Both steps done.", answer, CONVERT)


NO_TOOL = [CodeExample("In which language did Cervantes write Don Quixote?", [],
                       "No tool fits; this is general knowledge.", "Cervantes wrote Don Quixote in Spanish.")]
TOOLBOX = [
    CodeExample("Sanya or Guilin: where is rain more likely tomorrow? Give both chances.", [
        Program("Both forecasts in one program.", TWO.format("Sanya", "Guilin"), f"{SANYA}\n{GUILIN}")],
        "Asked: more likely to rain. Chance of rain: Sanya 80%, Guilin 20%. The higher one is 80%: Sanya.",
        "Sanya is more likely to rain tomorrow: 80%, against 20% in Guilin.", WEATHER),
    CodeExample("桂林和三亚，明天哪边更干燥？", [
        Program("Both forecasts in one program.", TWO.format("桂林", "三亚"), f"{GUILIN}\n{SANYA}")],
        "Asked: 更干燥, the lower humidity. Humidity: 桂林 70%, 三亚 85%. The lower one is 70%: 桂林.",
        "桂林明天更干燥：湿度 70%，三亚 85%。", WEATHER),
    converted("Lijiang", "How warm will Lijiang get tomorrow afternoon, in Fahrenheit?", LIJIANG, 19, "66.2",
              "Lijiang's high tomorrow is 19 °C, which is 66.2 °F."),
    converted("大理", "大理明天午后最暖时是几华氏度？", DALI, 22, "71.6", "大理明天最高 22 °C，即 71.6 °F。"),
]
GENERIC = [
    CodeExample("Which is quicker from Lyon, the train to Nice or the train to Turin?", [
        Program("Both journey times in one program.", 'print(train_time(origin="Lyon", destination="Nice"))\n'
                'print(train_time(origin="Lyon", destination="Turin"))',
                "Lyon-Nice: 4 h 30 min\nLyon-Turin: 3 h 50 min")],
        "3 h 50 min is less than 4 h 30 min.",
        "The train to Turin is quicker: 3 h 50 min, against 4 h 30 min to Nice."),
]
GENERIC_TOOL = "train_time(origin: string, destination: string)"
_CJK, _LATIN = re.compile(r"[\u4e00-\u9fff]"), re.compile(r"[A-Za-z]")
_UNIT = re.compile(r"fahrenheit|celsius|kelvin|°\s*[fck]\b|华氏|摄氏|开尔文", re.I)
_DAY = re.compile(r"today|tomorrow|tonight|今天|明天|今晚|明晚", re.I)


def chinese(text: str) -> bool:
    """Mostly Chinese: "Which is warmer, 北京 or 上海?" is English."""
    return 2 * len(_CJK.findall(text)) > len(_LATIN.findall(text))


def chosen_examples(tools: Iterable[Any], question: str | None = None) -> tuple[list[CodeExample], bool]:
    """The examples for these tools and this question, and whether they are the generic ones (see the module doc)."""
    names = {t.name for t in tools}
    fit = [e for e in TOOLBOX if set(e.tools) <= names]
    if not fit:
        return [*NO_TOOL, *GENERIC], True
    asks_conversion = bool(question and _UNIT.search(question) and _DAY.search(question))
    shaped = [e for e in fit if (e.tools == CONVERT) == asks_conversion] or fit
    zh = chinese(question or "")
    return [*NO_TOOL, next((e for e in shaped if chinese(e.question) == zh), shaped[0])], False
