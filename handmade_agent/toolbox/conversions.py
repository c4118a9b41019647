"""``convert_temperature``: Celsius, Fahrenheit and Kelvin, with units written in English or Chinese.

Deliberately left out: other quantities (lengths, currencies); they follow the same pattern.

    >>> convert_temperature(100, "C", "F")
    '100 °C = 212 °F'
"""
from __future__ import annotations

from typing import Callable

from ..errors import ToolError
from ..tools import tool
from .arithmetic import format_number

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


