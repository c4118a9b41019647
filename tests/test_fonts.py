"""CJK fonts for matplotlib figures: the first installed family is used; without one, one hint and no spam."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("matplotlib")
from matplotlib import font_manager  # noqa: E402

from handmade_agent.widgets import fonts  # noqa: E402


def draw(title: str) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=(2, 1))
    FigureCanvasAgg(fig)
    fig.add_subplot().set_title(title)
    fig.canvas.draw()


@pytest.fixture
def no_cjk_font(monkeypatch):
    """This machine as if it had no CJK font (whatever it really has)."""
    monkeypatch.setattr(font_manager.fontManager, "ttflist",
                        [f for f in font_manager.fontManager.ttflist if f.name not in fonts.CJK_FAMILIES])
    monkeypatch.setattr(fonts, "_told", False)
    monkeypatch.setattr(fonts, "_scanned", True)  # and no font files on disk to find


def test_the_first_installed_cjk_family_is_picked_and_added_after_the_latin_fonts(monkeypatch):
    dejavu = next(f for f in font_manager.fontManager.ttflist if f.name == "DejaVu Sans")
    fake = [font_manager.FontEntry(fname=dejavu.fname, name=n) for n in ("SimHei", "WenQuanYi Zen Hei")]
    latin_only = [f for f in font_manager.fontManager.ttflist if f.name not in fonts.CJK_FAMILIES]
    monkeypatch.setattr(font_manager.fontManager, "ttflist", latin_only + fake)  # whatever CJK fonts are real here
    monkeypatch.setattr(fonts, "_scanned", True)
    assert fonts.cjk_font() == "WenQuanYi Zen Hei"  # earlier in CJK_FAMILIES than SimHei
    rc = fonts.cjk_rc()
    assert rc["font.family"] == ["sans-serif", "WenQuanYi Zen Hei"]  # Latin text keeps its usual font
    with fonts.cjk_figures("北京") as font:
        import matplotlib
        assert font == "WenQuanYi Zen Hei" and matplotlib.rcParams["font.family"][-1] == font
    assert matplotlib.rcParams["font.family"] == ["sans-serif"]  # only inside the block


def test_without_a_cjk_font_one_hint_and_no_glyph_warnings(no_cjk_font):
    assert fonts.cjk_font() is None and fonts.cjk_rc() == {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            with fonts.cjk_figures("北京明天天气") as font:
                draw("北京明天天气")
    assert font is None
    assert [type(w.message) for w in caught] == [fonts.CJKFontMissing]
    assert "fonts-noto-cjk" in str(caught[0].message)


def test_latin_only_figures_give_no_hint(no_cjk_font):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with fonts.cjk_figures("step 1", "model 2 s"):
            draw("step 1")
    assert caught == []


def test_a_font_installed_after_matplotlib_cached_its_list_is_found(monkeypatch):
    if not any(fonts._CJK_FILE.search(f) for f in font_manager.findSystemFonts()):
        pytest.skip("no CJK font file on this machine")
    monkeypatch.setattr(font_manager.fontManager, "ttflist",
                        [f for f in font_manager.fontManager.ttflist if f.name not in fonts.CJK_FAMILIES])
    monkeypatch.setattr(fonts, "_scanned", False)
    assert fonts.cjk_font() in fonts.CJK_FAMILIES


def test_a_real_cjk_font_draws_chinese_without_missing_glyphs():
    if fonts.cjk_font() is None:
        pytest.skip("no CJK font installed here (Debian: apt-get install fonts-noto-cjk)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with fonts.cjk_figures("北京 tomorrow"):
            draw("北京 tomorrow")
    assert not [w for w in caught if "missing from" in str(w.message)]
