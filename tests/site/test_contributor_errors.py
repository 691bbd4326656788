"""The built contributor page shows every message of the engine's catalogue, as the engine
writes it, with its cause and fix (the tables are generated; this checks the chain to the page)."""

import html
import re

from anatomia_engine import messages
from helpers import whole_page


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def test_the_contributor_page_lists_every_catalogued_message(built_site):
    page = whole_page(built_site / "jak-dodac-wartosc" / "index.html")
    rows = {_text(code): _text(rest) for code, rest in
            re.findall(r"<tr>\s*<td[^>]*><code>(.*?)</code></td>(.*?)</tr>", page, re.DOTALL)}
    for m in messages.CATALOGUE.values():
        shown = " ".join(m.example().split())
        assert shown in rows, f"the page does not list {m.id!r}: {shown}"
        assert " ".join(m.cause.replace("`", "").split()) in rows[shown], m.id
        assert " ".join(m.fix.replace("`", "").split()) in rows[shown], m.id
