"""An answer gives the unit the question asks for: a final-answer check.

Asked for tomorrow's high "in Fahrenheit", the 1.5B called the weather tool and answered in °C; asked how many kelvin
0 °F is, it converted to °C and stopped. ``asked_unit`` reads the units a question names (°F and kelvin: the weather
tool speaks °C, so a question naming them wants a conversion) and sends an answer that gives no figure in one of them
back once, naming the unit; the model converts with a tool. A question that names a unit as the thing to convert
from ("0 °F in kelvin") is satisfied by the answer restating it ("0 °F = 255.37 K"). Measured in docs/benchmarks.md.

Deliberately left out: Celsius (the weather tool's own unit, and Chinese answers often write "4 度"), other units
(lengths, money), and whether the figure in that unit is right (``figure_check.unfound`` asks where figures came from).

    >>> class Run:
    ...     question = "What is 18 °C in Fahrenheit?"
    >>> asked_unit(Run, "18 °C = 64.4 °F.") is None, asked_unit(Run, "It is 18 °C.") is not None
    (True, True)
"""
from __future__ import annotations

import re
from typing import Any

_NUMBER = r"-?\d+(?:\.\d+)?"
# (the unit as the message names it, how a question names it, a figure given in it)
UNITS = (
    ("°F", re.compile(r"fahrenheit|华氏|°\s*F\b|℉", re.I),
     re.compile(rf"{_NUMBER}\s*(?:°\s*F\b|℉|degrees? fahrenheit|fahrenheit|华氏度|华氏)|华氏\s*{_NUMBER}", re.I)),
    ("K", re.compile(rf"kelvin|开尔文|开氏|{_NUMBER}\s*K\b", re.I),
     re.compile(rf"{_NUMBER}\s*(?:K\b|kelvins?|开尔文|开氏度|开)|开氏\s*{_NUMBER}", re.I)),
)


def missing_units(question: str, answer: str) -> list[str]:
    """The units ``question`` names that ``answer`` gives no figure in."""
    return [name for name, asked, given in UNITS if asked.search(question or "") and not given.search(answer or "")]


def asked_unit(context: Any, answer: str) -> str | None:
    """None if the answer gives a figure in each unit the question names; else what to convert."""
    if not (missing := missing_units(context.question, answer)):
        return None
    unit = " and ".join(missing)
    return (f"The question asks for {unit}, but your answer gives no figure in {unit}. Convert the figure with a tool, "
            f"then give the Final Answer in {unit}.")
