"""Worked examples for the ReAct prompt, as data.

Each example is a question, its tool steps (thought, tool, arguments, the
tool's result) and the final thought and answer. ``react_prompt`` renders
them either as text inside the system prompt or as chat turns, in exactly
the form the agent's own history takes. An example is used only if the
registry has every tool it calls, with every argument it passes.

The style was tuned on the course's first model, the 0.5B, and kept for the 1.5B: the first thought writes
a numbered plan ("Plan: 1. ... 2. ..."), each later thought names the next plan step, and the answer copies
the tool results it relies on word for word. Small models follow a plan they wrote themselves far better
than they decide, after each result, what is still missing. A comparison's final thought names both
figures and "the higher one" (without it the 1.5B answered which city is warmer from nothing).

A tool can bring its own worked example (``Tool.example``: an ``Example`` or a dict of its fields);
``example_pool(tools)`` adds the examples of the tools offered to this chapter's, so a later chapter's tool
(``knowledge_search``, chapter 06) keeps its example next to its code.

The agent sends the two examples that fit its tools and look most like the question
(``choice.py``), so the pool has one or two per toolbox tool, in English and Chinese. Those marked
``kept`` are the fixed set shown when there is no question (``Agent.prompt_messages()``); all that
fit come with ``AgentConfig(toolbox_examples=True)``. ``GENERIC`` holds tool-agnostic examples
(their one tool, ``train_time``, is described in the system prompt): sent when no toolbox example
fits the registry, e.g. for a learner's own tools; measured on the course's everyday tasks they
lost to toolbox examples (the 0.5B model copied "The train from ..." into date answers).
``NO_TOOL`` and ``REFUSED`` hold examples without a call: one answered from what the model knows, one
refused because it needs facts no tool gives. Sent alone (in the fixed set) a refusal example made the 0.5B
refuse every task; sent with the 1.5B next to the two tool examples, it took refusals on the suite from 0/4
to 4/4 (react+c ``--limit 40``, two runs: 33/40 and 32/40 in all).

Deliberately left out: examples that solve the course's own notebook tasks.

    >>> [e.question for e in EXAMPLES][:1]
    ['What is (17 + 25) * 3 - 4?']
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence


@dataclass
class Call:
    thought: str
    tool: str
    args: dict
    result: str


@dataclass
class Example:
    question: str
    calls: list[Call] = field(default_factory=list)
    thought: str = "All steps done."
    answer: str = ""
    kept: bool = False  # in the fixed set, sent when there is no question to choose for


KUNMING_TOMORROW = "昆明 (Kunming), tomorrow: Showers / 阵雨, low 13 °C, high 21 °C, humidity 80%, wind SW 8 km/h, chance of rain 70%"
LANZHOU_TOMORROW = "兰州 (Lanzhou), tomorrow: Overcast / 阴, low 19 °C, high 26 °C, humidity 75%, chance of rain 30%"
KUNMING_TODAY = "昆明 (Kunming), today: Sunny / 晴, low 12 °C, high 23 °C, humidity 45%, wind W 10 km/h, chance of rain 5%"

EXAMPLES: list[Example] = [
    Example("What is (17 + 25) * 3 - 4?",
            [Call("Plan: 1. calculate: (17 + 25) * 3 - 4.",
                  "calculator", {"expression": "(17 + 25) * 3 - 4"}, "122")],
            "All 1 steps done.", "(17 + 25) * 3 - 4 = 122."),
    Example("What is 17% of 2350?",
            [Call("Plan: 1. calculate: 2350 * 0.17.",
                  "calculator", {"expression": "2350 * 0.17"}, "399.5")],
            "All 1 steps done.", "17% of 2350 is 399.5."),
    Example("Today is 2024-03-01. What date is it 45 days later?",
            [Call("Plan: 1. add 45 days to 2024-03-01.",
                  "add_days", {"date": "2024-03-01", "days": 45}, "2024-03-01 + 45 days = 2024-04-15 (Monday, 星期一)")],
            "All 1 steps done.", "It is 2024-04-15, a Monday (星期一).", kept=True),
    Example("厦门 or 青岛: where is it warmer today?",
            [Call("Plan: 1. 厦门 today 2. 青岛 today. Step 1: 厦门 today.", "get_weather",
                  {"city": "厦门", "date": "today"},
                  "厦门 (Xiamen), today: Rain / 雨, low 17 °C, high 22 °C, humidity 90%, chance of rain 85%"),
             Call("Step 2: 青岛 today.", "get_weather", {"city": "青岛", "date": "today"},
                  "青岛 (Qingdao), today: Sunny / 晴, low 24 °C, high 31 °C, humidity 45%, chance of rain 5%")],
            "All 2 steps done. Highs: 厦门 22 °C, 青岛 31 °C. The higher one is 31 °C: 青岛.",
            "青岛 is warmer today: its high is 31 °C, against 22 °C in 厦门.", kept=True),
    Example("兰州明天和拉萨今天哪个更干燥？",
            [Call("Plan: 1. 兰州 tomorrow 2. 拉萨 today. Step 1: 兰州 tomorrow.", "get_weather",
                  {"city": "兰州", "date": "tomorrow"},
                  LANZHOU_TOMORROW),
             Call("Step 2: 拉萨 today.", "get_weather", {"city": "拉萨", "date": "today"},
                  "拉萨 (Lhasa), today: Sunny / 晴, low 16 °C, high 29 °C, humidity 30%, chance of rain 0%")],
            "All 2 steps done. Humidity: 兰州 tomorrow 75%, 拉萨 today 30%. The lower one is 30%: 拉萨 today.",
            "拉萨今天更干燥：湿度 30%，兰州明天 75%。"),
    Example("兰州和拉萨明天哪个更干燥？",
            [Call("Plan: 1. 兰州 tomorrow 2. 拉萨 tomorrow. Step 1: 兰州 tomorrow.", "get_weather",
                  {"city": "兰州", "date": "tomorrow"},
                  LANZHOU_TOMORROW),
             Call("Step 2: 拉萨 tomorrow.", "get_weather", {"city": "拉萨", "date": "tomorrow"},
                  "拉萨 (Lhasa), tomorrow: Sunny / 晴, low 16 °C, high 29 °C, humidity 30%, chance of rain 0%")],
            "All 2 steps done. Humidity: 兰州 75%, 拉萨 30%. The lower one is 30%: 拉萨.",
            "拉萨明天更干燥：湿度 30%，兰州 75%。"),
    # chosen per question (choice.py): one or two per toolbox tool, English and Chinese; invented cities and
    # numbers that no evaluation task uses, so an example can never hand the model an answer
    Example("A coat costs 240 dollars and is reduced by 35 percent. What does it cost now?",
            [Call("Plan: 1. calculate: 240 * (1 - 0.35).", "calculator", {"expression": "240 * (1 - 0.35)"}, "156")],
            "All 1 steps done.", "240 * (1 - 0.35) = 156: it costs 156 dollars now."),
    Example("一台 2600 元的电视降价 15%，现在卖多少钱？",
            [Call("Plan: 1. calculate: 2600 * (1 - 0.15).", "calculator", {"expression": "2600 * (1 - 0.15)"}, "2210")],
            "All 1 steps done.", "2600 * (1 - 0.15) = 2210，现在卖 2210 元。"),
    Example("Three friends split a 60 dollar taxi fare plus a 15% booking fee. What does each one pay?",
            [Call("Plan: 1. calculate: 60 * (1 + 0.15) / 3.", "calculator", {"expression": "60 * (1 + 0.15) / 3"}, "23")],
            "All 1 steps done.", "60 * (1 + 0.15) / 3 = 23: each pays 23 dollars."),
    Example("5 个人平分 320 元的账单，再加 15% 服务费，每人付多少？",
            [Call("Plan: 1. calculate: 320 * (1 + 0.15) / 5.", "calculator", {"expression": "320 * (1 + 0.15) / 5"},
                  "73.6")],
            "All 1 steps done.", "320 * (1 + 0.15) / 5 = 73.6，每人付 73.6 元。"),
    Example("3 支笔一共 13.5 元，一支笔多少钱？",
            [Call("Plan: 1. calculate: 13.5 / 3.", "calculator", {"expression": "13.5 / 3"}, "4.5")],
            "All 1 steps done.", "13.5 / 3 = 4.5，一支笔 4.5 元。"),
    Example("2031-02-14 falls on which weekday?",
            [Call("Plan: 1. weekday of 2031-02-14.", "weekday", {"date": "2031-02-14"}, "2031-02-14 is a Friday (星期五)")],
            "All 1 steps done.", "2031-02-14 is a Friday (星期五)."),
    Example("2027年10月1日那天星期几？",
            [Call("Plan: 1. weekday of 2027-10-01.", "weekday", {"date": "2027-10-01"}, "2027-10-01 is a Friday (星期五)")],
            "All 1 steps done.", "2027-10-01 是星期五。"),
    Example("How many days lie between 2024-02-10 and 2024-04-01?",
            [Call("Plan: 1. count the days from 2024-02-10 to 2024-04-01.", "days_between",
                  {"start": "2024-02-10", "end": "2024-04-01"}, "From 2024-02-10 to 2024-04-01 is 51 days")],
            "All 1 steps done.", "51 days."),
    Example("Starting today, how long until 2024-09-01, in days?",
            [Call("Plan: 1. count the days from today to 2024-09-01.", "days_between",
                  {"start": "today", "end": "2024-09-01"}, "From 2024-05-20 to 2024-09-01 is 104 days")],
            "All 1 steps done.", "104 days are left."),
    Example("从今天到2024-07-01还有几天？",
            [Call("Plan: 1. count the days from today to 2024-07-01.", "days_between",
                  {"start": "today", "end": "2024-07-01"}, "From 2024-05-20 to 2024-07-01 is 42 days")],
            "All 1 steps done.", "还有 42 天。"),
    Example("从2025年3月3日往后数 20 天，日期是？",
            [Call("Plan: 1. add 20 days to 2025-03-03.", "add_days", {"date": "2025-03-03", "days": 20},
                  "2025-03-03 + 20 days = 2025-03-23 (Sunday, 星期日)")],
            "All 1 steps done.", "是 2025-03-23，星期日。"),
    Example("What is 18 °C in Fahrenheit?",
            [Call("Plan: 1. convert 18 C to F.", "convert_temperature", {"value": 18, "from_unit": "C", "to_unit": "F"},
                  "18 °C = 64.4 °F")],
            "All 1 steps done.", "18 °C = 64.4 °F."),
    Example("250 开尔文是多少摄氏度？",
            [Call("Plan: 1. convert 250 K to C.", "convert_temperature", {"value": 250, "from_unit": "K", "to_unit": "C"},
                  "250 K = -23.15 °C")],
            "All 1 steps done.", "250 K = -23.15 °C。"),
    Example("昆明明天会下雨吗，气温多少？",
            [Call("Plan: 1. 昆明 tomorrow.", "get_weather", {"city": "昆明", "date": "tomorrow"}, KUNMING_TOMORROW)],
            "All 1 steps done.", "昆明明天阵雨，最低 13 °C，最高 21 °C，湿度 80%，降雨概率 70%。"),
    Example("What's the weather in Kunming today?",
            [Call("Plan: 1. Kunming today.", "get_weather", {"city": "Kunming", "date": "today"}, KUNMING_TODAY)],
            "All 1 steps done.", "Kunming today: sunny, low 12 °C, high 23 °C, humidity 45%, chance of rain 5%."),
    Example("Tomorrow's weather in Kunming?",
            [Call("Plan: 1. Kunming tomorrow.", "get_weather", {"city": "Kunming", "date": "tomorrow"}, KUNMING_TOMORROW)],
            "All 1 steps done.", "Kunming tomorrow: showers, low 13 °C, high 21 °C, humidity 80%, chance of rain 70%."),
    Example("What is today's low in Kunming in Fahrenheit?",
            [Call("Plan: 1. Kunming today 2. convert the low to F. Step 1: Kunming today.", "get_weather",
                  {"city": "Kunming", "date": "today"}, KUNMING_TODAY),
             Call("Step 2: convert the low, 12 °C, to F.", "convert_temperature",
                  {"value": 12, "from_unit": "C", "to_unit": "F"}, "12 °C = 53.6 °F")],
            "All 2 steps done.", "Today's low in Kunming is 12 °C, which is 53.6 °F."),
    Example("昆明明天白天最热时有多少华氏度？",
            [Call("Plan: 1. 昆明 tomorrow 2. convert the high to F. Step 1: 昆明 tomorrow.", "get_weather",
                  {"city": "昆明", "date": "tomorrow"}, KUNMING_TOMORROW),
             Call("Step 2: convert the high, 21 °C, to F.", "convert_temperature",
                  {"value": 21, "from_unit": "C", "to_unit": "F"}, "21 °C = 69.8 °F")],
            "All 2 steps done.", "昆明明天最高 21 °C，即 69.8 °F。"),
]

# No tool fits: one answered from what the model knows, one refused because it needs facts no tool gives. The
# agent sends one of each next to the tool examples (choice.py); they never go alone.
NO_TOOL: list[Example] = [
    Example("Who painted the Mona Lisa?", [], "No tool fits; this is general knowledge.",
            "Leonardo da Vinci painted the Mona Lisa."),
    Example("一年有几个季节？", [], "No tool fits; this is general knowledge.", "一年有四个季节：春、夏、秋、冬。"),
]
REFUSED: list[Example] = [
    Example("What is the price of one gram of gold right now?", [],
            "No tool fits: none gives prices, and I cannot know today's price.",
            "I cannot answer this: none of my tools gives prices."),
    Example("现在上海到北京的高铁还有票吗？", [], "No tool fits: none gives train tickets, and I cannot know them.",
            "抱歉，我无法回答：我的工具查不到火车票。"),
]

# The tool-agnostic examples: their tools are described inside them, so they teach the format for any
# registry (the system prompt says they are illustrations). Two need no call, first (so the tool examples stay
# next to the question): one answered from what the model knows, one refused because no tool does what is asked.
# One compares two results in its answer.
GENERIC_TOOLS = "train_time(origin: string, destination: string)"
GENERIC: list[Example] = [
    Example("Who wrote the novel Les Misérables?", [], "No tool fits; this is general knowledge.",
            "Victor Hugo wrote Les Misérables."),
    Example("Book me a seat on the next train from Lyon to Paris.", [],
            "No tool fits: train_time gives journey times; none books seats.",
            "I cannot do this: my tools give train journey times, not bookings."),
    Example("How long is the train from Lyon to Paris?",
            [Call("Plan: 1. train_time Lyon-Paris.", "train_time", {"origin": "Lyon", "destination": "Paris"},
                  "Lyon-Paris: 1 h 56 min")],
            "All 1 steps done.", "The train from Lyon to Paris takes 1 h 56 min."),
    Example("Which is quicker from Lyon, the train to Nice or the train to Turin?",
            [Call("Plan: 1. train_time Lyon-Nice 2. train_time Lyon-Turin. Step 1.", "train_time",
                  {"origin": "Lyon", "destination": "Nice"}, "Lyon-Nice: 4 h 30 min"),
             Call("Step 2.", "train_time", {"origin": "Lyon", "destination": "Turin"}, "Lyon-Turin: 3 h 50 min")],
            "All 2 steps done; 3 h 50 min is less than 4 h 30 min.",
            "The train to Turin is quicker: 3 h 50 min, against 4 h 30 min to Nice."),
]


def as_example(data: Example | dict) -> Example:
    """A tool's worked example as an ``Example``: given as one, or as a dict of its fields (calls as dicts)."""
    if isinstance(data, Example):
        return data
    calls = [c if isinstance(c, Call) else Call(**c) for c in data.get("calls", [])]
    return Example(**{**data, "calls": calls})


def example_pool(tools: Sequence[Any]) -> list[Example]:
    """This chapter's examples, then the worked example each offered tool brings (``Tool.example``)."""
    own = [as_example(e) for t in tools if (e := getattr(t, "example", None)) is not None]
    return [*EXAMPLES, *own]


def usable(example: Example, tools: list[Any]) -> bool:
    """Does every call in the example name a tool we have, with arguments it accepts?"""
    params = {t.name: set((t.parameters or {}).get("properties", {})) for t in tools}
    return all(c.tool in params and set(c.args) <= params[c.tool] for c in example.calls)
