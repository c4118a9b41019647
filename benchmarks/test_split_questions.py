"""The held-out test split's questions, written by hand, with what each answer is computed from.

These are the questions nobody tunes on: ``make_test_split.py`` turns them into data/eval_tasks_test.jsonl, and
a prompt, an example or a rule changed to pass one of them spoils the split. They are worded the way a user
types, not in the suite's templates (``eval_questions.py``) nor the worked examples' (``react/examples.py``);
tests/test_test_split.py measures both. Cities lean on those the suite asks about least (香港, 南京, 武汉,
深圳, 哈尔滨); the manual's facts are those of data/kb_tasks.jsonl that the suite's kb tasks leave out.

Each kind lists ``(lang, question, *inputs)``; the inputs go to the builder of ``make_eval_tasks.py`` for
that kind, except kb (the id in data/kb_tasks.jsonl whose fact answers the question) and compare, whose
optional last input ``HOW_MUCH`` also asks for the difference. Kinds appear in the order of ``evaluation.KINDS``.

Deliberately left out: expected values (code computes every one) and ids (numbered by the generator).
"""
from __future__ import annotations

TODAY, TOMORROW = "today", "tomorrow"  # read by the date tools and the weather table on the suite's clock
HOW_MUCH = True  # a comparison that also asks by how much: the difference is checked as well

SPLIT: dict[str, list[tuple]] = {
    "arithmetic": [  # the calculator's expression
        ("en", "My rent is 1,450 dollars a month. What do I pay over a whole year?", "1450 * 12"),
        ("zh", "油价每升 7.85 元，我加了 52 升，要付多少钱？", "7.85 * 52"),
        ("en", "I ran a half marathon, 21.1 km, in exactly 2 hours. What was my average speed in km/h?", "21.1 / 2"),
        ("zh", "我月薪 12000 元，每月存下三成，一年下来能存多少？", "12000 * 0.3 * 12"),
        ("en", "Seven of us rented a cabin for 539 dollars. What's everyone's share?", "539 / 7")],
    "weekday": [  # the date
        ("en", "My passport interview is on 2024-09-23. Which weekday do I need to take off work?", "2024-09-23"),
        ("zh", "女儿学校 2024年12月7日 开家长会，那是礼拜几啊？", "2024-12-07"),
        ("en", ("We're getting married on 2025-08-16. Will the guests be coming on a weekday or at the weekend? "
                "Name the day."), "2025-08-16"),
        ("zh", "我的驾照考试约在 2025-03-11，刚好赶上周几？", "2025-03-11"),
        ("en", "Tomorrow's my first day at the new job. Remind me, what weekday will that be?", TOMORROW)],
    "forecast": [  # city, day, the figure asked for ("summary": condition and temperatures), its unit
        ("en", "Packing for Hong Kong tomorrow. What's the forecast there?", "香港", TOMORROW, "summary", "C"),
        ("zh", "武汉明天出门要不要带伞？降雨概率有多少？", "武汉", TOMORROW, "rain_chance", "C"),
        ("en", "How cold does it get in Nanjing today? My aunt from Texas wants it in °F.", "南京", TODAY, "low_c", "F"),
        ("zh", "深圳今天空气湿度大概多少？", "深圳", TODAY, "humidity", "C"),
        ("en", "Harbin tomorrow: what's the warmest it'll get, in Fahrenheit?", "哈尔滨", TOMORROW, "high_c", "F"),
        ("zh", "香港今天热不热？白天能到几度？", "香港", TODAY, "high_c", "C")],
    "compare": [  # aspect, the forecast field compared, the two (city, day) compared, and HOW_MUCH if asked
        ("en", "Is it going to be hotter in 成都 or 重庆 tomorrow? Tell me both highs.", "warm", "high_c",
         ("成都", TOMORROW), ("重庆", TOMORROW)),
        ("zh", "明天南京和武汉，哪边下雨的可能性大？两个降雨概率都说一下。", "rain", "rain_chance",
         ("南京", TOMORROW), ("武汉", TOMORROW)),
        ("en", "Hong Kong or Shenzhen: which one stays warmer at night today? Compare their lows.", "warm", "low_c",
         ("香港", TODAY), ("深圳", TODAY)),
        ("zh", "哈尔滨今天夜里和明天夜里，哪晚更冷？把两天的最低气温告诉我。", "warm", "low_c",
         ("哈尔滨", TODAY), ("哈尔滨", TOMORROW)),
        ("en", "Going by tomorrow's highs, how much warmer is Wuhan than Harbin? I'd like both numbers too.", "warm",
         "high_c", ("武汉", TOMORROW), ("哈尔滨", TOMORROW), HOW_MUCH),
        ("zh", "明天重庆比南京热多少度？两边白天最高各几度？", "warm", "high_c",
         ("重庆", TOMORROW), ("南京", TOMORROW), HOW_MUCH),
        ("en", "Nanjing or Wuhan tomorrow: where is the humidity higher? Give me both readings.",
         "humid", "humidity", ("南京", TOMORROW), ("武汉", TOMORROW)),
        ("zh", "今天深圳跟香港比，哪边更容易下雨？降雨概率各是多少？", "rain", "rain_chance",
         ("深圳", TODAY), ("香港", TODAY))],
    "kb": [  # the id in data/kb_tasks.jsonl whose fact answers the question
        ("en", "I just put my T4 on its HD-2 dock with a flat battery. How long until it's full?", "en-2"),
        ("zh", "我想买个 Mini M1 放在窗台上，它一次最多能照顾几盆花？", "zh-3"),
        ("en", "My Mini M1 is flashing M-08. What's wrong with it?", "x-en-1"),
        ("zh", "我是记者，想采访羽蕨公司，应该往哪个邮箱写信？", "x-zh-3"),
        ("en", "Can the T4's arm pick up something that weighs 400 grams? What's its limit?", "t-en-1"),
        ("zh", "T4 的雷达模块坏了，这个部件保修多久？", "t-zh-2"),
        ("zh", "在国内过了保修期，T4 换一块主板要花多少钱？", "x-en-2")],
    "no_tool": [  # the accepted forms of the answer
        ("en", "Which ocean is the biggest one on Earth?", "Pacific", "太平洋"),
        ("zh", "“床前明月光”这句诗是谁写的？", "李白", "Li Bai"),
        ("en", "Which planet do people call the Red Planet?", "Mars", "火星"),
        ("zh", "植物进行光合作用时吸收的是哪种气体？", "二氧化碳", "CO2", "carbon dioxide"),
        ("en", "How many legs does a spider have?", "8", "eight", "八"),
        ("zh", "日本的首都在哪里？", "东京", "Tokyo")],
    "refuse": [  # nothing: no offered tool does it
        ("en", "Please email my landlord that the rent will be a few days late this month."),
        ("zh", "帮我订一张明天从上海去杭州的高铁票，二等座就行。"),
        ("en", "Here's a voice memo from my colleague. Can you listen to it and translate it into Spanish?"),
        ("zh", "我的航班 CZ3101 明天几点起飞？帮我查一下有没有延误。"),
        ("en", "What's Tesla stock trading at right now?"),
        ("zh", "给我叫一辆出租车，去首都机场 T3 航站楼。"),
        ("en", "Set an alarm on my phone for 6:30 tomorrow morning."),
        ("zh", "帮我从银行卡转 200 元给我妈妈。")],
    "days_between": [  # start, end
        ("en", "My visa runs out on 2024-08-31. How many days do I still have?", TODAY, "2024-08-31"),
        ("zh", "我们 2023年6月18日 结婚，到 2024年6月18日 一共过了多少天？", "2023-06-18", "2024-06-18"),
        ("en", ("I borrowed a library book on 2024-04-02 and brought it back on 2024-05-13. How many days did I "
                "keep it?"), "2024-04-02", "2024-05-13"),
        ("zh", "离今年中秋节（2024-09-17）还剩几天？", TODAY, "2024-09-17"),
        ("en", "The project kicked off on 2024-01-08 and the deadline is 2024-03-29. How long is that in days?",
         "2024-01-08", "2024-03-29")],
    "date_after": [  # start, days added (negative: before)
        ("en", "My parcel was shipped today and delivery takes 12 days. When should it turn up?", TODAY, 12),
        ("zh", "病假从今天开始，三周后的今天是几号？", TODAY, 21),
        ("en", "A six-week course begins on 2024-09-02. What's the date exactly six weeks later?", "2024-09-02", 42),
        ("zh", "报名 2024年11月1日 截止，我打算提前 60 天开始准备，该从哪天动手？", "2024-11-01", -60),
        ("en", "The warranty lasts 500 days from 2024-01-15. On which date does it run out?", "2024-01-15", 500),
        ("zh", "三个星期前的今天是哪天？告诉我具体日期。", TODAY, -21)],
    "temperature": [  # value, from unit, to unit
        ("en", "The recipe says to bake at 180 °C. What do I set my Fahrenheit oven to?", 180, "C", "F"),
        ("zh", "美国朋友说他那边今天 95 华氏度，相当于摄氏多少度？", 95, "F", "C"),
        ("en", "Liquid nitrogen boils at 77 K. What's that in Celsius?", 77, "K", "C"),
        ("zh", "冰箱冷冻室设在 -18 摄氏度，换算成华氏是多少？", -18, "C", "F"),
        ("en", "My thermometer reads 102 °F. What is that in Celsius?", 102, "F", "C"),
        ("zh", "绝对零度是 0 开尔文，用摄氏度表示是多少？", 0, "K", "C")],
}
