"""What the long post (docs/posty/posts/llm-mechanizm-uwagi.md) must show, and how its numbers are
read back: its modules, sources and tags, a number span's exact value, a value's formats."""

from __future__ import annotations

import importlib
from functools import cache

import numpy as np

from anatomia_engine import numfmt as nf
from anatomia_engine.kit import KIND, Table, Value
from figures_src import luong_bahdanau, masking, multi_head, scaling

OWN_MODULES = (luong_bahdanau, masking, multi_head, scaling)
ALL_MODULES = ("luong_bahdanau", "scaling", "masking", "multi_head", "rope_positions",
               "gqa_kv_cache", "quadratic_cost", "flash_attention", "flash_io", "llama_count",
               "induction_heads")
# The source post's tags (its English "deep-dive" in Polish) and references (seeds/001), plus
# Sutskever et al. for the encoder-decoder bottleneck, the arXiv id of Olsson et al. and
# Haviv et al. on positions without positional encodings.
SEED_TAGS = ["anatomia llm", "ai", "llm", "transformer", "dla dociekliwych"]
ARXIV_IDS = {
    "1409.3215",  # Sutskever, Vinyals, Le 2014
    "1409.0473",  # Bahdanau, Cho, Bengio 2014
    "1508.04025",  # Luong, Pham, Manning 2015
    "1706.03762",  # Vaswani et al. 2017
    "1911.02150",  # Shazeer 2019
    "2305.13245",  # Ainslie et al. 2023
    "2307.09288",  # Touvron et al. 2023 (Llama 2)
    "2407.21783",  # Grattafiori et al. 2024 (Llama 3)
    "2205.14135",  # Dao et al. 2022
    "2203.16634",  # Haviv et al. 2022
    "2307.08691",  # Dao 2023
    "2004.05150",  # Beltagy et al. 2020
    "2009.14794",  # Choromanski et al. 2021
    "1902.10186",  # Jain & Wallace 2019
    "1908.04626",  # Wiegreffe & Pinter 2019
    "2209.11895",  # Olsson et al. 2022
    "1308.0850",  # Graves 2013 (soft attention window before machine translation)
    "2104.09864",  # Su et al. 2021 (RoPE)
}
# References that are not on arXiv: Meta's Llama 3 model card, NVIDIA's A100 whitepaper and
# datasheet, Elhage et al. (2021) on transformer-circuits.pub.
OTHER_SOURCES = ("github.com/meta-llama/llama3", "images.nvidia.com", "transformer-circuits.pub")


@cache
def module_values(name: str) -> dict:
    """Every value a figures_src module publishes, computed in this process (Values unwrapped)."""
    module = importlib.import_module(f"figures_src.{name}")
    out: dict = {}
    for fn in vars(module).values():
        if getattr(fn, KIND, None) == "values" and fn.__module__ == module.__name__:
            out.update({k: v.value if isinstance(v, Value) else v for k, v in fn().items()})
    return out


def figures_of(module) -> dict:
    return {n: f for n, f in vars(module).items()
            if getattr(f, KIND, None) == "figure" and f.__module__ == module.__name__}


def formats_of(value) -> set[str]:
    """Every way the site could show `value` in prose (the filters and their precisions)."""
    shown = set()
    for n in range(0, 5):
        shown.add(nf.fmt_dec(value, n))
        shown.add(nf.fmt_sci(value, n))
    for n in range(0, 3):
        shown.add(nf.fmt_pct(value, n))
        shown.add(nf.fmt_bytes(value, n))
    if float(value) == int(value):
        shown.add(nf.fmt_int(value))
    if 2 <= value < 21:   # a ratio in words
        shown.add(nf.fmt_times(value))
    return shown


def exact_of(span) -> float:
    """The span's data-exact (Polish notation, 7 significant digits) as a float."""
    text = span["data-exact"].replace("\u2212", "-").replace("\u202f", "").replace(",", ".")
    mantissa, _, power = text.partition("·10")
    sup = str.maketrans("\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079", "-0123456789")
    return float(mantissa) * 10 ** int(power.translate(sup)) if power else float(mantissa)


def published_numbers(value) -> list[float]:
    """Every number a value can put on a page: itself, its elements, its table cells."""
    value = getattr(value, "value", value)
    if isinstance(value, Table):
        return [float(v) for row in value.rows for v in row if isinstance(v, (int, float)) and
                not isinstance(v, bool)]
    if isinstance(value, (np.ndarray, list, tuple)):
        arr = np.asarray(value)
        return [float(v) for v in arr.ravel()] if arr.dtype.kind in "biuf" else []
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return [float(value)]
    return []
