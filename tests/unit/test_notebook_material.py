"""notebooks.material_html on a page shaped as mkdocs-jupyter's template writes it (no conversion
run): the cells kept as Material shows them, the rest of the template gone."""

import pytest
from bs4 import BeautifulSoup

from anatomia_engine import notebooks
from anatomia_engine.errors import EngineError

TEMPLATE = """<html><head><style>.jp-Cell {}</style><script>var x = 1;</script></head><body>
<div class="jupyter-wrapper"><div class="jp-Notebook">
<div class="jp-Cell jp-MarkdownCell" id="cell-0"><div class="jp-Cell-inputWrapper"><div class="x">
<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown jp-MarkdownOutput">
<h2 id="Krok">Krok<a class="anchor-link" href="#Krok">¶</a></h2>
<p>Wymiar $d_k$ i wzór $$QK^\\top$$, w kodzie <code>$x$</code>.</p>
<div class="highlight-ipynb"><pre><span></span><span class="n">np</span><span class="o">.</span></pre></div>
</div></div></div></div>
<div class="jp-Cell jp-CodeCell jp-Notebook-cell">
<div class="jp-Cell jp-CodeCell" id="cell-1"><div class="jp-Cell-inputWrapper"><div class="jp-InputArea">
<div class="highlight-ipynb"><pre><span></span><span class="n">a</span><span class="w"> </span>\
<span class="o">=</span><span class="w"> </span><span class="mi">1</span>
</pre></div></div></div>
<div class="jp-Cell-outputWrapper"><div class="jp-OutputArea">
<div class="jp-OutputArea-child"><div class="jp-OutputPrompt"></div>
<div class="jp-RenderedText jp-OutputArea-output"><pre>1</pre></div></div></div></div>
</div></div>
<div class="jp-Cell jp-CodeCell jp-Notebook-cell">
<div class="jp-Cell jp-CodeCell" id="cell-2"><div class="jp-Cell-inputWrapper">
<div class="highlight-ipynb"><pre><span></span><span class="k">pass</span></pre></div></div></div></div>
</div></div>
<style>.highlight-ipynb .n {}</style>
</body></html>"""


@pytest.fixture(scope="module")
def kept() -> BeautifulSoup:
    return BeautifulSoup(notebooks.material_html(TEMPLATE, "docs/lab.py"), "html.parser")


def test_each_cell_is_one_div_in_the_wrapper_and_the_template_is_gone(kept):
    cells = kept.find_all("div", class_="jp-Cell")
    assert [cell["id"] for cell in cells] == ["cell-0", "cell-1", "cell-2"]
    assert [cell.parent for cell in cells] == [kept.div] * 3
    assert not kept.find_all(["script", "style"])
    assert not kept.find_all(class_=["jp-Notebook", "jp-Cell-inputWrapper", "jp-OutputPrompt"])


def test_code_is_a_material_code_block_without_the_spans_of_names_and_white_space(kept):
    code = kept.find(id="cell-1").find("div", class_="highlight").pre.code
    assert code.get_text() == "a = 1\n"
    assert [span["class"] for span in code.find_all("span")] == [["o"], ["mi"]]
    assert kept.find(id="cell-1").find(class_="jp-Cell-outputWrapper").get_text() == "1"
    assert kept.find(id="cell-2").find("code").get_text() == "pass"


def test_markdown_keeps_its_text_with_permalinks_and_math_as_arithmatex_writes_it(kept):
    cell = kept.find(id="cell-0")
    assert cell["class"] == ["jp-Cell", "jp-MarkdownCell", "jp-RenderedMarkdown"]
    assert cell.find("a")["class"] == ["headerlink"]
    math = [span.get_text() for span in cell.find_all("span", class_="arithmatex")]
    assert math == ["\\(d_k\\)", "\\[QK^\\top\\]"]
    assert cell.find("p").code.get_text() == "$x$"
    assert cell.find("div", class_="highlight").code.get_text() == "np."


def test_a_page_without_the_wrapper_is_refused():
    with pytest.raises(EngineError) as info:
        notebooks.material_html("<html><body><p>x</p></body></html>", "docs/lab.py")
    assert info.value.id == "no_wrapper"
