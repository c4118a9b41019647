"""The knowledge_search tool, context injection with citations, and the two panels."""
from __future__ import annotations

import pytest

from handmade_agent.llm import Message, ScriptedLLM
from handmade_agent.rag import chunk_documents
from handmade_agent.rag import attribute, check_citations, citations, cite, format_passages, rag_messages
from handmade_agent.rag import load_documents
from handmade_agent.rag import HashingEmbedder
from handmade_agent.rag import Retriever
from handmade_agent.rag import knowledge_search_tool
from handmade_agent.tools import RunContext, Tool, ToolRegistry
from test_rag_data import write_kb


@pytest.fixture
def docs(tmp_path):
    return load_documents(write_kb(tmp_path))


@pytest.fixture
def retriever(docs):
    return Retriever(chunk_documents(docs), HashingEmbedder(256))


def test_tool_schema_and_call_through_the_registry(retriever):
    t = knowledge_search_tool(retriever, k=2)
    assert isinstance(t, Tool) and t.name == "knowledge_search" and t.parameters["required"] == ["query"]
    reg = ToolRegistry([t])
    res = reg.call("knowledge_search", {"query": "When does the office close on Friday?"})
    # focused (the default): the id alone, then the passage's best lines; a heading was copied as an answer
    assert res.ok and res.content.startswith("[office#hours:1]\nThe Harbour office opens at 08:30")
    assert res.content.count("\n\n[") == 1  # k=2 passages
    assert "15:00" in res.content and res.content.endswith("citing the id in square brackets.")
    whole = knowledge_search_tool(retriever, k=2, focus_lines=None).fn(query="When does the office close on Friday?")
    assert whole.startswith("[office#hours:1] Harbour office notes > Opening hours\n")


def test_tool_turns_empty_and_hopeless_queries_into_advice(retriever):
    t = knowledge_search_tool(retriever, method="bm25")
    assert "empty" in t.fn(query="  ")
    assert "No passage matched" in t.fn(query="zzzz qqqq")


def test_rag_messages_hold_passages_with_ids_and_an_example_citation(retriever):
    hits = retriever.search("cable length", k=2)
    msgs = rag_messages("How long is the cable?", hits)
    assert [m.role for m in msgs] == ["system", "user"] and isinstance(msgs[0], Message)
    assert f"[{hits[0].id}]" in msgs[0].content and "for example [" + hits[0].id + "]" in msgs[0].content
    assert msgs[1].content == "How long is the cable?"
    assert format_passages(hits, max_chars=10).count(" …") >= 1


def test_citations_are_read_back_and_checked(retriever):
    hits = retriever.search("cable length", k=2)
    answer = f"The cable is 10 m long [{hits[0].id}], see also [{hits[0].chunk.passage_id}] and [made#up:3]."
    assert citations(answer) == [hits[0].id, hits[0].chunk.passage_id, "made#up:3"]
    assert citations("no brackets [here] or [1]") == []
    checked = check_citations(answer, hits)
    assert checked == {"valid": [hits[0].id, hits[0].chunk.passage_id], "unknown": ["made#up:3"], "unsupported": []}
    wrong = f"The cable is 12 m long [{hits[0].id}]. The motor draws 240 W."
    assert check_citations(wrong, hits)["unsupported"] == [f"The cable is 12 m long [{hits[0].id}]."]


def test_support_checks_numbers_units_codes_and_names_across_languages():
    from handmade_agent.rag.support import check_support
    rows = [("a:1", "Arm > | Item | Value |\n| Arm payload | 350 g |"), ("b:1", "| QF-B52 | Battery 5,200 mAh | €79 |"),
            ("c:1", "| Dana Whitlock | General manager, North America |"), ("d:1", "最多 64 株植物，水箱 2.6 |"),
            ("e:1", "Quillfern was founded in 2019 by two engineers; it runs 8 to 12 trials a year."),
            ("f:1", "| Feature | Tessel T4 | Tessel T4 Pro |\n| Registered plants | 64 | 128 |")]
    status = lambda answer: [(s.status, s.missing) for s in check_support(answer, rows)]  # noqa: E731
    assert status("机械臂负载为 350 克 [a:1]。") == [("supported", [])]  # a Chinese sentence, an English row
    assert status("The arm lifts 350 kg [a:1].") == [("unsupported", ["350 kg"])]  # right number, wrong unit
    assert status("QF-B52 has 5200 mAh and costs 79 € [b:1].") == [("supported", [])]
    assert status("QF-B68 costs €79 [b:1].") == [("unsupported", ["QF-B68"])]
    assert status("The manager is Dana Smith [c:1].") == [("unsupported", ["Smith"])]
    assert status("The arm lifts 350 g [c:1].") == [("unsupported", ["350 g"])]  # true, but not in what it cites
    assert status("It is fine [a:1].") == [("undecided", [])]
    assert status("电池QF-B68售价 79 € [b:1]。") == [("unsupported", ["QF-B68"])]  # a code right after Chinese text
    assert status("负载是三百五十克 [a:1]。") == [("undecided", [])]  # only numerals up to 99 are read
    assert status("保修两年 [a:1]。") == [("unsupported", ["2 year"])]   # 两年 is 2 years, and row a says nothing of it
    assert status("水箱 64 升 [d:1]。") == [("unsupported", ["64 L"])]  # 64 there counts plants, not litres
    assert status("水箱 2.6 升，可照顾 64 株 [d:1]。") == [("supported", [])]  # a bare 2.6 takes the answer's unit
    assert status("T4 的水箱是 64 升 [f:1]。") == [("unsupported", ["64 L"])]  # a bare cell counts plants
    assert status("T4 可登记 64 株植物 [f:1]。") == [("supported", [])]
    assert status("羽蕨成立于 2019 年，每年做 8 至 12 次试验 [e:1]。") == [("supported", [])]  # "2019 by": a date
    judged = check_support("It is fine [a:1].", rows, judge=lambda sentence, passage: "Arm" in passage)
    assert [s.status for s in judged] == ["supported"]  # the judge is asked only where the check is undecided


def test_attribute_and_cite_fix_missing_or_invented_citations(retriever):
    hits = retriever.search("motor power cable", k=3, where={"lang": "en"})
    spec = next(h for h in hits if h.chunk.passage_id == "b2-pump#specs")
    assert attribute("The motor draws 240 W.", hits)[0] == spec.id
    assert attribute("Bananas are yellow.", hits) == [] and attribute("", hits) == []
    text, ids = cite("The motor draws 240 W.", hits)
    assert ids[0] == spec.id and text.startswith(f"The motor draws 240 W. [{spec.id}]")
    text, ids = cite(f"The motor draws 240 W [made#up:1] [{spec.id}].", hits)
    assert ids == [spec.id] and "made#up" not in text and text == f"The motor draws 240 W [{spec.id}]."
    assert cite("No idea.", hits) == ("No idea.", [])
    zh_chunks = [c for c in retriever.chunks if c.lang == "zh"]  # plain chunks work as well as hits
    assert attribute("每月冲洗一次", zh_chunks) == ["b2-pump-zh#cleaning:1"]


def test_tool_keeps_what_it_showed_the_model(retriever):
    t = knowledge_search_tool(retriever, k=2, hint=None)
    out = t.fn(query="cable length")
    assert len(t.fn.retrieved) == 2 and out.startswith(f"[{t.fn.retrieved[0].id}]")
    assert not out.endswith("square brackets.")  # hint=None: passages only
    t.fn(query="parking")
    assert len(t.fn.retrieved) == 4


def test_context_injection_into_a_completion(retriever):
    hits = retriever.search("motor power", k=2)
    llm = ScriptedLLM([f"240 W [{hits[0].id}]"])
    reply = llm.complete(rag_messages("What power does the motor draw?", hits)).text
    assert check_citations(reply, hits)["valid"] == [hits[0].id]
    assert hits[0].id in llm.calls[0]["messages"][0].content


# --- panels -------------------------------------------------------------------------------

def test_highlight_escapes_html_and_marks_whole_words_and_bigrams():
    from handmade_agent.widgets.retrieval import highlight
    assert highlight("<b>Pump</b> pumps", ["pump"]) == "&lt;b&gt;<mark>Pump</mark>&lt;/b&gt; pumps"
    assert highlight("电机过热", ["过热"]) == "电机<mark>过热</mark>"
    assert highlight("E-07 and e", ["e-07", "e"]) == "<mark>E-07</mark> and <mark>e</mark>"


def test_retrieval_panel_switches_methods_and_renders_static_html(retriever):
    pytest.importorskip("ipywidgets")
    from handmade_agent.widgets import RetrievalPanel
    panel = RetrievalPanel(retriever, "dry run fault", k=3)
    assert len(panel.hits) == 3 and panel.hits[0].method == "blend"
    html = panel.html()
    assert html.count("<code>") == 3 and "<mark>" in html and "blend" in html and "bm25" in html
    assert "dense weight 1.00" in html
    bm = panel.search("电机过热", method="bm25", k=2)
    assert [h.method for h in bm] == ["bm25", "bm25"] and "<mark>过热</mark>" in panel.html()
    assert panel.method_box.options == ("dense", "bm25", "rrf", "blend")  # no reranker: no rerank entry
    bundle = panel._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and bundle["text/html"] == panel.html()
    assert "0x" not in bundle["text/plain"]
    panel.search("")
    assert panel.hits == [] and "no hits" in panel.html()


def test_retrieval_panel_flags_an_unsupported_sentence(retriever):
    pytest.importorskip("ipywidgets")
    from handmade_agent.widgets import RetrievalPanel
    panel = RetrievalPanel(retriever, "cable length", k=2)
    cid = panel.hits[0].id
    panel.check(f"The cable is 10 m long [{cid}].")
    assert "The cable is 10 m long" in panel.html() and "unsupported" not in panel.html()
    panel.check(f"The cable is 12 m long [{cid}].")
    assert "⚠ unsupported: 12 m not in " + cid in panel.html()


def test_chunk_viewer_draws_boundaries_and_switches_chunker(docs):
    pytest.importorskip("ipywidgets")
    from handmade_agent.widgets.chunks import OVERLAP, ChunkViewer, chunks_html
    viewer = ChunkViewer(docs, "b2-pump", size=150, overlap=40)
    assert viewer.doc.doc_id == "b2-pump" and [c.id for c in viewer.chunks][0] == "b2-pump:1"
    assert all(c.id in viewer.html() for c in viewer.chunks)
    viewer.method_box.value = "fixed"
    assert viewer.chunks[0].id == "b2-pump@1" and OVERLAP in viewer.html()  # fixed windows overlap
    viewer.doc_box.value = "zh/b2-pump-zh"
    assert viewer.doc.lang == "zh" and "布鲁克林" in viewer.html()
    assert "text/html" in viewer._repr_mimebundle_()
    assert "&lt;" not in chunks_html(docs[1], []) and "office: 0 chunks" in chunks_html(docs[1], [])
    viewer.doc_box.value, viewer.method_box.value = "en/b2-pump", "structure"
    assert "b2-pump#faults:2 · 39 · row" in viewer.html() and 'title="| Code | Meaning |"' in viewer.html()


def test_an_agent_with_the_search_tool_is_shown_a_worked_search(retriever):
    from handmade_agent.agent import Agent
    from handmade_agent.toolbox import default_registry
    t = knowledge_search_tool(retriever, k=2)
    llm = ScriptedLLM(['Thought: search\nAction: knowledge_search\nAction Input: {"query": "office Friday closing"}',
                       "Thought: found it\nFinal Answer: 15:00 [office#hours:1]"])
    agent = Agent(llm, [t])
    result = agent.run("When does the office close on Friday?")
    assert result.stop_reason == "final_answer" and result.tools_used == ["knowledge_search"]
    assert cite(result.answer, t.fn.retrieved) == ("15:00 [office#hours:1]", ["office#hours:1"])
    shown = "\n".join(m.content for m in llm.calls[0]["messages"][1:-1])  # the examples, as turns
    assert "Action: knowledge_search" in shown and "W-99" in shown and "calculator" not in shown
    # the example's observation ends exactly as a real search observation does
    real = t.fn(query="office hours")
    assert "Answer in the language of the user's question" in real  # asked in every observation
    example_observation = next(m.content for m in agent.examples() if m.content.startswith("Observation:"))
    assert example_observation.splitlines()[-1] == real.splitlines()[-1]
    # an agent without the tool never sees the search example
    assert not any("W-99" in m.content for m in Agent(llm, default_registry()).examples())


@pytest.mark.model
def test_local_model_answers_from_injected_passages_and_grades_them(local_llm):
    from handmade_agent.rag import LLMJudgeReranker
    from test_rag_data import DATA
    faults = [d for d in load_documents(DATA / "kb", ("en",)) if d.doc_id == "t4-fault-codes"]
    if not faults:
        pytest.skip("the knowledge base has no t4-fault-codes document")
    r = Retriever(chunk_documents(faults))
    question = "What does fault code E-17 mean on the Tessel T4?"
    hits = r.search(question, k=3, method="bm25")
    reply = local_llm.complete(rag_messages(question, hits), max_tokens=60).text
    assert "calibration" in reply.lower(), reply
    text, ids = cite(reply, hits)
    assert ids and ids[0].startswith("t4-fault-codes#arm-codes"), (text, ids)
    judge = LLMJudgeReranker(local_llm)
    grades = judge.score(question, [hits[0].chunk.search_text, "Visitors park in bay C."])
    assert judge.unparsed == 0 and all(g in (0.0, 1.0, 2.0, 3.0) for g in grades)


def test_the_agent_hands_the_question_to_the_search_and_both_rankings_are_fused(retriever):
    from handmade_agent.agent import Agent
    from handmade_agent.rag.tool import merged_search
    t = knowledge_search_tool(retriever, k=2, method="bm25")
    # the model's query names only the product; the asker's words say what was asked
    question, query = "How long is the cable?", "Brookline B2"
    llm = ScriptedLLM(['Thought: search\nAction: knowledge_search\nAction Input: {"query": "Brookline B2"}',
                       "Thought: done\nFinal Answer: 10 m [b2-pump#specs:1]"])
    Agent(llm, [t]).run(question)
    with_question = [h.id for h in t.fn.retrieved]
    alone = [h.id for h in retriever.search(query, k=2, method="bm25")]
    asked = [h.id for h in retriever.search(question, k=2, method="bm25")]
    assert "b2-pump#specs:1" not in alone and asked[0] == "b2-pump#specs:1"
    assert with_question == ["b2-pump#specs:1", alone[0]]  # the question's best first, then the query's
    assert with_question == [h.id for h in merged_search(retriever, [question, query], 2, method="bm25")]
    off = knowledge_search_tool(retriever, k=2, method="bm25", with_question=False)
    off.fn(query=query, run=RunContext(question))
    assert [h.id for h in off.fn.retrieved] == alone
