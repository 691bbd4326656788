"""Pages of a test's own holding hostile and large values, rendered as MkDocs renders a page: for the
output contexts' tests and for the child processes that evaluate expressions under a time limit."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import markdown as pymd
import numpy as np
import pytest
from mkdocs.exceptions import BuildError

from anatomia_engine import codec
from anatomia_engine.kit import Table
from helpers import convert_page

HEAD = "---\ncomputed: [demo]\n---\n"  # the page's line 1 is line 4 of its file
HOSTILE = 'a"b</script><script>alert(2)</script><!--<script>'
VALUES = {
    "p": 0.3105, "n": 4096, "xs": np.array([0.42, 0.91]), "s": HOSTILE, "names": ["alfa", "beta"],
    "big": 2**53 + 1, "below": 2**53, "huge": 10**30, "wide": np.int64(2**62 + 1),
}


def figure_result() -> dict:
    table = codec.encode_value(Table(["token", "p"], [["cat", 0.2]]))
    return {"files": {"light": "f-light.svg", "dark": "f-dark.svg", "csv": "f.csv"}, "alt": "Mapa wag",
            "caption": "Wagi", "table": table}


def convert(body: str) -> tuple[str, pymd.Markdown]:
    results = {"demo": SimpleNamespace(values=VALUES, meta={}, figures={"fig": figure_result()},
                                       folder=Path("."), files=[])}
    return convert_page(body, HEAD + body, results)


def page(body: str) -> str:
    return convert(body)[0]


def error(body: str) -> BuildError:
    """The error that stops the page `body`: an EngineError (its id, where and fields), or a
    message the Markdown extension still formats itself."""
    with pytest.raises(BuildError) as info:
        page(body)
    return info.value


def causes(exc: BaseException) -> list[str]:
    """The catalogue ids of `exc` and of the errors it was raised from, outermost first."""
    ids = []
    while exc is not None:
        ids.append(getattr(exc, "id", type(exc).__name__))
        exc = exc.__cause__
    return ids
