"""MemoryPanel: statuses, token totals, preview sliders, static HTML, refresh as an observer."""
from __future__ import annotations

import pytest

from handmade_agent.agent.events import RunFinished
from handmade_agent.llm import Message, ScriptedLLM
from handmade_agent.memory.conversation import MESSAGE_OVERHEAD, ConversationMemory
from handmade_agent.memory import SummaryMemory
from handmade_agent.widgets.memory import memory_html, memory_rows

pytest.importorskip("ipywidgets")


def words(text: str) -> int:
    return len(text.split())


def chat(memory, n):
    for i in range(n):
        memory.add(Message("user", f"q {i}"))
        memory.add(Message("assistant", f"a <b>{i}</b>"))


def test_rows_mark_pinned_window_and_evicted_with_token_counts():
    m = ConversationMemory(max_turns=2, system="Be brief.", count_tokens=words)
    chat(m, 4)
    totals, rows = memory_rows(m)
    assert [(r["turn"], r["status"]) for r in rows] == [(None, "pinned")] + [
        (t, "evicted" if t <= 2 else "window") for t in (1, 1, 2, 2, 3, 3, 4, 4)]
    per_message = 2 + MESSAGE_OVERHEAD
    assert rows[1]["tokens"] == per_message
    assert totals["sent_tokens"] == m.tokens() == 5 * per_message
    assert (totals["window_turns"], totals["evicted_turns"], totals["evicted_tokens"]) == (2, 2, 4 * per_message)
    assert totals["all_tokens"] == 9 * per_message


def test_rows_show_the_summary_and_what_it_covers():
    m = SummaryMemory(ScriptedLLM(["short summary", "shorter"]), max_turns=1, count_tokens=words)
    chat(m, 3)
    totals, rows = memory_rows(m)
    assert [r["status"] for r in rows] == ["summary"] + ["summarized"] * 4 + ["window"] * 2
    assert rows[0]["text"].endswith("shorter") and totals["summarized_turns"] == 2
    assert totals["summary_tokens"] == rows[0]["tokens"]


def test_previewing_other_limits_does_not_change_the_memory():
    from handmade_agent.widgets import MemoryPanel
    m = ConversationMemory(max_turns=3, count_tokens=words)
    chat(m, 5)
    panel = MemoryPanel(m)
    assert panel.turns_slider.value == 3 and panel.preview == {}
    panel.turns_slider.value = 1
    assert panel.totals["window_turns"] == 1 and "preview" in panel.table.value
    assert m.max_turns == 3 and len(m.messages()) == 6
    panel.refresh()
    assert panel.turns_slider.value == 3 and panel.totals["window_turns"] == 3


def test_static_html_escapes_text_and_carries_the_totals():
    from handmade_agent.widgets import MemoryPanel
    m = ConversationMemory(max_tokens=20, count_tokens=words)
    chat(m, 3)
    page = MemoryPanel(m).to_html()
    assert "a &lt;b&gt;2&lt;/b&gt;" in page and "<b>2</b>" not in page
    assert f"sends {2 * (2 + MESSAGE_OVERHEAD)} of 20 tokens" in page and page == memory_html(*memory_rows(m))
    bundle = MemoryPanel(m)._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and bundle["text/html"] == page


def test_the_panel_refreshes_when_a_run_finishes():
    from handmade_agent.widgets import MemoryPanel
    m = ConversationMemory()
    panel = MemoryPanel(m)
    chat(m, 2)
    panel(RunFinished(answer="x"))
    assert panel.totals["turns"] == 2 and "q 1" in panel.table.value
