"""The attention explorer on /llm/anatomia/#uwaga: presets, maths, mask, editing, safety, keyboard.

The first tests read figures_src/explorer.py and the built page. The browser tests drive the
Debian Chromium at /usr/bin/chromium with playwright (never `playwright install`): a fresh
strict build is served by http.server on 127.0.0.1, and every request to any other host is
aborted and fails the test, so the page is checked to work offline. The weights the page
computes are compared with attn_core.scaled_dot_product_attention.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from bs4 import BeautifulSoup

from figures_src import explorer

PAGE = "llm/anatomia/index.html"


# --- the built page -----------------------------------------------------------------------

def test_page_embeds_the_presets_and_loads_only_local_files(built_site):
    site = built_site
    soup = BeautifulSoup((site / PAGE).read_text(encoding="utf-8"), "html.parser")
    heading = soup.find(id="uwaga")
    assert heading is not None and heading.name == "h2" and heading.get_text().startswith("Uwaga")
    code = soup.find("script", id="explorer-presets").string.strip()
    prefix = "window.attentionExplorerData = "
    assert code.startswith(prefix) and code.endswith(";")
    embedded = json.loads(code[len(prefix):-1])
    assert embedded == json.loads(json.dumps({"presets": list(explorer.presets()),
                                              "limits": explorer.LIMITS,
                                              "tasks": list(explorer.tasks())}))
    assert soup.select_one("[data-attention-explorer]") is not None
    assert "JavaScript" in soup.find("noscript").get_text()
    page_dir = (site / PAGE).parent
    local = [s["src"] for s in soup.find_all("script", src=True)]
    local += [link["href"] for link in soup.find_all("link", rel="stylesheet")]
    assert "../../javascripts/explorer.js" in local and "../../stylesheets/explorer.css" in local
    for ref in local:
        assert not urlsplit(ref).scheme and not ref.startswith("//"), f"remote asset {ref}"
        assert (page_dir / urlsplit(ref).path).resolve().is_file(), f"missing asset {ref}"
    script = (site / "javascripts/explorer.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                 "http://", "https://", "fetch(", "XMLHttpRequest", "import("):
        if sink == "http://":  # the SVG namespace is a name, not a request
            assert script.count(sink) == script.count("http://www.w3.org/2000/svg"), sink
        else:
            assert sink not in script, f"explorer.js uses {sink}"
