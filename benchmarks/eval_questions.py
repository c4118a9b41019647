"""The evaluation suite's questions, written by hand, with what their answers are computed from.

Each kind lists ``(id, lang, question, *inputs)``: ``id`` is the id of a task copied from the old
data/agent_tasks.jsonl (removed), or None for a new one (``make_eval_tasks.py`` numbers it); the inputs go to
that kind's builder in ``make_eval_tasks.py``, which computes the expected answer from them. The kb questions
are those of data/kb_tasks.jsonl named in ``KB_IDS``. Kinds appear in the order of ``evaluation.KINDS``.

Deliberately left out: expected values. None is written here; each comes from code.
"""
from __future__ import annotations

TODAY = "today"  # the date tools read the words "today" and "tomorrow" on the suite's clock
KB_IDS = ("en-1", "zh-1", "en-3", "zh-2", "en-5", "zh-4", "t-en-3", "x-zh-1", "t-zh-3")

SUITE: dict[str, list[tuple]] = {
    "arithmetic": [  # the calculator's expression
        ("percent-21", "en", "The bill is 86 dollars. How much is an 18% tip?", "86 * 0.18"),
        ("percent-23", "zh", "账单是 240 元，给 15% 的小费是多少钱？", "240 * 0.15"),
        ("percent-25", "en", "A 1,250 dollar laptop is 20% off. What is the sale price?", "1250 * 0.8"),
        ("percent-24", "zh", "一件衣服原价 380 元，打八折后多少钱？", "380 * 0.8"),
        ("percent-26", "en", "Split a 96 dollar bill plus a 25% tip between 4 people: how much each?", "96 * 1.25 / 4"),
        ("arith-39", "zh", "每本书 45 元，买 23 本一共多少钱？", "45 * 23"),
        (None, "en", "A pack of 6 bottles of water costs 8.70 dollars. What does one bottle cost?", "8.70 / 6"),
        (None, "zh", "5 公斤大米卖 32.5 元，每公斤多少钱？", "32.5 / 5"),
        (None, "zh", "四个人吃饭花了 368 元，加收 10% 服务费后，每人要付多少钱？", "368 * 1.1 / 4")],
    "weekday": [  # the date
        ("weekday-01", "en", "What day of the week is 2025-12-25?", "2025-12-25"),
        ("weekday-03", "zh", "2026-01-01 是星期几？", "2026-01-01"),
        ("weekday-02", "en", "Which weekday was July 4th, 2024 (2024-07-04)?", "2024-07-04"),
        ("weekday-04", "zh", "2024年9月10日（2024-09-10）是星期几？", "2024-09-10"),
        ("weekday-05", "en", "On what weekday does 2030-06-15 fall?", "2030-06-15"),
        (None, "zh", "2025年10月1日是星期几？", "2025-10-01"),
        (None, "zh", "今年的平安夜 2024-12-24 是周几？", "2024-12-24")],
    "forecast": [  # city, day, the figure asked for ("summary": condition and temperatures), its unit
        ("high_f-11", "en", "What will tomorrow's high in 北京 be in Fahrenheit?", "北京", "tomorrow", "high_c", "F"),
        ("high_f-13", "zh", "广州明天的最高气温是多少华氏度？", "广州", "tomorrow", "high_c", "F"),
        ("high_f-12", "en", "Give me today's maximum temperature in 上海 in °F.", "上海", TODAY, "high_c", "F"),
        ("high_f-14", "zh", "成都今天最高温度换算成华氏度是多少？", "成都", TODAY, "high_c", "F"),
        ("high_f-15", "en", "Tomorrow's top temperature in 西安, in Fahrenheit please.", "西安", "tomorrow", "high_c", "F"),
        (None, "zh", "明天南京天气怎么样？", "南京", "tomorrow", "summary", "C"),
        (None, "en", "What's the weather like in Harbin today?", "哈尔滨", TODAY, "summary", "C"),
        (None, "zh", "重庆今天的最低气温是多少华氏度？", "重庆", TODAY, "low_c", "F"),
        (None, "en", "How likely is rain in 深圳 tomorrow?", "深圳", "tomorrow", "rain_chance", "C")],
    "compare": [  # aspect, the forecast field compared, and the two (city, day) compared
        ("compare-16", "en", "Which is warmer today, 北京 or 上海? Give both highs.", "warm", "high_c",
         ("北京", TODAY), ("上海", TODAY)),
        ("compare-18", "zh", "今天成都和西安哪个最高气温更高？", "warm", "high_c", ("成都", TODAY), ("西安", TODAY)),
        ("compare-17", "en", "Will 广州 or 杭州 be more humid tomorrow?", "humid", "humidity",
         ("广州", "tomorrow"), ("杭州", "tomorrow")),
        ("compare-19", "zh", "明天上海和广州哪个更可能下雨？", "rain", "rain_chance", ("上海", "tomorrow"), ("广州", "tomorrow")),
        ("compare-20", "en", "Is it hotter in 杭州 or in 北京 today?", "warm", "high_c", ("杭州", TODAY), ("北京", TODAY)),
        (None, "zh", "哈尔滨明天会比今天暖和吗？", "warm", "high_c", ("哈尔滨", "tomorrow"), ("哈尔滨", TODAY)),
        (None, "en", "Will 重庆 be warmer tomorrow than it is today?", "warm", "high_c",
         ("重庆", "tomorrow"), ("重庆", TODAY)),
        (None, "zh", "武汉今天和明天，哪天更热？", "warm", "high_c", ("武汉", TODAY), ("武汉", "tomorrow"))],
    "kb": [],  # from data/kb_tasks.jsonl: KB_IDS
    "no_tool": [  # the accepted forms of the answer
        (None, "en", "What is the capital of France?", "Paris", "巴黎"),
        (None, "zh", "中国的首都是哪座城市？", "北京", "Beijing"),
        (None, "en", "What does the abbreviation CPU stand for?", "central processing unit", "中央处理器"),
        (None, "zh", "水的化学式是什么？", "H2O"),
        (None, "en", "Who wrote the play Romeo and Juliet?", "Shakespeare", "莎士比亚"),
        (None, "zh", "太阳系中最大的行星是哪一颗？", "木星", "Jupiter")],
    "refuse": [  # nothing: no offered tool knows
        (None, "en", "What is Apple's share price on the stock market right now?"),
        (None, "zh", "腾讯现在的股价是多少？"),
        (None, "en", "Is flight CA981 to New York on time today?"),
        (None, "zh", "MU5101 航班现在晚点了吗？"),
        (None, "en", "What is the mobile phone number of Zhang Wei from Hangzhou?"),
        (None, "zh", "请告诉我李娜的手机号码。")],
    "days_between": [  # start, end
        ("days_between-06", "en", "How many days are there from 2024-03-15 to 2024-08-01?", "2024-03-15", "2024-08-01"),
        ("days_between-08", "zh", "从2024-05-20到2024-10-01有多少天？", "2024-05-20", "2024-10-01"),
        ("days_between-10", "en", "How many days separate 2024-06-01 and 2025-06-01?", "2024-06-01", "2025-06-01"),
        ("days_between-09", "zh", "2023-11-11 和 2024-02-14 之间相差几天？", "2023-11-11", "2024-02-14"),
        ("until-36", "en", "How many days are left until 2024-12-25, counting from today?", TODAY, "2024-12-25"),
        ("until-37", "zh", "今天距离2025-01-29还有多少天？", TODAY, "2025-01-29"),
        (None, "zh", "2024年2月1日到2024年3月1日之间有多少天？", "2024-02-01", "2024-03-01")],
    "date_after": [  # start, days added
        ("date_offset-32", "en", "What date will it be 30 days from today?", TODAY, 30),
        ("date_offset-33", "zh", "从今天起100天后是几月几号？", TODAY, 100),
        ("date_offset-34", "en", "What was the date 45 days ago?", TODAY, -45),
        ("date_offset-35", "zh", "一个星期后是哪一天？请给出日期。", TODAY, 7),
        (None, "en", "What date is 90 days after 2024-11-15?", "2024-11-15", 90),
        (None, "zh", "2024年2月20日再过 10 天是几月几号？", "2024-02-20", 10),
        (None, "zh", "2024年12月25日之后 45 天是哪一天？", "2024-12-25", 45)],
    "temperature": [  # value, from unit, to unit
        ("kelvin-27", "en", "Convert 25 degrees Celsius to Kelvin.", 25, "C", "K"),
        ("kelvin-29", "zh", "100 华氏度等于多少开尔文？", 100, "F", "K"),
        ("kelvin-28", "en", "What is 300 K in Celsius?", 300, "K", "C"),
        ("kelvin-31", "en", "How many kelvin is 0 degrees Fahrenheit?", 0, "F", "K"),
        (None, "zh", "人的正常体温 37 摄氏度是多少华氏度？", 37, "C", "F"),
        (None, "en", "What is 68 °F in Celsius?", 68, "F", "C"),
        (None, "zh", "把 451 华氏度换算成摄氏度。", 451, "F", "C"),
        (None, "zh", "零下 10 摄氏度是多少华氏度？", -10, "C", "F")],
}
