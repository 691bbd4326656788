"""The two copies of the executed notebook: the page's and the one readers download.

Cell tags (jupytext: `# %% tags=["solution"] exercise=1`):

- `remove_cell`: left out of the page (the download keeps it);
- `solution`: cells with the same `exercise=N` form one collapsible "Rozwiązanie ćwiczenia N"
  on the page, and are collapsed in the download;
- `repo-only`: needs the project's own code; a note in the download.

An image needs alt text: `display(fig, metadata={"alt": "..."})`.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import html
import re

import nbformat

from anatomia_engine.errors import EngineError

REPO_ONLY_NOTE = (
    "*W tym miejscu przy budowaniu strony działa ukryta komórka, która porównuje wyniki notatnika "
    "z biblioteką `attn_core` projektu (tą samą, z której liczą pozostałe strony). Poza repozytorium "
    "projektu tej biblioteki nie ma, więc w pobranym notatniku komórkę pominięto.*"
)
_IMAGE_TYPES = {"image/svg+xml", "image/png"}
# What an SVG needs no longer as a file of its own (the declarations, the creation metadata).
_SVG_PROLOGUE = re.compile(r"<\?xml[^>]*\?>\s*|<!DOCTYPE[^>]*>\s*|<metadata>.*?</metadata>\s*",
                           re.DOTALL)
_SVG_SIZE = re.compile(r'<svg[^>]*?\swidth="([\d.]+)pt"[^>]*?\sheight="([\d.]+)pt"')


# ---------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------


def figure_html(data: dict, alt: str, figures: dict[str, bytes]) -> str:
    """An <img> with alt text (nbconvert's has none) for an image output.

    Its file, named by its content, goes into `figures`. It is sized in CSS px, so that the
    layout stays still while it loads, and loaded lazily.
    """
    if "image/svg+xml" in data:
        svg = _svg_file(data["image/svg+xml"])
        image = svg.encode("utf-8")
        kind = "svg"
        size = _svg_size(svg)
    else:
        image = base64.b64decode(data["image/png"])
        kind = "png"
        # The width and the height in the PNG's header (IHDR).
        size = (int.from_bytes(image[16:20], "big"), int.from_bytes(image[20:24], "big"))
    name = f"rysunek-{hashlib.sha256(image).hexdigest()[:12]}.{kind}"
    figures[name] = image
    dims = ""
    if size:
        dims = f' width="{size[0]}" height="{size[1]}"'
    return (f'<img alt="{html.escape(alt)}" class="lab-figure" src="{name}"{dims}'
            ' loading="lazy" decoding="async">')


def _svg_file(svg: str) -> str:
    svg = _SVG_PROLOGUE.sub("", svg)
    # A generic family after the one named: the reader's device may not have DejaVu Sans.
    return re.sub(r"font-family: ('[^']+')(?:, [^;\"]+)?", r"font-family: \1, sans-serif", svg)


def _svg_size(svg: str) -> tuple[int, int] | None:
    """The SVG's size in CSS px (matplotlib writes points: 1 pt = 4/3 px)."""
    found = _SVG_SIZE.search(svg)
    if found is None:
        return None
    return round(float(found[1]) * 4 / 3), round(float(found[2]) * 4 / 3)


def _figures_as_files(cell, index: int, where: str, figures: dict[str, bytes]) -> None:
    """Each image output of `cell` as an <img> of a file in `figures`."""
    for output in cell.get("outputs", []):
        if not _IMAGE_TYPES & set(output.get("data", {})):
            continue
        alt = str(output.get("metadata", {}).get("alt", "")).strip()
        if not alt:
            raise EngineError("cell_no_alt", where=where, cell=index + 1)
        output["data"] = {"text/html": figure_html(output["data"], alt, figures)}
        output["metadata"] = {}


# ---------------------------------------------------------------------------------------------
# The page's copy
# ---------------------------------------------------------------------------------------------


def _raw_html(text: str, cell_id: str):
    return nbformat.v4.new_raw_cell(text, metadata={"raw_mimetype": "text/html"}, id=cell_id)


def _solution_summary(cell, tags: list[str]) -> str | None:
    """The summary of the collapsible block `cell` belongs to, or None for none."""
    if "solution" not in tags:
        return None
    exercise = cell.metadata.get("exercise")
    if exercise:
        return f"Rozwiązanie ćwiczenia {exercise}"
    return "Rozwiązanie"


def page_notebook(executed, where: str, download_href: str, download_name: str):
    """The executed notebook as the page shows it, and its figures.

    Tags applied and dropped (mkdocs-jupyter would show them), images as files with their alt
    text, the download button under the `# title`.
    """
    nb = copy.deepcopy(executed)
    cells = []
    figures = {}
    # The summary of the <details> open around the cells so far, None when none is open.
    current = None
    for index, cell in enumerate(nb.cells):
        tags = cell.metadata.pop("tags", [])
        if "remove_cell" in tags:
            continue
        _figures_as_files(cell, index, where, figures)
        summary = _solution_summary(cell, tags)
        if summary != current and current is not None:
            cells.append(_raw_html("</details>", f"{cell.id}-end"))
        if summary != current and summary is not None:
            opening = f'<details class="success">\n<summary>{html.escape(summary)}</summary>'
            cells.append(_raw_html(opening, f"{cell.id}-begin"))
        current = summary
        cells.append(cell)
    if current is not None:
        cells.append(_raw_html("</details>", "end"))
    _add_download_button(cells, where, download_href, download_name)
    nb.cells = cells
    return nb, figures


def _add_download_button(cells, where: str, download_href: str, download_name: str) -> None:
    """The download button under the first `# title` of a Markdown cell."""
    for cell in cells:
        if cell.cell_type != "markdown":
            continue
        title = re.search(r"^# .*$", cell.source, re.MULTILINE)
        if title is None:
            continue
        button = (f'<p class="lab-download"><a class="md-button" href="{html.escape(download_href)}" '
                  f'download="{html.escape(download_name)}">Pobierz notatnik (.ipynb)</a></p>')
        end = title.end()
        cell.source = cell.source[:end] + f"\n\n{button}\n" + cell.source[end:]
        return
    raise EngineError("no_title", where=where)


# ---------------------------------------------------------------------------------------------
# The download
# ---------------------------------------------------------------------------------------------


def download_notebook(executed, where: str):
    """What readers download: no outputs, project-only cells replaced by a note, solutions
    collapsed (a reader tries the exercise first)."""
    nb = copy.deepcopy(executed)
    for index, cell in enumerate(nb.cells):
        tags = cell.metadata.get("tags", [])
        if "repo-only" in tags:
            cell = nbformat.v4.new_markdown_cell(REPO_ONLY_NOTE, id=cell.id)
            nb.cells[index] = cell
        if "solution" in tags:
            cell.metadata["jupyter"] = {"source_hidden": True, "outputs_hidden": True}
        # The reader's own run fills them.
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        raise EngineError("bad_nbformat", where=where, problem=exc) from None
    return nb
