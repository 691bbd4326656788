"""mkdocs-jupyter's HTML of the notebook page reduced to what Material shows on every page.

Its template (0.26.3: no option for any of this) puts ~590 KB of JupyterLab CSS and scripts
before the cells and ten nested wrappers in each code cell. What is kept: one `div.jp-Cell`
per cell; code as a Material code block without Pygments' name and whitespace spans;
permalinks with the theme's class; math as pymdownx.arithmatex writes it on every other page,
so that the math renderer finds it there too.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

from anatomia_engine.errors import EngineError

# Math of a Markdown cell as nbconvert leaves it: `$…$` / `$$…$$` in text, never in code or
# inside a tag (group 1 matches those, to be left as they are).
_MATH = re.compile(r"(<(pre|code)\b.*?</\2>|<[^>]*>)|\$\$([^<]+?)\$\$|\$([^<$]+?)\$", re.DOTALL)


def material_html(html_text: str, where: str) -> str:
    """mkdocs-jupyter's HTML reduced to the notebook, one `div.jp-Cell` per cell."""
    start = html_text.find('<div class="jupyter-wrapper">')
    # Without its wrapper the template changed, and nothing below would find a cell.
    if start < 0:
        raise EngineError("no_wrapper", where=where)
    soup = BeautifulSoup(html_text[start:], "html.parser")
    # Elements are found by tag and class with find_all, not CSS selectors: soupsieve's
    # matching took half of this function's time, for selectors this simple.
    wrapper = soup.find("div", class_="jupyter-wrapper")
    for cell in wrapper.find_all("div", class_="jp-Cell", id=True):
        _keep_cell(soup, cell)
    wrapper.find("div", class_="jp-Notebook").unwrap()
    for block in wrapper.find_all("div", class_="highlight-ipynb"):
        block["class"] = ["highlight"]
    blocks = wrapper.find_all("div", class_="highlight")
    # Code cells and code in Markdown cells: <pre><code>, as Material styles it.
    for block in blocks:
        for pre in block.find_all("pre", recursive=False):
            code = soup.new_tag("code")
            code.extend([c for c in list(pre.contents) if _kept_in_code(c)])
            pre.clear()
            pre.append(code)
    # Pygments' spans of names and white space colour nothing in Material's theme.
    for block in blocks:
        for span in block.find_all("span", class_=["n", "w"]):
            # a block inside another block has its spans listed twice
            if span.parent is not None:
                span.unwrap()
    for link in wrapper.find_all("a", class_="anchor-link"):
        link["class"] = ["headerlink"]
        link["title"] = "Odnośnik do tej sekcji"
    return _MATH.sub(_arithmatex, str(wrapper))


def _keep_cell(soup, cell) -> None:
    """Replace a cell's wrappers with one div: the code and its outputs, or the rendered text."""
    # A code cell sits in a second div.jp-Cell: the outer one is replaced.
    outer = cell
    if "jp-Cell" in cell.parent.get("class", []):
        outer = cell.parent
    if "jp-CodeCell" in cell["class"]:
        attrs = {"class": "jp-Cell jp-CodeCell", "id": cell["id"]}
        kept = soup.new_tag("div", attrs=attrs)
        kept.extend(cell.find_all("div", class_="highlight-ipynb"))
        shown = cell.find_all(class_="jp-OutputArea-output")
        if shown:
            wrapper = soup.new_tag("div", attrs={"class": "jp-Cell-outputWrapper"})
            wrapper.extend(shown)
            kept.append(wrapper)
    else:
        kept = cell.find(class_="jp-RenderedMarkdown")
        classes = "jp-Cell jp-MarkdownCell jp-RenderedMarkdown"
        kept.attrs = {"class": classes, "id": cell["id"]}
    outer.replace_with(kept)


def _kept_in_code(node) -> bool:
    # An empty span without attributes is Pygments' leftover; text and marked spans stay.
    return node.name != "span" or bool(node.get_text()) or bool(node.attrs)


def _arithmatex(m: re.Match) -> str:
    """Math as pymdownx.arithmatex (generic) writes it on every other page, for the renderer."""
    if m[1] is not None:
        return m[1]
    if m[3] is not None:
        return f'<span class="arithmatex arithmatex-display">\\[{m[3]}\\]</span>'
    return f'<span class="arithmatex">\\({m[4]}\\)</span>'
