"""The ready tools: dates on an injectable clock, weather from data/weather.json, temperature, default_registry."""
from __future__ import annotations

import datetime
import json

import pytest

from handmade_agent.toolbox.dates import as_clock, make_date_tools, parse_date
from handmade_agent.errors import ToolError
from handmade_agent.toolbox import (WEATHER_FILE, convert_temperature, default_registry, find_city, load_weather,
                                    make_weather_tool)

MAY_20 = datetime.date(2024, 5, 20)


@pytest.fixture
def registry():
    return default_registry(today=MAY_20)


def test_default_registry_holds_every_ready_tool(registry):
    assert registry.names() == ["calculator", "current_date", "add_days", "days_between", "weekday",
                                "get_weather", "convert_temperature"]


def test_the_issue_question_weekday_150_days_after_2024_05_20(registry):
    """'today is 2024-05-20; what weekday is it 150 days later?' answered exactly with the tools."""
    assert registry.call("current_date", None).content == "2024-05-20 (Monday, 星期一)"
    later = registry.call("add_days", {"date": "today", "days": 150}).content
    assert later == "2024-05-20 + 150 days = 2024-10-17 (Thursday, 星期四)"
    expected = MAY_20 + datetime.timedelta(days=150)  # cross-check with the standard library
    assert expected.strftime("%A") in later and expected.isoformat() in later
    assert registry.call("weekday", "2024-10-17").content == "2024-10-17 is a Thursday (星期四)"
    assert registry.call("days_between", {"start": "2024-05-20", "end": "2024年10月17日"}).content == (
        "From 2024-05-20 to 2024-10-17 is 150 days")


def test_clock_is_injectable_as_a_date_a_datetime_or_a_function():
    days = iter([MAY_20, datetime.date(2025, 1, 1)])
    current = make_date_tools(lambda: next(days))[0]
    assert current() == "2024-05-20 (Monday, 星期一)" and current() == "2025-01-01 (Wednesday, 星期三)"
    assert as_clock(datetime.datetime(2024, 5, 20, 23, 59))() == MAY_20
    assert as_clock(None)() == datetime.date.today()


@pytest.mark.parametrize("text, expected", [
    ("2024-05-20", MAY_20), ("2024/5/20", MAY_20), ("2024.05.20", MAY_20), ("2024年5月20日", MAY_20),
    (" Today ", MAY_20), ("tomorrow", datetime.date(2024, 5, 21)), ("yesterday", datetime.date(2024, 5, 19)),
    ("明天", datetime.date(2024, 5, 21)), ("后天", datetime.date(2024, 5, 22)), ("前天", datetime.date(2024, 5, 18)),
])
def test_parse_date(text, expected):
    assert parse_date(text, MAY_20) == expected


def test_bad_dates_say_how_to_write_one(registry):
    with pytest.raises(ToolError, match="write it as YYYY-MM-DD"):
        parse_date("next Friday", MAY_20)
    with pytest.raises(ToolError, match="not a real date"):
        parse_date("2024-02-30", MAY_20)
    r = registry.call("add_days", {"date": "today", "days": 10**9})
    assert r.status == "error" and "outside the years 1-9999" in r.content
    assert registry.call("add_days", {"date": "2024-03-01", "days": "-1"}).content == (
        "2024-03-01 - 1 days = 2024-02-29 (Thursday, 星期四)")


def test_weather_from_the_data_file_in_chinese_and_english(registry):
    table = json.loads(WEATHER_FILE.read_text(encoding="utf-8"))["cities"]
    for city in ["北京", "上海", "广州", "深圳", "杭州"]:
        assert city in table and {"today", "tomorrow"} <= set(table[city])
    bj = table["北京"]["tomorrow"]
    r = registry.call("get_weather", {"city": "Beijing", "date": "tomorrow"})
    assert r.content == (f"北京 (Beijing), tomorrow: {bj['condition']} / {bj['condition_zh']}, "
                         f"low {bj['low_c']} °C, high {bj['high_c']} °C, humidity {bj['humidity']}%, wind {bj['wind']}, "
                         f"chance of rain {bj['rain_chance']}%")
    assert registry.call("get_weather", "北京").content.startswith("北京 (Beijing), today:")


@pytest.mark.parametrize("written, key", [("beijing", "北京"), ("Peking", "北京"), ("北京市", "北京"),
                                          ("SHANGHAI", "上海"), ("Canton", "广州"), ("xian", "西安"),
                                          ("Xi'an", "西安"), ("Hong Kong", "香港"), ("hongkong", "香港"),
                                          ("Shenzhen City", "深圳"), ("Paris", None)])
def test_city_names_match_forgivingly(written, key):
    assert find_city(load_weather(), written) == key


def test_unknown_city_lists_the_known_ones(registry):
    r = registry.call("get_weather", {"city": "Paris"})
    assert r.status == "error"
    assert r.content.startswith("Error: get_weather: unknown city 'Paris'. Known cities: 北京 (Beijing), "
                                "上海 (Shanghai), 广州 (Guangzhou)")


def test_weather_tool_over_another_table(tmp_path):
    path = tmp_path / "w.json"
    day = {"condition": "Snow", "condition_zh": "雪", "high_c": -2, "low_c": -9, "humidity": 60, "wind": "N",
           "rain_chance": 50}
    path.write_text(json.dumps({"cities": {"拉萨": {"name_en": "Lhasa", "aliases": [], "today": day,
                                                    "tomorrow": day}}}), encoding="utf-8")
    assert make_weather_tool(path)("lhasa").startswith("拉萨 (Lhasa), today: Snow / 雪, low -9 °C, high -2 °C")
    with pytest.raises(ToolError, match="is missing"):
        make_weather_tool(tmp_path / "none.json")("x")


@pytest.mark.parametrize("value, src, dst, text", [
    (30, "C", "F", "30 °C = 86 °F"), (98.6, "°F", "celsius", "98.6 °F = 37 °C"), (0, "K", "C", "0 K = -273.15 °C"),
    (-40, "摄氏度", "华氏度", "-40 °C = -40 °F"), (25, "c", "K", "25 °C = 298.15 K"), (100, "C", "C", "100 °C = 100 °C"),
])
def test_temperature_conversion(value, src, dst, text):
    assert convert_temperature(value, src, dst) == text


def test_temperature_errors(registry):
    with pytest.raises(ToolError, match="below absolute zero"):
        convert_temperature(-300, "C", "F")
    r = registry.call("convert_temperature", {"value": "hot", "from_unit": "C", "to_unit": "F"})
    assert "parameter 'value': expected number, got \"hot\" (string)" in r.content
    r = registry.call("convert_temperature", {"value": 1, "from_unit": "C", "to_unit": "Rankine"})
    assert "unknown temperature unit 'Rankine'; use C (Celsius), F (Fahrenheit) or K (Kelvin)" in r.content


def test_calculator_tool_formats_results(registry):
    assert registry.call("calculator", "0.1 + 0.2").content == "0.3"
    assert registry.call("calculator", {"expression": "2^10"}).content == "1024"
    assert registry.call("calculator", {"expression": 7}).content == "7"  # a bare number still works


def test_module_level_date_tools_use_the_real_clock():
    from handmade_agent.toolbox import current_date
    assert current_date().startswith(datetime.date.today().isoformat())
