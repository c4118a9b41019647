"""What a learner does with each panel in the browser, and what must then be on screen.

One function per panel of ``browser_notebook.py``: it clicks, types, selects or slides through the
panel's output area and waits (Playwright's ``expect`` retries) for the DOM to show the result. What
the Python side holds is checked by the test, from the notebook's last cell. ``watch_console``
collects browser console errors and uncaught exceptions.

Deliberately left out: checks of styling (screenshots show that) and of every control (one action per
kind of control is enough to show the widget round trip works).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from playwright.sync_api import Locator, Page, expect

PANELS = ("trace", "debugger", "retrieval", "memory", "chunks")  # code cells 2..6 of the panels notebook


def watch_console(page: Page) -> list[str]:
    """Console errors and uncaught page exceptions, as they happen."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
    return errors


def outputs(page: Page) -> dict[str, Locator]:
    """Each panel's output area, by name (the setup cell has none)."""
    cells = page.locator(".jp-NotebookPanel .jp-CodeCell")
    return {name: cells.nth(i + 1).locator(".jp-OutputArea-output").first for i, name in enumerate(PANELS)}


def check_trace(out: Locator) -> None:
    """Four collapsible steps, the latest open, errors marked, the chart drawn; a click opens step 1."""
    headers, bodies = out.locator(".jupyter-widget-Collapse-header"), out.locator(".jupyter-widget-Collapse-contents")
    expect(headers).to_have_count(4)
    expect(headers.nth(1)).to_contain_text("⚠ Step 2 · format error")
    expect(bodies.nth(3)).to_be_visible()
    expect(bodies.nth(0)).to_be_hidden()
    expect(out).to_contain_text("final_answer · 4 steps")
    expect(out.locator(".widget-image")).to_be_visible()  # the timeline, drawn when the run finished
    headers.nth(0).click()
    expect(bodies.nth(0)).to_be_visible()
    expect(bodies.nth(0)).to_contain_text("I need the weather.")


def drive_debugger(out: Locator, replies: list[str], edited: str, shot: Path) -> None:
    """Ask, overwrite the reply, parse & act, ask again (screenshot), run to the end."""
    ask, act, end = (out.get_by_role("button", name=n) for n in ("① Ask the model", "② Parse & act", "▶▶ Run to end"))
    reply = out.locator("textarea")
    ask.click()
    expect(reply).to_have_value(replies[0])
    expect(out).to_contain_text("The loop will run the tool.")
    reply.fill(edited)  # typing sends the text to the kernel, which re-reads it with the parser
    expect(out).to_contain_text("Action: convert_temperature")
    act.click()
    expect(reply).to_have_value("")
    expect(out.locator("summary", has_text="✎ edited")).to_have_count(1)
    expect(out).to_contain_text("212")  # 100 °C in °F: the tool the learner typed really ran
    ask.click()
    expect(reply).to_have_value(replies[1])
    expect(out).to_contain_text("Format error 1 in a row.")
    out.screenshot(path=shot)
    end.click()
    expect(out).to_contain_text("Run finished: final_answer after 4 steps")
    for button in (ask, act, end):
        expect(button).to_be_disabled()
    expect(out).not_to_contain_text("② will ask the model itself")  # ② is disabled: the preview must not promise it


def drive_retrieval(out: Locator, query: str, method: str) -> list[str]:
    """Type a query (Enter sends it), switch the method; the chunk ids shown, best first."""
    box = out.locator(".widget-text input")
    box.fill(query)
    box.press("Enter")
    expect(out.locator(".handmade-retrieval")).to_contain_text(f"· {query}")
    out.locator(".widget-dropdown select").select_option(method)
    expect(out.locator(".handmade-retrieval")).to_contain_text(f"{method} · {query}")
    return out.locator(".handmade-retrieval code").all_inner_texts()


def drive_memory(out: Locator) -> Callable[[], None]:
    """Slide "max turns" from 3 to 4: a preview with two fewer evicted messages. Returns the reset step."""
    evicted = out.locator("td", has_text=re.compile(r"^evicted$"))
    expect(evicted).to_have_count(6)
    handle = out.locator(".widget-slider").first.locator(".noUi-handle")
    handle.focus()
    handle.press("ArrowRight")
    expect(out).to_contain_text("Memory (preview of other limits)")
    expect(evicted).to_have_count(4)
    button = out.get_by_role("button", name="memory's own limits")
    assert button.evaluate("b => b.scrollWidth <= b.clientWidth"), "the button's label is cut off"
    table_box = out.locator("table").evaluate("t => t.parentElement.style.maxHeight")
    assert table_box, "a long memory needs a scroll box"

    def reset() -> None:
        button.click()
        expect(out).not_to_contain_text("preview of other limits")
        expect(evicted).to_have_count(6)
    return reset


def drive_chunks(out: Locator, doc: str) -> int:
    """Switch to fixed-size chunks, then to another document; the number of chunks shown."""
    title = out.locator(".handmade-chunks b").first
    before = title.inner_text()
    out.get_by_role("button", name="fixed").click()
    expect(title).not_to_have_text(before)
    out.locator(".widget-dropdown select").select_option(doc)
    expect(title).to_contain_text(doc.split("/")[1] + ":")
    return int(re.search(r": (\d+) chunks", title.inner_text()).group(1))


def rerun_last_cell(page: Page) -> str:
    """Run the notebook's last cell again (Ctrl+Enter, in place) and return its printed text."""
    cell = page.locator(".jp-NotebookPanel .jp-CodeCell").last
    count = len(page.locator(".jp-NotebookPanel .jp-CodeCell").all())
    cell.locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")
    expect(cell.locator(".jp-InputPrompt")).to_contain_text(f"[{count + 1}]")
    out = cell.locator(".jp-OutputArea-output")
    expect(out).to_contain_text("}")  # the whole line has arrived
    return out.inner_text()
