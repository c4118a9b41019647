"""Chapter 05, memory: what a stateless model is shown of the conversation so far.

``ConversationMemory`` keeps turns and sends a window of them, by turns or by tokens, with the
system prompt pinned (``conversation.py``); ``SummaryMemory`` folds what falls out of the window
into a summary written by the model (``summary.py``); ``CompactingMemory`` (chapter 11) rewrites old turns as
one structured note near its budget and recalls them by question (``compaction.py``); ``memory_from_dict``
rebuilds any of them.

    >>> m = ConversationMemory(max_turns=1)
    >>> m.add({"role": "user", "content": "hi"}); m.add({"role": "user", "content": "again"})
    >>> [x.content for x in m.messages()]
    ['again']
"""
from .conversation import (ConversationMemory, Window, memory_from_dict, message_tokens, split_turns,
                           token_counter, window)
from .summary import SummaryMemory
from .compaction import CompactingMemory

__all__ = ["ConversationMemory", "SummaryMemory", "CompactingMemory", "memory_from_dict", "message_tokens", "split_turns", "window",
           "Window", "token_counter"]
