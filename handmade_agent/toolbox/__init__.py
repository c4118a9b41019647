"""Chapter 01's ready tools: a safe calculator, dates, the fictional weather table, temperature conversion.

``default_registry()`` puts them all in one ``ToolRegistry``; ``default_registry(today=date(...))``
fixes the date tools' clock so a notebook gives the same answers every time.

    >>> default_registry().call("calculator", {"expression": "2 * (3 + 4)"}).content
    '14'
"""
from .arithmetic import CalculatorError, evaluate, format_number
from .conversions import convert_temperature
from .dates import Clock, make_date_tools
from .default import add_days, calculator, current_date, days_between, default_registry, weekday
from .weather import WEATHER_FILE, find_city, get_weather, load_weather, make_weather_tool

__all__ = ["default_registry", "calculator", "get_weather", "convert_temperature", "current_date", "add_days",
           "days_between", "weekday", "make_date_tools", "Clock", "make_weather_tool", "load_weather", "find_city", "WEATHER_FILE",
           "evaluate", "format_number", "CalculatorError"]
