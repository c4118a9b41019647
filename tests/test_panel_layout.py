"""Panel layout that a live notebook needs: text line height, scroll boxes, labels that fit, honest status."""
from __future__ import annotations

import datetime

import pytest

pytest.importorskip("ipywidgets")

from handmade_agent.agent import Agent  # noqa: E402
from handmade_agent.llm import Message, ScriptedLLM  # noqa: E402
from handmade_agent.memory import ConversationMemory  # noqa: E402
from handmade_agent.rag import HashingEmbedder, Retriever, chunk_documents, parse_document  # noqa: E402
from handmade_agent.toolbox import default_registry  # noqa: E402
from handmade_agent.widgets import ChunkViewer, MemoryPanel, RetrievalPanel, StepDebugger  # noqa: E402

DOC = parse_document("pump", "# Pump\n## Dry run {#dry}\nE-11: the pump ran dry. Refill the tank.\n"
                            "## Leak {#leak}\nE-63: water in the drip tray. Dry the tray.\n")


def test_memory_rows_scroll_under_a_sticky_header_and_the_reset_label_fits():
    memory = ConversationMemory(max_turns=2)
    for i in range(40):
        memory.add(Message("user", f"question {i}"))
    panel = MemoryPanel(memory)
    page = panel.table.value
    assert page.startswith("<div style='line-height:1.4'>")  # not ipywidgets' 28 px per line
    assert "max-height:420px;overflow:auto'><table" in page and "position:sticky;top:0" in page
    reset = panel.widget.children[0].children[2]
    assert reset.description == "memory's own limits" and reset.layout.width == "auto"


def test_retrieval_and_chunks_set_their_line_height_and_scroll():
    retriever = Retriever(chunk_documents([DOC]), HashingEmbedder(64))
    page = RetrievalPanel(retriever, "pump dry", k=3).html()
    assert 'style="line-height:1.4"' in page and "max-height:600px;overflow-y:auto" in page
    page = ChunkViewer([DOC]).html()
    assert 'style="line-height:1.4"' in page and "max-height:560px;overflow-y:auto" in page


def test_the_debugger_preview_stops_promising_step_two_once_the_run_is_over():
    agent = Agent(ScriptedLLM(["Thought: done\nFinal Answer: 4"]), default_registry(today=datetime.date(2024, 5, 20)))
    dbg = StepDebugger(agent, "2+2?")
    assert "② will ask the model itself" in dbg.preview.value
    dbg.run_to_end()
    assert dbg.apply_button.disabled and "② will ask" not in dbg.preview.value
    assert "The run is over" in dbg.preview.value and "line-height:1.4" in dbg.status.value
