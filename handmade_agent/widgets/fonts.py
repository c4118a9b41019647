"""Chinese text in matplotlib figures: use an installed CJK font, or fall back quietly and say once why.

matplotlib's default font (DejaVu Sans) has no Chinese glyphs: a label like ``北京`` comes out as boxes,
with one "Glyph … missing from font" warning per character per drawing. ``cjk_font()`` finds the first
installed font of the usual CJK families (Noto Sans CJK / Source Han Sans on Linux, PingFang on macOS,
Microsoft YaHei / SimHei on Windows, WenQuanYi...), also one installed after matplotlib cached its font list. ``cjk_rc()`` adds it *after* the current font
family, so Latin text looks as before and only characters those fonts lack come from the CJK font
(matplotlib ≥ 3.6 falls back glyph by glyph). ``cjk_figures()`` draws one figure with that setting;
``use_cjk_font()`` turns it on for a whole notebook. Without a CJK font, the glyph warnings are
silenced and one ``CJKFontMissing`` warning per process says what to install.

Deliberately left out: downloading fonts (nothing here touches the network) and the browser side
(panels are HTML: the browser picks its own fonts; see the README).

    >>> has_cjk("北京 tomorrow"), has_cjk("Beijing")
    (True, False)
"""
from __future__ import annotations

import re
import warnings
from contextlib import contextmanager
from typing import Iterator

# Most-used first: Noto Sans CJK (Debian/Ubuntu fonts-noto-cjk), Source Han Sans (the same font, Adobe's
# name), WenQuanYi (older Linux), then what macOS and Windows ship.
CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK JP", "Noto Sans SC", "Source Han Sans SC",
                "Source Han Sans CN", "Source Han Sans", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei", "PingFang SC",
                "Hiragino Sans GB", "Heiti SC", "STHeiti", "Microsoft YaHei", "SimHei", "SimSun", "Arial Unicode MS")
INSTALL_HINT = ("No CJK font found for matplotlib: Chinese labels in figures show as boxes. Install one "
                "(Debian/Ubuntu: sudo apt-get install fonts-noto-cjk; macOS and Windows already have one), "
                "then restart the kernel.")
_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
_CJK_FILE = re.compile(r"NotoSans(Mono)?CJK|NotoSansSC|SourceHanSans|wqy|msyh|simhei|simsun|PingFang|STHeiti|"
                       r"Hiragino Sans GB", re.I)
_told = False  # the hint is given once per process, not once per figure
_scanned = False  # the font directories are scanned at most once per process


class CJKFontMissing(UserWarning):
    """No installed font can draw Chinese text in a matplotlib figure."""


def has_cjk(text: str) -> bool:
    """Whether ``text`` has a Chinese, Japanese or Korean character (or a full-width sign)."""
    return bool(_CJK.search(text))


def cjk_font() -> str | None:
    """The first family of ``CJK_FAMILIES`` that matplotlib knows on this machine, or None."""
    from matplotlib import font_manager  # heavy: only when a figure is drawn
    installed = {f.name for f in font_manager.fontManager.ttflist}
    found = next((name for name in CJK_FAMILIES if name in installed), None)
    if found is None and _scan_once():
        return cjk_font()
    return found


def _scan_once() -> bool:
    """Add CJK font files installed after matplotlib cached its font list (it never looks again by itself)."""
    global _scanned
    if _scanned:
        return False
    _scanned = True
    from matplotlib import font_manager
    files = [f for f in font_manager.findSystemFonts() if _CJK_FILE.search(f.rsplit("/", 1)[-1])]
    for f in files:
        try:
            font_manager.fontManager.addfont(f)
        except (OSError, RuntimeError, ValueError):  # a file FreeType cannot read: skip it, not the figure
            pass
    return bool(files)


def cjk_rc(font: str | None = None) -> dict:
    """rcParams that add ``font`` (default: ``cjk_font()``) as the fallback font family; {} if there is none."""
    import matplotlib
    font = font or cjk_font()
    if font is None:
        return {}
    # matplotlib falls back glyph by glyph along font.family (a generic name like "sans-serif" counts
    # as one font), so the CJK font goes after the current families: Latin text keeps its usual font
    families = [f for f in matplotlib.rcParams["font.family"] if f != font]
    # unicode_minus off: some CJK fonts lack U+2212, and a figure would then warn about the minus sign
    return {"font.family": families + [font], "axes.unicode_minus": False}


def _tell(texts: tuple[str, ...]) -> None:
    global _told
    if not _told and any(has_cjk(t) for t in texts):
        _told = True
        warnings.warn(INSTALL_HINT, CJKFontMissing, stacklevel=4)


@contextmanager
def cjk_figures(*texts: str) -> Iterator[str | None]:
    """Draw figures inside this block with a CJK font if one is installed; yields its name (or None).

    ``texts``: the figure's text, so that the hint is given only when Chinese text is actually lost.
    """
    import matplotlib
    font = cjk_font()
    with matplotlib.rc_context(cjk_rc(font)), warnings.catch_warnings():
        if font is None:
            warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from (current )?font")
            _tell(texts)
        yield font


def use_cjk_font() -> str | None:
    """For a notebook: every later figure can draw Chinese labels. Returns the font used, or None (hint given)."""
    import matplotlib
    font = cjk_font()
    if font is None:
        _tell(("中文",))
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from (current )?font")
    else:
        matplotlib.rcParams.update(cjk_rc(font))
    return font
