"""Interactive ipywidgets panels. ipywidgets and matplotlib are imported only when a panel is built.

Each panel also renders a static HTML form, so a committed notebook shows something on GitHub.
``TracePanel`` and ``StepDebugger`` (chapter 04), ``MemoryPanel`` (05), ``RetrievalPanel`` and
``ChunkViewer`` (06).
"""
from .chunks import ChunkViewer
from .debugger import StepDebugger
from .fonts import use_cjk_font
from .memory import MemoryPanel
from .retrieval import RetrievalPanel
from .trace import TracePanel

__all__ = ["TracePanel", "StepDebugger", "MemoryPanel", "RetrievalPanel", "ChunkViewer", "use_cjk_font"]
