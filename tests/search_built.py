"""The shipped search files read back as the worker reads them (search-pl.js decodes the same way),
for the tests and the search benchmark."""

from __future__ import annotations

import json
from pathlib import Path


def decode_table(shipped: dict) -> dict[str, str]:
    """Folded form -> key back from `search_pl.encode_table`'s form."""
    table = {}
    for stem, number in shipped["lexemes"]:
        own, _, endings = shipped["paradigms"][number].partition("|")
        table.update({stem + ending: stem + own for ending in endings.split(",")})
    return table


def load_built(site_dir: Path) -> tuple[dict, dict[str, str]]:
    """(index, form table) of a built site."""
    search = Path(site_dir) / "search"
    config = json.loads((search / "search_index.json").read_text(encoding="utf-8"))["config"]
    index, forms = (json.loads((search / config[kind]).read_text(encoding="utf-8"))
                    for kind in ("pl_index", "pl_forms"))
    return index, decode_table(forms)
