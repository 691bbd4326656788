"""The demo module's values on a page of a test's own, rendered through Python-Markdown with the
project's extensions (those of mkdocs.yml), as the build converts a page."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np

from anatomia_engine.kit import Table
from helpers import convert_page

ROOT = Path(__file__).resolve().parents[2]
TOKENS = ("cat", "chases")
HEAD = "---\ncomputed: [demo]\n---\n"  # so the page's line 1 is line 4 of its file
VALUES = {
    "w": np.array([[1.0, 0.0], [0.35434369377420455, 0.6456563062257954]]),
    "speedup": 2,
    "z": 0.0,
    "ints": np.array([1, 2, 3]),
    "p": 0.3105,
    "n": 4096,
    "name": "<b>kot</b>",
    "bar": "a | b",
    "masked": np.array([[0.71, -np.inf], [0.14, 0.74]]),
    "bad": float("nan"),
    "tab": Table(["token", "p"], [["cat", 0.2], ["chases", 0.3]], [None, "pct:1"]),
    "hi": 0.3501, "lo": 0.3499, "same": 0.3456, "same2": 0.3456,
    "a": 0.5650, "b": 0.1149, "near_a": 0.3449, "near_b": 0.3548,
    "huge": 1.5e300,
    "flag": True,
}
META = {
    "w": {"function": "weights", "what": "waga: {i} patrzy na {j}", "axes": [TOKENS, TOKENS]},
    "speedup": {"function": "quoted", "what": "przyspieszenie", "cite": "Dao (2023)"},
}


def page(body, values=None, *, meta=None):
    """The HTML of a page `body` (under front matter listing the module 'demo'), and its Markdown."""
    values = VALUES if values is None else values
    results = {"demo": SimpleNamespace(values=values, meta={k: v for k, v in META.items() if k in values},
                                       figures={}, folder=Path("."), files=[])}
    return convert_page(body, HEAD + body, results, meta=meta)
