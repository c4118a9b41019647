"""Ready tools for the notebooks and the agent: calculator, dates, weather, temperature conversion.

Every tool here is deterministic once its inputs are fixed: the date tools
read an injectable clock (``default_registry(today=date(2024, 5, 20))``) and
the weather comes from the fixed table ``data/weather.json``, so a notebook
gives the same answers every time it runs. The calculator's safe evaluator
lives in ``calculator.py``, the date arithmetic in ``dates.py``.

Deliberately left out: live data (real weather, web search). A tool that
reaches the network is written the same way; only its output varies.

    >>> default_registry(today=datetime.date(2024, 5, 20)).call("add_days", {"date": "today", "days": 150}).content
    '2024-05-20 + 150 days = 2024-10-17 (Thursday, 星期四)'
"""
from __future__ import annotations

import datetime
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Callable, Literal

from .calculator import evaluate, format_number
from .dates import Clock, make_date_tools
from .errors import ToolError
from .tools import Tool, ToolRegistry, tool

WEATHER_FILE = Path(__file__).resolve().parent.parent / "data" / "weather.json"


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression exactly. Supports + - * / // % ** (or ^), parentheses,
    sqrt, log, exp, sin, cos, tan, factorial, round, abs, min, max and the constants pi and e.

    Args:
        expression: The arithmetic expression, e.g. "2 * (3 + 4) ** 2" or "sqrt(16) + 1".
    """
    return format_number(evaluate(expression))


@lru_cache(maxsize=8)
def load_weather(path: str | Path = WEATHER_FILE) -> dict:
    """The weather table: {city: {"name_en", "aliases", "today": {...}, "tomorrow": {...}}}."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))["cities"]
    except FileNotFoundError:
        raise ToolError(f"the weather table {path} is missing; run from a checkout of the course, "
                        "or pass make_weather_tool(path=...)") from None


def _city_key(name: str) -> str:
    name = re.sub(r"[\s'’.\-_]+", "", name).lower()
    return re.sub(r"(市|city|shi)$", "", name) or name


def find_city(cities: dict, name: str) -> str | None:
    """The table key for a city written in Chinese or English, any case: 'beijing', 'Peking', '北京市'."""
    wanted = _city_key(name)
    for key, info in cities.items():
        if wanted in {_city_key(n) for n in (key, info.get("name_en", ""), *info.get("aliases", []))}:
            return key
    return None


def make_weather_tool(path: str | Path = WEATHER_FILE) -> Tool:
    """A ``get_weather`` tool over a weather table file (the course's fictional one by default)."""

    @tool
    def get_weather(city: str, date: Literal["today", "tomorrow"] = "today") -> str:
        """Get the weather forecast for a city (today or tomorrow): condition, temperatures, humidity, wind.

        Args:
            city: City name in Chinese or English, e.g. 北京 or Beijing.
            date: Which day: "today" or "tomorrow".
        """
        cities = load_weather(str(path))
        key = find_city(cities, city)
        if key is None:
            known = ", ".join(f"{k} ({v['name_en']})" for k, v in cities.items())
            raise ToolError(f"unknown city {city!r}. Known cities: {known}.")
        info, day = cities[key], cities[key][date]
        return (f"{key} ({info['name_en']}), {date}: {day['condition']} / {day['condition_zh']}, "
                f"{day['low_c']}-{day['high_c']} °C, humidity {day['humidity']}%, wind {day['wind']}, "
                f"chance of rain {day['rain_chance']}%")
    return get_weather


get_weather = make_weather_tool()
# The date tools on the computer's clock; default_registry(today=...) builds a set on a fixed one.
current_date, add_days, days_between, weekday = make_date_tools()

_UNITS = {"c": "C", "celsius": "C", "°c": "C", "℃": "C", "摄氏": "C", "摄氏度": "C",
          "f": "F", "fahrenheit": "F", "°f": "F", "℉": "F", "华氏": "F", "华氏度": "F",
          "k": "K", "kelvin": "K", "开": "K", "开尔文": "K"}
_TO_KELVIN: dict[str, Callable[[float], float]] = {
    "C": lambda v: v + 273.15, "F": lambda v: (v - 32) * 5 / 9 + 273.15, "K": lambda v: v}
_FROM_KELVIN: dict[str, Callable[[float], float]] = {
    "C": lambda k: k - 273.15, "F": lambda k: (k - 273.15) * 9 / 5 + 32, "K": lambda k: k}


def _unit(text: str) -> str:
    unit = _UNITS.get(text.strip().lower().replace(" ", "").removeprefix("degrees"))
    if unit is None:
        raise ToolError(f"unknown temperature unit {text!r}; use C (Celsius), F (Fahrenheit) or K (Kelvin)")
    return unit


@tool
def convert_temperature(value: float, from_unit: str, to_unit: str) -> str:
    """Convert a temperature between Celsius (C), Fahrenheit (F) and Kelvin (K).

    Args:
        value: The temperature to convert, e.g. 30.
        from_unit: Unit of the value: C, F or K.
        to_unit: Unit to convert to: C, F or K.
    """
    source, target = _unit(from_unit), _unit(to_unit)
    kelvin = _TO_KELVIN[source](value)
    if kelvin < -1e-9:
        raise ToolError(f"{value:g} °{source} is below absolute zero, so it is not a temperature")
    result = round(_FROM_KELVIN[target](kelvin), 2)
    symbol = {"C": "°C", "F": "°F", "K": "K"}
    return f"{value:g} {symbol[source]} = {format_number(result)} {symbol[target]}"


def default_registry(today: datetime.date | Clock | None = None,
                     approve: Callable[[Tool, dict], bool] | None = None) -> ToolRegistry:
    """All ready tools in one registry. ``today`` fixes the clock (a date, or a function returning one)."""
    return ToolRegistry([calculator, *make_date_tools(today), get_weather, convert_temperature], approve=approve)
