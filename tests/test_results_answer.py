"""The second answer from the tool results (agent/results_answer.py): asked only when the answer leaves results out,
kept only when it answers with figures the results show."""
from handmade_agent.agent import Agent
from handmade_agent.agent.results_answer import ANSWER_SYSTEM, answer_from_results, cited
from handmade_agent.llm import ScriptedLLM
from handmade_agent.tools import ToolRegistry, tool

HIGHS = {"北京": 27, "上海": 23}


@tool
def high(city: str) -> str:
    """Today's high in a city."""
    return f"{city}: high {HIGHS[city]} °C"


def steps(answer: str) -> list[str]:
    return ['Thought: 1. 北京 2. 上海.\nAction: high\nAction Input: {"city": "北京"}',
            'Thought: step 2.\nAction: high\nAction Input: {"city": "上海"}',
            f"Thought: done.\nFinal Answer: {answer}"]


def run(answer: str, *again: str, **settings):
    llm = ScriptedLLM([*steps(answer), *again])
    # the loop's checks off: this file is the rewrite policy alone (test_answer_checks_loop.py has the checks)
    result = Agent(llm, ToolRegistry([high]), checks=[], **settings).run("Which is warmer, 北京 or 上海?")
    return result, llm


def test_an_answer_that_leaves_one_side_out_is_written_again_from_the_results():
    result, llm = run("北京 is warmer: 27 °C.", "北京 is warmer: 27 °C against 23 °C in 上海.")
    assert result.answer == "北京 is warmer: 27 °C against 23 °C in 上海."
    sent = llm.calls[-1]["messages"]
    assert sent[0].content == ANSWER_SYSTEM
    assert "北京: high 27 °C" in sent[1].content and "上海: high 23 °C" in sent[1].content
    assert "Thought" not in sent[1].content  # the fresh call sees the results, not the loop's thoughts
    assert result.steps[-1].answer == result.answer and "27 °C." in result.steps[-1].reply


def test_a_second_answer_that_sets_the_figures_the_wrong_way_round_is_not_kept():
    # traced on the 1.5B (suite task compare-18): the loop named the right city, the fresh call put 25 °C above 29 °C
    result, llm = run("北京 is warmer: 27 °C.", "上海 is warmer: 23 °C in 上海 is higher than 27 °C in 北京.")
    assert result.answer == "北京 is warmer: 27 °C." and llm.remaining == 0


def test_an_answer_citing_both_results_costs_no_second_call():
    result, llm = run("北京 is warmer: 27 °C against 23 °C.")
    assert result.answer == "北京 is warmer: 27 °C against 23 °C." and llm.remaining == 0 and len(llm.calls) == 3


def test_the_setting_off_or_a_single_result_asks_nothing_more():
    result, llm = run("北京 is warmer.", results_answer=False)
    assert result.answer == "北京 is warmer." and len(llm.calls) == 3
    llm = ScriptedLLM([steps("x")[0], "Thought: done.\nFinal Answer: It is warm."])
    assert Agent(llm, ToolRegistry([high])).run("How warm is 北京?").answer == "It is warm." and len(llm.calls) == 2


def test_a_second_answer_with_an_invented_figure_or_a_refusal_is_not_taken():
    assert run("北京 is warmer.", "北京 is warmer: 27 °C against 21 °C.")[0].answer == "北京 is warmer."
    assert run("北京 is warmer.", "I cannot answer this with my tools.")[0].answer == "北京 is warmer."
    assert run("北京 is warmer.", "")[0].answer == "北京 is warmer."


def test_a_failed_second_call_keeps_the_answer_and_the_call_is_observed():
    seen = []
    llm = ScriptedLLM(steps("北京 is warmer."))  # no reply left for the second answer: the backend fails
    result = Agent(llm, ToolRegistry([high]), observers=[seen.append]).run("Which is warmer, 北京 or 上海?")
    assert result.answer == "北京 is warmer." and result.stop_reason == "final_answer"
    # the answering call is the loop's own observed call: retried once (llm_retries=1) like a step's
    assert [e.purpose for e in seen if type(e).__name__ == "LLMCallStarted"] == ["step"] * 3 + ["answer"] * 2


def test_cited_counts_results_not_figures():
    assert cited("27 °C and 27 °C", ["a: 27 °C", "b: 23 °C"]) == 1
    assert cited("80.6 °F, that is 27 °C", ["a: 27 °C", "27 °C = 80.6 °F"]) == 2
    assert cited("no figure", ["a: 27", "b: 23"]) == 0


class Context:
    question, results, asked = "Which is warmer?", ("a: 27 °C", "b: 23 °C"), 0

    def ask(self, messages, **kwargs):
        self.asked += 1


def test_the_policy_asks_once_and_keeps_the_answer_when_the_backend_gives_nothing():
    context = Context()
    assert answer_from_results(context, "a.") is None and context.asked == 1


def test_the_second_call_is_counted_in_the_final_step_and_the_run():
    again, _ = run("北京 is warmer.", "北京 is warmer: 27 °C against 23 °C in 上海.")
    once, _ = run("北京 is warmer.", results_answer=False)
    assert again.usage.prompt_tokens == sum(s.usage.prompt_tokens for s in again.steps)
    assert again.steps[-1].model_calls == 2 and once.steps[-1].model_calls == 1
    assert again.steps[-1].usage.prompt_tokens > once.steps[-1].usage.prompt_tokens > 0
    assert [s.usage for s in again.steps[:-1]] == [s.usage for s in once.steps[:-1]]


def test_an_answer_with_a_figure_of_its_own_is_left_alone():
    # the loop converted 27 °C itself; the results alone cannot give 80.6 back, so nothing is asked
    result, llm = run("北京 is warmer: 27 °C, that is 80.6 °F.")
    assert result.answer == "北京 is warmer: 27 °C, that is 80.6 °F." and len(llm.calls) == 3
