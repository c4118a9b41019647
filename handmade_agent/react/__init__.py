"""Chapter 02: the ReAct text protocol — the prompt that teaches it, and the parser that reads it.

``build_system_prompt(tools)`` and ``few_shot_messages(tools)`` write what the model is shown
(``prompt.py``, worked examples in ``examples.py``, chosen per question by ``choice.py``); ``parse(reply)`` reads one step back as an
``Action`` or a ``FinalAnswer`` (``parser.py``: labels in ``labels.py``, actions in ``actions.py``,
argument repair in ``repair.py``) or raises ``FormatError`` with feedback for the model.
``react_grammar(tools)`` (``grammar.py``) is the same format as a GBNF grammar, for constrained decoding.

    >>> parse("Thought: easy\\nFinal Answer: 4").answer
    '4'
"""
from .repair import loads_lenient
from .choice import choose_examples
from .examples import Call, Example, example_pool
from .labels import split_blocks
from .grammar import react_grammar
from .parser import Action, FinalAnswer, parse
from .prompt import (FORMAT_HELP, STOP, build_system_prompt, describe_tools, few_shot_messages, final_text,
                     first_sentence, format_help, observation_text, prompt_messages, step_text)

__all__ = ["final_text", "observation_text", "step_text", "parse", "Action", "FinalAnswer", "STOP", "FORMAT_HELP", "format_help", "build_system_prompt", "few_shot_messages",
           "describe_tools", "first_sentence", "split_blocks", "loads_lenient", "react_grammar", "prompt_messages", "choose_examples",
           "Example", "Call", "example_pool"]
