"""The ``get_weather`` tool over the course's fictional weather table (``data/weather.json``).

Cities are found by Chinese or English name, any case, with or without 市/city. The table is
fixed, so a notebook gets the same forecast every time it runs.

Deliberately left out: live weather. A tool that reaches the network is written the same way;
only its output varies.

    >>> get_weather("beijing").split(",")[0]
    '北京 (Beijing)'
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

from ..errors import ToolError
from ..tools import Tool, tool

WEATHER_FILE = Path(__file__).resolve().parents[2] / "data" / "weather.json"


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
        """Weather forecast for a city, today or tomorrow. It gives condition, temperatures, humidity, wind.

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
                f"low {day['low_c']} °C, high {day['high_c']} °C, humidity {day['humidity']}%, wind {day['wind']}, "
                f"chance of rain {day['rain_chance']}%")
    return get_weather


get_weather = make_weather_tool()
