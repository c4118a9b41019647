"""Write ``data/long_conversations.jsonl``: scripted support conversations of 30+ turns, with questions at the end
about facts stated at the start.

Each conversation opens with a customer giving facts (a name, an order number, a serial number, a delivery date,
a fault code) and a decision the assistant makes with them; then come everyday questions about the robot and
the app, long enough to push the opening out of any small window; then the probes ask for the opening's facts.
The user and the assistant are both scripted: the benchmark (``benchmarks/long_conversations.py``) feeds the
turns into a memory and asks the model only the probes. A probe's checker is the evaluation suite's
(``evaluation.check_answer``), and its expected value is the fact the script put in, never typed twice.

    python benchmarks/make_long_conversations.py      # rewrites the file
"""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "data" / "long_conversations.jsonl"

FILLER_EN = [
    ("How do I rename a plant in the app?", "Open the plant's card in Grove, tap the name and type the new one."),
    ("Can the robot climb a door sill?", "It crosses sills up to about 2 cm; higher ones need a small ramp."),
    ("Does it work in the dark?", "Yes, it navigates with LiDAR, so it needs no light."),
    ("How loud is the pump?", "The pump is quiet, about as loud as a fridge, and runs only a few seconds per plant."),
    ("Can two people use the same robot?", "Yes, invite the second person in the app under Household."),
    ("What happens during a power cut?", "The robot finishes its round on the battery and waits on the dock."),
    ("Can I water only one plant now?", "Yes, open the plant's card and tap Water now."),
    ("How do I see the watering history?", "Each plant's card has a History tab with every watering."),
    ("Is there a dark mode in the app?", "Yes, the app follows your phone's setting."),
    ("Can I pause all rounds for a day?", "Yes, tap Pause on the home screen and pick how long."),
    ("Does the robot need Wi-Fi all the time?", "It waters on schedule without Wi-Fi; the app needs it for updates."),
    ("How do I clean the LiDAR window?", "Wipe it with a dry microfibre cloth, never with water."),
    ("Can it water plants on a shelf?", "It reaches pots up to about 120 cm high with its arm."),
    ("Where do I find the firmware version?", "In the app under Robot, then About."),
    ("Can I change the quiet hours?", "Yes, under Settings, Quiet hours, in steps of 30 minutes."),
    ("Does it know when a pot is empty?", "The probe reads the soil, so an empty pot shows no moisture reading."),
    ("How do I add a new plant?", "Stick a PlantTag on the pot and scan it from the app."),
    ("Can I export my plant list?", "Yes, the web version exports it as a spreadsheet."),
    ("Will it bump into my cat?", "It slows down near moving things and stops if touched."),
    ("How long does a round take?", "It depends on the plants; ten plants take about fifteen minutes."),
    ("Can it handle cacti?", "Yes, choose the cactus profile so it waters rarely."),
    ("How do I turn off the status ring?", "Under Robot, Lights, switch the ring off outside rounds."),
    ("Can I use it on two floors?", "It maps one floor; carry it and start a second map for another floor."),
    ("Does the app have widgets?", "Yes, a home-screen widget shows the next round and the tank level."),
    ("How do I reset the map?", "Under Robot, Map, tap Reset and let it explore again."),
    ("Is the robot safe near children?", "Yes, but keep the tank lid closed and teach them not to lift it by the mast."),
]
FILLER_ZH = [
    ("怎么在 App 里给植物改名？", "打开植物卡片，点名字，输入新名字即可。"),
    ("机器人能越过门槛吗？", "大约 2 厘米以内的门槛可以通过，更高的需要小坡道。"),
    ("晚上关灯它还能工作吗？", "可以，它靠激光雷达导航，不需要光线。"),
    ("水泵声音大吗？", "很安静，和冰箱差不多，每盆只响几秒。"),
    ("两个人能一起用一台机器人吗？", "可以，在 App 的“家庭”里邀请另一个人。"),
    ("停电了会怎样？", "机器人用电池完成这一轮，然后回到充电座等待。"),
    ("能现在只浇一盆吗？", "可以，打开那盆植物的卡片，点“立即浇水”。"),
    ("在哪里看浇水记录？", "每盆植物的卡片里都有“历史”页。"),
    ("App 有深色模式吗？", "有，跟随手机的系统设置。"),
    ("能暂停一天的巡护吗？", "可以，在首页点“暂停”，选择时长。"),
    ("机器人必须一直连着 Wi-Fi 吗？", "不联网也会按计划浇水，只是 App 更新需要网络。"),
    ("激光雷达窗口怎么清洁？", "用干的超细纤维布擦，不要用水。"),
    ("架子上的花能浇到吗？", "机械臂能够到大约 120 厘米高的花盆。"),
    ("固件版本在哪里看？", "在 App 的“机器人 > 关于”里。"),
    ("免打扰时段可以改吗？", "可以，在“设置 > 免打扰”里按 30 分钟调整。"),
    ("花盆里没土了它知道吗？", "探针读不到湿度，卡片上会显示没有读数。"),
    ("怎么添加新植物？", "在花盆上贴一个 PlantTag，再用 App 扫描。"),
    ("植物列表能导出吗？", "可以，网页版能导出成表格。"),
    ("它会撞到猫吗？", "靠近会动的东西时它会减速，被碰到就停下。"),
    ("巡护一轮要多久？", "看植物多少，十盆大约十五分钟。"),
    ("仙人掌也能照顾吗？", "可以，选“仙人掌”模式，它就会很少浇水。"),
    ("状态灯环能关掉吗？", "在“机器人 > 灯光”里可以设置巡护以外不亮。"),
    ("两层楼能用吗？", "它只建一层的地图；搬到另一层需要再建一张地图。"),
    ("App 有桌面小组件吗？", "有，小组件显示下一轮时间和水箱水量。"),
    ("地图怎么重置？", "在“机器人 > 地图”里点“重置”，让它重新探索。"),
    ("有小孩的家里安全吗？", "安全，但要盖好水箱盖，别让孩子抓着桅杆提起它。"),
]

# the facts each conversation opens with; a probe asks for one of them at the end
PEOPLE = [
    {"id": "long-en-1", "lang": "en", "name": "Mara Lindqvist", "order": "QF-51873", "serial": "T4K-88213",
     "delivered": "2024-03-14", "code": "E-63", "sent": "a new drip tray"},
    {"id": "long-en-2", "lang": "en", "name": "Tomas Reyes", "order": "QF-40926", "serial": "T4K-17654",
     "delivered": "2024-02-07", "code": "E-17", "sent": "a spare probe tip"},
    {"id": "long-zh-1", "lang": "zh", "name": "周雨桐", "order": "QF-63358", "serial": "T4K-50472",
     "delivered": "2024-04-02", "code": "E-21", "sent": "一个新的接水盘"},
    {"id": "long-zh-2", "lang": "zh", "name": "韩子墨", "order": "QF-29145", "serial": "T4K-36981",
     "delivered": "2024-01-19", "code": "E-63", "sent": "一套新的 O 形圈"},
]


def opening(p: dict) -> list[tuple[str, str]]:
    if p["lang"] == "en":
        return [(f"Hi, my name is {p['name']} and I need help with my Tessel T4.", f"Hello {p['name']}, happy to help."),
                (f"My order number is {p['order']} and the serial number is {p['serial']}.",
                 "Thank you, I have noted both."),
                (f"It was delivered on {p['delivered']} and today it showed fault {p['code']}.",
                 f"I see: {p['code']} right after delivery is covered, so we will fix it for free."),
                ("What will you do about it?", f"We will send you {p['sent']} at no cost; it should arrive within a week.")]
    return [(f"你好，我叫{p['name']}，我的 Tessel T4 需要帮助。", f"{p['name']}您好，很高兴为您服务。"),
            (f"我的订单号是 {p['order']}，序列号是 {p['serial']}。", "好的，两个号码都已记下。"),
            (f"机器人是 {p['delivered']} 签收的，今天显示故障 {p['code']}。", f"明白：签收后不久出现 {p['code']} 属于保修范围，我们免费处理。"),
            ("你们打算怎么处理？", f"我们会免费给您寄{p['sent']}，一周内送到。")]


CLOSING = {"en": [("Thanks, that answers my app questions.", "You are welcome."),
                   ("One more thing before I go.", "Of course, go ahead.")],
           "zh": [("谢谢，App 的问题都清楚了。", "不客气。"), ("走之前再问几件事。", "好的，请说。")]}
MONTHS = ["", "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
# what a right answer to "what will you send" must contain, in any of its spellings
SENT_WORDS = {"a new drip tray": ["tray", "接水盘"], "a spare probe tip": ["tip", "探针"],
              "一个新的接水盘": ["接水盘", "drip tray"], "一套新的 O 形圈": ["O 形圈", "O形圈", "O 型圈", "O型圈", "O-ring"]}


def probes(p: dict) -> list[dict]:
    sent_words = SENT_WORDS[p["sent"]]
    day = p["delivered"]
    y, m, d = day.split("-")
    days = [day, f"{int(y)}年{int(m)}月{int(d)}日", f"{int(m)}月{int(d)}日", f"{MONTHS[int(m)]} {int(d)}, {y}"]
    if p["lang"] == "en":
        return [{"question": "What is my order number?", "checker": {"any": [p["order"]]}},
                {"question": "What is the serial number of my robot?", "checker": {"any": [p["serial"]]}},
                {"question": "When was my robot delivered?", "checker": {"any": days}},
                {"question": "Which fault code did I report?", "checker": {"any": [p["code"]]}},
                {"question": "What did you agree to send me?", "checker": {"any": sent_words}}]
    return [{"question": "我的订单号是多少？", "checker": {"any": [p["order"]]}},
            {"question": "我的机器人序列号是多少？", "checker": {"any": [p["serial"]]}},
            {"question": "我的机器人是哪天签收的？", "checker": {"any": days}},
            {"question": "我报的是哪个故障代码？", "checker": {"any": [p["code"]]}},
            {"question": "你们答应给我寄什么？", "checker": {"any": sent_words}}]


def conversation(p: dict, index: int) -> dict:
    pool = FILLER_EN if p["lang"] == "en" else FILLER_ZH
    rotated = pool[index * 7 % len(pool):] + pool[:index * 7 % len(pool)]  # each conversation its own order
    turns = opening(p) + rotated + CLOSING[p["lang"]]
    return {"id": p["id"], "lang": p["lang"], "turns": [list(t) for t in turns], "probes": probes(p)}


def conversations() -> list[dict]:
    return [conversation(p, i) for i, p in enumerate(PEOPLE)]


if __name__ == "__main__":
    rows = conversations()
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(rows)} conversations of {', '.join(str(len(r['turns'])) for r in rows)} "
          f"turns, {sum(len(r['probes']) for r in rows)} probes")
