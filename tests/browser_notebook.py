"""The small notebook the browser test opens: every panel of the package, built with no model.

``panels_notebook()`` returns an nbformat notebook with one cell per panel (``TracePanel`` watching a
scripted ``Agent`` run, ``StepDebugger``, ``RetrievalPanel`` over the knowledge base with the
``HashingEmbedder``, ``MemoryPanel``, ``ChunkViewer``) and a last cell that prints, as one JSON
line, what the Python side holds after the browser has clicked through the panels. ``ScriptedLLM``
stands in for the model: what is tested is the panels, not a model's words. The knowledge base is
read from ``../data/kb``, as the course notebooks read it.

Deliberately left out: the local model and sentence-transformers (loading either would take longer
than the whole browser test), and any assertion (the test asserts, the notebook only shows).
"""
from __future__ import annotations

# One run of four steps: a tool call, a format error, a failing tool call, an answer (as in the unit tests).
REPLIES = [
    'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "北京", "date": "tomorrow"}',
    "It will be cloudy, I think.",
    'Thought: convert.\nAction: calculator\nAction Input: {"expression": "1/0"}',
    "Thought: I know it now.\nFinal Answer: 北京明天多云。",
]
QUESTION = "北京明天天气怎么样？"
# What the test types over the model's first reply in the StepDebugger.
EDITED_REPLY = ('Thought: convert\nAction: convert_temperature\n'
                'Action Input: {"value": 100, "from_unit": "C", "to_unit": "F"}')

SETUP = f"""\
import datetime, json
from handmade_agent.agent import Agent
from handmade_agent.llm import Message, ScriptedLLM
from handmade_agent.memory import ConversationMemory
from handmade_agent.rag import HashingEmbedder, Retriever, chunk_documents, load_documents
from handmade_agent.toolbox import default_registry
from handmade_agent.widgets import ChunkViewer, MemoryPanel, RetrievalPanel, StepDebugger, TracePanel
REPLIES = {REPLIES!r}
def tools():
    return default_registry(today=datetime.date(2024, 5, 20))
"""

TRACE = f"""\
trace = TracePanel()
display(trace)  # shown first: the panel fills while the run goes on
result = Agent(ScriptedLLM(REPLIES), tools(), observers=[trace]).run({QUESTION!r})
"""

DEBUGGER = f"""\
debugger = StepDebugger(Agent(ScriptedLLM(REPLIES), tools()), {QUESTION!r})
debugger
"""

RETRIEVAL = """\
docs = load_documents("../data/kb")
retriever = Retriever(chunk_documents([d for d in docs if d.lang == "en"]), HashingEmbedder(256))
retrieval = RetrievalPanel(retriever, "dry run fault", k=4)
retrieval
"""

MEMORY = """\
memory = ConversationMemory(max_turns=3, system="You answer questions about the T4 robot.")
for i, (q, a) in enumerate([("What is the T4?", "A watering robot."), ("电池能用多久？", "大约两小时。"),
                            ("How do I reset it?", "Hold the power button for ten seconds."),
                            ("故障码 E-07 是什么意思？", "水泵空转。"), ("Where is the Shanghai office?", "Pudong."),
                            ("Can I return it?", "Within 30 days.")]):
    memory.add(Message("user", q))
    memory.add(Message("assistant", a))
memory_panel = MemoryPanel(memory)
memory_panel
"""

CHUNKS = """\
chunk_viewer = ChunkViewer([d for d in docs if d.doc_id in ("t4-fault-codes", "t4-watering", "zh-t4-faq")],
                           "t4-fault-codes", size=400, max_chars=1500)
chunk_viewer
"""

STATE = """\
print(json.dumps({
    "trace_steps": len(trace.entries),
    "debugger": [[s.kind, s.index in debugger.edits, s.tool] for s in debugger.history],
    "debugger_finished": debugger.agent.finished,
    "retrieval": {"query": retrieval.query_box.value, "method": retrieval.method_box.value,
                  "hits": [h.chunk.id for h in retrieval.hits]},
    "memory": {"turns": memory_panel.turns_slider.value, "preview": memory_panel.preview},
    "chunks": {"doc": chunk_viewer.doc_box.value, "method": chunk_viewer.method_box.value,
               "n": len(chunk_viewer.chunks)},
}, ensure_ascii=False))
"""

CELLS = {"setup": SETUP, "trace": TRACE, "debugger": DEBUGGER, "retrieval": RETRIEVAL, "memory": MEMORY,
         "chunks": CHUNKS, "state": STATE}


def panels_notebook():
    """The notebook, one code cell per entry of ``CELLS``, in that order, with the python3 kernel."""
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Every panel, built with a scripted model")]
    nb.cells += [nbformat.v4.new_code_cell(src) for src in CELLS.values()]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    return nb
