"""Could code, not the model, tell that no offered tool fits? Question-to-description similarity, measured.

    python benchmarks/tool_relevance.py            # both embedders, both data sets (about 15 s, no LLM)
    python benchmarks/tool_relevance.py --model [--limit N]   # the local model's own fit score instead

For every question of ``data/unfamiliar_tools.json`` (the tools offered exactly as
``benchmarks/unfamiliar_tools.py`` offers them, seed 0) and of the evaluation suite
(``data/eval_tasks.jsonl``, each task's own toolset), the question and each offered tool's
"name: description" are embedded; the score of a question is its best cosine similarity over
the tools. A relevance gate would withhold the tools (the grammar's answer-only branch) below a
threshold. Printed per data set and embedder:

* AUC: how often a question some tool answers scores above a question none answers
  (1.0 separates them perfectly, 0.5 is a coin);
* for a few thresholds, how many no-tool questions the gate would catch and how many tool
  questions it would wrongly stop;
* the tool questions that score lowest (what a gate would break first).

``--model`` scores with the local model instead of an embedder (``agent.ToolFit``, the opt-in gate's score): how
much a tool's description raises the probability of the question, log P(question | "Tool: <name: description>\nA
question this tool answers:") minus log P(question | "A question:"), summed over the question's tokens (pointwise
mutual information; one forward pass per question and tool and one more per question, in a small context of its
own; about 4 s per unfamiliar-tool question and 20 s per suite task on the 1.5B). ``--limit N`` keeps the first N
questions some tool answers and the first N/2 that none answers of each set.

Compare with the model's first-token signal, measured the same way (docs/benchmarks.md): the log-probability
margin of starting the thought with " No" rather than " Plan" reached AUC 0.649 on the unfamiliar set.

Deliberately left out: the gate itself (``agent.tool_fit.fit_gate``, measured by ``unfamiliar_tools.py --configs
react+c+fit``), tuning a threshold.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

THRESHOLDS = (0.1, 0.15, 0.2)


def auc(positive: list[float], negative: list[float]) -> float:
    """P(a random positive scores above a random negative), ties counted half."""
    pairs = [(p > n) + 0.5 * (p == n) for p in positive for n in negative]
    return sum(pairs) / len(pairs)


def unfamiliar_items() -> list[tuple[str, list[str], bool]]:
    """(question, tool texts, does some offered tool answer it) as unfamiliar_tools.py offers them."""
    from unfamiliar_tools import DATA, offers
    data = json.loads(DATA.read_text(encoding="utf-8"))
    return [(q, [f"{s['name'].replace('_', ' ')}: {s['description']}" for s in offered], expected is not None)
            for q, offered, expected in offers(data, 0)]


def suite_items() -> list[tuple[str, list[str], bool]]:
    """The same for the evaluation suite: no_tool and refuse tasks are the ones no tool answers."""
    from handmade_agent.evaluation.tasks import load_tasks
    from handmade_agent.evaluation.toolsets import TaskTools
    toolsets = TaskTools()
    return [(t.question, [f"{x.name.replace('_', ' ')}: {x.description}" for x in toolsets(t.tools)],
             t.kind not in ("no_tool", "refuse")) for t in load_tasks()]


def report(name: str, embedder, items: list[tuple[str, list[str], bool]], thresholds=THRESHOLDS) -> None:
    scores = []
    for question, texts, answerable in items:
        if hasattr(embedder, "scores"):
            best = max(embedder.scores(question, texts))
        else:
            vectors = embedder.embed([question] + texts)
            best = float((vectors[1:] @ vectors[0]).max())
        scores.append((best, answerable, question))
    tool = [s for s, answerable, _ in scores if answerable]
    none = [s for s, answerable, _ in scores if not answerable]
    print(f"\n{name}, {embedder.model_id}: {len(tool)} tool questions, {len(none)} no-tool questions, "
          f"AUC {auc(tool, none):.3f}")
    for t in thresholds:
        print(f"  gate below {t:.2f}: catches {sum(s < t for s in none):>2}/{len(none)} no-tool questions, "
              f"stops {sum(s < t for s in tool):>2}/{len(tool)} tool questions")
    lowest = sorted((s, q) for s, answerable, q in scores if answerable)[:4]
    print("  lowest tool questions: " + "; ".join(f"{s:.3f} {q[:48]}" for s, q in lowest))


class ModelFit:
    """The local model's fit score (``agent.ToolFit``), read as an embedder-like object by ``report``."""
    model_id = "local model, log-probability gain"

    def __init__(self) -> None:
        from handmade_agent.agent import ToolFit
        self.fit = ToolFit()

    def scores(self, question: str, texts: list[str]) -> list[float]:
        alone = self.fit.logprob("A question:", question)
        return [self.fit.logprob(f"Tool: {t}\nA question this tool answers:", question) - alone for t in texts]


def main(argv: list[str]) -> None:
    sets = {"unfamiliar tools": unfamiliar_items(), "evaluation suite": suite_items()}
    if "--limit" in argv:
        n = int(argv[argv.index("--limit") + 1])
        sets = {name: [i for i in items if i[2]][:n] + [i for i in items if not i[2]][:max(1, n // 2)]
                for name, items in sets.items()}
    if "--model" in argv:
        scorer = ModelFit()
        for name, items in sets.items():
            report(name, scorer, items, thresholds=(0.0, 2.0, 4.0))
        return
    from handmade_agent.rag import SentenceTransformerEmbedder, USEEmbedder
    for embedder in (USEEmbedder(), SentenceTransformerEmbedder()):
        for name, items in sets.items():
            report(name, embedder, items)


if __name__ == "__main__":
    main(sys.argv[1:])
