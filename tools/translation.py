"""The Chinese edition of a notebook: the English edition's code and outputs, Chinese prose, kept in step.

``notebooks/zh/NN_topic.ipynb`` has the same cells, in the same order with the same ids, as
``notebooks/NN_topic.ipynb``. Code cells (source, outputs, tags) are copied from the English
edition by ``sync``, so one nbval run of the English notebooks covers the code of both. Each
Chinese markdown cell records the hash of the English text it translates
(``metadata.handmade_agent.translates``): when the English prose changes, ``problems`` names the
cell as stale instead of letting the editions drift apart silently.

Left out on purpose: machine translation (the prose is written by people), and translating text
that a code cell prints (the outputs are the English run's, byte for byte).

    python tools/translation.py sync notebooks/03_agent_loop.ipynb notebooks/zh/03_agent_loop.ipynb
    python tools/translation.py apply notebooks/zh/03_agent_loop.ipynb cells.json  # {"cell id": "中文…"}
    python tools/translation.py check notebooks/03_agent_loop.ipynb notebooks/zh/03_agent_loop.ipynb

    >>> english_hash({"cell_type": "markdown", "source": ["# Tools"]})
    '6ae8c3fff687'
"""
from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path

CJK = re.compile(r"[\u4e00-\u9fff]")


def text(cell: dict) -> str:
    """A cell's source as one string (notebook files may store it as a list of lines)."""
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def english_hash(cell: dict) -> str:
    """The first 12 hex digits of the sha256 of an English cell's text: what a translation is of."""
    return hashlib.sha256(text(cell).encode("utf-8")).hexdigest()[:12]


def translated_from(cell: dict) -> str | None:
    return cell.get("metadata", {}).get("handmade_agent", {}).get("translates")


def sync(english: dict, edition: dict | None) -> dict:
    """The edition with every code cell, the cell order and the notebook metadata taken from ``english``.

    Markdown cells keep the edition's text when it has a cell of that id; a cell it lacks is copied
    in English, unmarked, so ``problems`` reports it as untranslated.
    """
    mine = {c.get("id"): c for c in (edition or {}).get("cells", []) if c["cell_type"] == "markdown"}
    cells = []
    for cell in english["cells"]:
        new = copy.deepcopy(cell)
        if cell["cell_type"] == "markdown" and cell.get("id") in mine:
            old = mine[cell["id"]]
            new["source"] = old["source"]
            if translated_from(old):
                new.setdefault("metadata", {})["handmade_agent"] = {"translates": translated_from(old)}
        cells.append(new)
    out = copy.deepcopy(english)
    out["cells"] = cells
    out["metadata"].setdefault("handmade_agent", {})["edition"] = "zh"
    return out


def translate(edition: dict, english: dict, cell_id: str, chinese: str) -> None:
    """Put ``chinese`` in the edition's cell ``cell_id``, recording which English text it translates."""
    source = {c.get("id"): c for c in english["cells"]}.get(cell_id)
    if source is None or source["cell_type"] != "markdown":
        raise KeyError(f"{cell_id!r} is not a markdown cell of the English notebook; run `sync` first")
    for cell in edition["cells"]:
        if cell.get("id") == cell_id:
            cell["source"] = chinese
            cell.setdefault("metadata", {})["handmade_agent"] = {"translates": english_hash(source)}
            return
    raise KeyError(f"the edition has no cell {cell_id!r}; run `sync` first")


def problems(english: dict, edition: dict) -> list[str]:
    """Every way the edition is out of step with the English notebook (an empty list: in step)."""
    found = []
    ids = [c.get("id") for c in english["cells"]], [c.get("id") for c in edition["cells"]]
    if ids[0] != ids[1]:
        return ["the cells differ in order or ids from the English edition: run `sync`"]
    for en, zh in zip(english["cells"], edition["cells"]):
        where = f"cell {en.get('id')}"
        if en["cell_type"] != zh["cell_type"]:
            found.append(f"{where}: {zh['cell_type']} here, {en['cell_type']} in English")
        elif en["cell_type"] == "code":
            for key in ("source", "outputs", "metadata"):
                if (text(en) if key == "source" else en.get(key)) != (text(zh) if key == "source" else zh.get(key)):
                    found.append(f"{where}: its {key} is not the English edition's: run `sync`")
        elif translated_from(zh) is None or not CJK.search(text(zh)):
            found.append(f"{where}: not translated yet")
        elif translated_from(zh) != english_hash(en):
            found.append(f"{where}: the English text changed since it was translated")
    return found


def read(path: str | Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write(nb: dict, path: str | Path) -> None:
    """Write as Jupyter does (sorted keys, one-space indent, UTF-8 kept), so opening it changes nothing."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(nb, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    import sys
    args = sys.argv[1:] if argv is None else argv
    usage = "usage: python tools/translation.py sync|check EN.ipynb ZH.ipynb | apply ZH.ipynb CELLS.json"
    if len(args) != 3 or args[0] not in ("sync", "check", "apply"):
        raise SystemExit(usage)
    if args[0] == "apply":
        edition = read(args[1])
        english = read(Path(args[1]).parent.parent / Path(args[1]).name)
        for cell_id, chinese in read(args[2]).items():
            translate(edition, english, cell_id, chinese)
        write(edition, args[1])
        return
    english = read(args[1])
    edition = read(args[2]) if Path(args[2]).exists() else None
    if args[0] == "sync":
        write(sync(english, edition), args[2])
        edition = read(args[2])
    left = problems(english, edition) if edition else ["no Chinese edition yet: run `sync`"]
    print("\n".join(left) or f"{args[2]}: in step with {args[1]}")
    if args[0] == "check" and left:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
