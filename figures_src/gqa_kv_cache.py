"""MHA / GQA / MQA head sharing and KV-cache sizes of the Llama 2, Llama 3 and Llama 3.1 models.

Page: docs/posty/posts/llm-mechanizm-uwagi.md (sections "Kwadratowy koszt…" / KV-cache and
"Nowoczesne warianty…" / MQA, GQA).

Inputs (data, with their sources): `MODELS` (configurations from the models' Hugging Face
config.json files and the torchtune model builders; context lengths from Meta's model cards),
`BYTES_PER_VALUE` = 2 (16-bit values), `BATCH` = 1, the diagram's `DIAGRAM_HEADS` = 8 query
heads with `DIAGRAM_KV_HEADS` = (8, 2, 1) KV heads, and `GQA_UPTRAIN_FRACTION` (Ainslie et al.).

Values (all byte counts are plain integers; show them with `bytes(n)`, GiB = 2^30 bytes):
- tables: `kv_cache_table` (per model: layers, query/KV heads with the kind of attention,
  e.g. "64/8 (GQA)", context, KV-cache per token and at full context; six columns, as many
  as fit the content width next to the sidebars), `kv_variants_table` (each model at full
  context as MHA / as released / as MQA), `config_source`, `config_source_pl` (str);
- `kv_bytes_per_value`, `llama_head_dim`, `diagram_heads`, `diagram_gqa_kv_heads`,
  `diagram_gqa_group_size`, the same three in words (`diagram_heads_words`,
  `diagram_gqa_kv_heads_words`, `diagram_gqa_group_size_words`), `gqa_uptrain_fraction`
  (quoted: Value with cite);
- Llama 3.2 1B (`LLAMA32_1B`, not in the table): `llama32_1b_head_dim`, `llama32_1b_heads`,
  `llama32_1b_hidden`;
- Llama 2 7B: `llama2_7b_layers`, `llama2_7b_heads`, `llama2_7b_kv_heads`,
  `llama2_7b_kv_per_token`, `llama2_7b_kv_full`, `llama2_context`;
- Llama 2 13B: `llama2_13b_kv_per_token`, `llama2_13b_kv_full`;
- Llama 2 70B: `llama2_70b_layers`, `llama2_70b_heads`, `llama2_70b_kv_heads`,
  `llama2_70b_kv_per_token`, `llama2_70b_kv_per_token_mha`, `llama2_70b_kv_per_token_mqa`,
  `llama2_70b_kv_full`, `llama2_70b_kv_full_mha`, `llama2_70b_mha_gqa_ratio`;
- Llama 3 / 3.1: `llama3_kv_heads`, `llama3_context`, `llama31_context`, `llama31_context_k`
  (the context in units of 1024 tokens, "128K"),
  `llama3_8b_kv_per_token`, `llama3_8b_kv_full`, `llama31_8b_kv_full`,
  `llama31_405b_layers`, `llama31_405b_heads`, `llama31_405b_kv_per_token`,
  `llama31_405b_kv_full`, `llama31_405b_kv_full_mha`, `llama31_405b_kv_full_mqa`,
  `llama31_405b_mha_gqa_ratio`.
Figures: `gqa_grouping` (which query heads share which KV head: MHA / GQA / MQA),
`kv_cache_sizes` (dot plot: KV-cache at full context, each model as MHA / released / MQA).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import matplotlib
import matplotlib.ticker
import numpy as np

from anatomia_engine.kit import Plot, Table, Value, figure, values
from anatomia_engine.numfmt import fmt_bytes, fmt_int
from anatomia_engine.plot import new_figure
from attn_core import kv_cache_bytes, kv_cache_bytes_per_token, kv_group_of_heads

CONFIG_SOURCE = ("Hugging Face config.json / torchtune builders; "
                 "context lengths: Meta model cards")
CONFIG_SOURCE_PL = ("pliki konfiguracji modeli (config.json) z Hugging Face i definicje modeli "
                    "w bibliotece torchtune; długości kontekstu: karty modeli Meta")
BYTES_PER_VALUE = 2  # 16-bit values (bf16 / fp16)
BATCH = 1

# "an uptraining recipe costing about 5% of pre-training compute": Ainslie et al. (2023),
# GQA, arXiv:2305.13245, abstract ("5% of original pre-training compute").
GQA_UPTRAIN_FRACTION = 0.05

DIAGRAM_HEADS = 8
DIAGRAM_KV_HEADS = (8, 2, 1)  # MHA, GQA, MQA
# Small counts in prose are words: the accusative ("pokazuje osiem głów") and the
# instrumental ("z dwiema głowami").
WORDS_ACC = {2: "dwie", 3: "trzy", 4: "cztery", 5: "pięć", 6: "sześć", 7: "siedem", 8: "osiem"}
WORDS_INSTR = {2: "dwiema", 3: "trzema", 4: "czterema", 5: "pięcioma", 6: "sześcioma",
               7: "siedmioma", 8: "ośmioma"}


@dataclass(frozen=True)
class ModelConfig:
    """One model's attention configuration; head_dim = hidden / heads."""

    name: str
    layers: int
    heads: int
    kv_heads: int
    hidden: int
    context: int

    @property
    def head_dim(self) -> int:
        if self.hidden % self.heads:
            raise ValueError(f"{self.name}: hidden={self.hidden} is not divisible by "
                             f"heads={self.heads}")
        return self.hidden // self.heads


# Source: CONFIG_SOURCE (Hugging Face config.json files and torchtune model builders;
# context lengths from Meta's model cards). Llama 2 7B and 13B do not use GQA; among the
# released Llama 2 models only 70B does (34B, planned with GQA, was never released).
MODELS = (
    ModelConfig("Llama 2 7B", layers=32, heads=32, kv_heads=32, hidden=4096, context=4096),
    ModelConfig("Llama 2 13B", layers=40, heads=40, kv_heads=40, hidden=5120, context=4096),
    ModelConfig("Llama 2 70B", layers=80, heads=64, kv_heads=8, hidden=8192, context=4096),
    ModelConfig("Llama 3 8B", layers=32, heads=32, kv_heads=8, hidden=4096, context=8192),
    ModelConfig("Llama 3 70B", layers=80, heads=64, kv_heads=8, hidden=8192, context=8192),
    ModelConfig("Llama 3.1 8B", layers=32, heads=32, kv_heads=8, hidden=4096, context=131072),
    ModelConfig("Llama 3.1 70B", layers=80, heads=64, kv_heads=8, hidden=8192, context=131072),
    ModelConfig("Llama 3.1 405B", layers=126, heads=128, kv_heads=8, hidden=16384,
                context=131072),
)
_BY_NAME = {m.name: m for m in MODELS}

# Not in the KV-cache table: the small Llama 3.2 1B, whose heads are narrower (head_dim 64).
# Source: its published configuration, meta-llama/Llama-3.2-1B config.json on Hugging Face
# (hidden_size 2048, num_attention_heads 32, num_key_value_heads 8, num_hidden_layers 16,
# max_position_embeddings 131072).
LLAMA32_1B = ModelConfig("Llama 3.2 1B", layers=16, heads=32, kv_heads=8, hidden=2048,
                         context=131072)


def attention_kind(heads: int, kv_heads: int) -> str:
    """'MHA' (one KV head per query head), 'MQA' (one KV head) or 'GQA' (in between)."""
    if kv_heads == heads:
        return "MHA"
    if kv_heads == 1:
        return "MQA"
    return "GQA"


def heads_label(model: ModelConfig) -> str:
    """Query heads / KV heads and the kind of attention, e.g. '64/8 (GQA)'."""
    return (f"{fmt_int(model.heads)}/{fmt_int(model.kv_heads)} "
            f"({attention_kind(model.heads, model.kv_heads)})")


def per_token(model: ModelConfig, kv_heads: int | None = None) -> int:
    """KV-cache bytes per token of `model` (with `kv_heads` KV heads; default: as released)."""
    kv = model.kv_heads if kv_heads is None else kv_heads
    return int(kv_cache_bytes_per_token(model.layers, kv, model.head_dim,
                                        bytes_per_value=BYTES_PER_VALUE))


def full_context(model: ModelConfig, kv_heads: int | None = None) -> int:
    """KV-cache bytes of `model` for one sequence (BATCH) at its full context length."""
    kv = model.kv_heads if kv_heads is None else kv_heads
    return int(kv_cache_bytes(model.layers, kv, model.head_dim, model.context,
                              bytes_per_value=BYTES_PER_VALUE, batch=BATCH))


def variants(model: ModelConfig) -> dict[str, int]:
    """Full-context KV-cache of the same model as MHA (kv = heads), as released, and as MQA."""
    return {"MHA": full_context(model, model.heads), "released": full_context(model),
            "MQA": full_context(model, 1)}


@values
def kv_cache() -> dict:
    l2_7b, l2_13b, l2_70b = (_BY_NAME[n] for n in ("Llama 2 7B", "Llama 2 13B", "Llama 2 70B"))
    l3_8b, l31_8b, l31_405b = (_BY_NAME[n] for n in ("Llama 3 8B", "Llama 3.1 8B",
                                                     "Llama 3.1 405B"))
    head_dims = {m.head_dim for m in MODELS}
    if len(head_dims) != 1:
        raise ValueError(f"expected one head_dim for all models, got {sorted(head_dims)}")
    llama3_kv = {m.kv_heads for m in MODELS if m.name.startswith("Llama 3")}
    if len(llama3_kv) != 1:
        raise ValueError(f"expected one KV-head count for Llama 3 / 3.1, got {sorted(llama3_kv)}")
    llama31_ctx = {m.context for m in MODELS if m.name.startswith("Llama 3.1")}
    return {
        "config_source": CONFIG_SOURCE,
        "config_source_pl": CONFIG_SOURCE_PL,
        "kv_bytes_per_value": BYTES_PER_VALUE,
        "llama_head_dim": head_dims.pop(),
        "diagram_heads": DIAGRAM_HEADS,
        "diagram_gqa_kv_heads": DIAGRAM_KV_HEADS[1],
        "diagram_gqa_group_size": DIAGRAM_HEADS // DIAGRAM_KV_HEADS[1],
        "diagram_heads_words": WORDS_ACC[DIAGRAM_HEADS],
        "diagram_gqa_kv_heads_words": WORDS_INSTR[DIAGRAM_KV_HEADS[1]],
        "diagram_gqa_group_size_words": WORDS_ACC[DIAGRAM_HEADS // DIAGRAM_KV_HEADS[1]],
        "gqa_uptrain_fraction": Value(GQA_UPTRAIN_FRACTION, cite="Ainslie i in. (2023)",
                                      what="koszt doszkolenia (uptraining) jako część mocy "
                                           "obliczeniowej pretreningu"),
        "llama32_1b_head_dim": LLAMA32_1B.head_dim,
        "llama32_1b_heads": LLAMA32_1B.heads,
        "llama32_1b_hidden": LLAMA32_1B.hidden,
        "llama2_context": Value(l2_7b.context, cite="Touvron i in. (2023)",
                                what="kontekst modeli Llama 2 (tokeny)"),
        "llama2_7b_layers": l2_7b.layers,
        "llama2_7b_heads": l2_7b.heads,
        "llama2_7b_kv_heads": l2_7b.kv_heads,
        "llama2_7b_kv_per_token": per_token(l2_7b),
        "llama2_7b_kv_full": full_context(l2_7b),
        "llama2_13b_kv_per_token": per_token(l2_13b),
        "llama2_13b_kv_full": full_context(l2_13b),
        "llama2_70b_layers": l2_70b.layers,
        "llama2_70b_heads": l2_70b.heads,
        "llama2_70b_kv_heads": l2_70b.kv_heads,
        "llama2_70b_kv_per_token": per_token(l2_70b),
        "llama2_70b_kv_per_token_mha": per_token(l2_70b, l2_70b.heads),
        "llama2_70b_kv_per_token_mqa": per_token(l2_70b, 1),
        "llama2_70b_kv_full": full_context(l2_70b),
        "llama2_70b_kv_full_mha": full_context(l2_70b, l2_70b.heads),
        "llama2_70b_mha_gqa_ratio": per_token(l2_70b, l2_70b.heads) / per_token(l2_70b),
        "llama3_kv_heads": Value(llama3_kv.pop(), cite="Meta (2024), karta modelu Llama 3",
                                 what="głowy kluczy i wartości w modelach Llama 3 i 3.1"),
        "llama3_context": Value(l3_8b.context, cite="Meta (2024), karta modelu Llama 3",
                                what="kontekst Llama 3 8B/70B z kwietnia 2024 (tokeny)"),
        "llama31_context": (llama31_ctx := llama31_ctx.pop()),
        "llama31_context_k": llama31_ctx // 1024,
        "llama3_8b_kv_per_token": per_token(l3_8b),
        "llama3_8b_kv_full": full_context(l3_8b),
        "llama31_8b_kv_full": full_context(l31_8b),
        "llama31_405b_layers": l31_405b.layers,
        "llama31_405b_heads": l31_405b.heads,
        "llama31_405b_kv_per_token": per_token(l31_405b),
        "llama31_405b_kv_full": full_context(l31_405b),
        "llama31_405b_kv_full_mha": full_context(l31_405b, l31_405b.heads),
        "llama31_405b_kv_full_mqa": full_context(l31_405b, 1),
        "llama31_405b_mha_gqa_ratio": (full_context(l31_405b, l31_405b.heads)
                                       / full_context(l31_405b)),
        "kv_cache_table": Table(
            header=["model", "warstwy", "głowy Q/KV", "kontekst", "na token", "cały kontekst"],
            rows=[[m.name, m.layers, heads_label(m), m.context, per_token(m), full_context(m)]
                  for m in MODELS],
            formats=[None, "int", None, "int", "bytes:0", "bytes:2"]),
        "kv_variants_table": _variants_table(),
    }


def _variants_table() -> Table:
    rows = []
    for m in MODELS:
        v = variants(m)
        rows.append([m.name, m.context, v["MHA"],
                     f"{attention_kind(m.heads, m.kv_heads)}, {m.kv_heads} KV", v["released"],
                     v["MQA"]])
    return Table(header=["model", "kontekst (tokeny)", "jako MHA (głowy KV = głowy Q)",
                         "wydany wariant", "KV-cache wydanego wariantu", "jako MQA (1 głowa KV)"],
                 rows=rows, formats=[None, "int", "bytes:2", None, "bytes:2", "bytes:2"])


@functools.cache
def _groups() -> tuple[tuple[int, ...], ...]:
    """kv_group_of_heads for each diagram variant, as tuples (cached, hashable)."""
    return tuple(tuple(int(g) for g in kv_group_of_heads(DIAGRAM_HEADS, kv))
                 for kv in DIAGRAM_KV_HEADS)


@figure
def gqa_grouping(style) -> Plot:
    """Three panels: query heads (top row) connected to the KV head each one reads (bottom)."""
    titles = ("MHA", "GQA", "MQA")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(4.6, 5.4), layout="constrained")   # phone-legible
    colours = matplotlib.colormaps["tab10"]
    for ax, title, n_kv, groups in zip(axes, titles, DIAGRAM_KV_HEADS, _groups(), strict=True):
        q_x = np.arange(DIAGRAM_HEADS, dtype=float)
        kv_x = np.array([q_x[np.asarray(groups) == g].mean() for g in range(n_kv)])
        for i, g in enumerate(groups):
            ax.plot([q_x[i], kv_x[g]], [1.0, 0.0], color=colours(g % 10), linewidth=1.4,
                    zorder=1)
        ax.scatter(q_x, np.ones_like(q_x), s=110, marker="o", zorder=2,
                   color=[colours(g % 10) for g in groups], edgecolors=style.fg, linewidths=0.6)
        ax.scatter(kv_x, np.zeros_like(kv_x), s=170, marker="s", zorder=2,
                   color=[colours(g % 10) for g in range(n_kv)], edgecolors=style.fg,
                   linewidths=0.6)
        ax.set_title(f"{title}: {DIAGRAM_HEADS} Q, {n_kv} KV")
        ax.set_xlim(-0.7, DIAGRAM_HEADS - 0.3)
        ax.set_ylim(-0.45, 1.45)
        ax.set_xticks([])
        ax.set_yticks([0, 1], labels=["głowy K/V", "głowy Q"])
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
    header = ["głowa zapytań"] + [f"{t}: głowa K/V ({kv} KV)" for t, kv in
                                  zip(titles, DIAGRAM_KV_HEADS, strict=True)]
    rows = [[f"Q{i + 1}"] + [g[i] + 1 for g in _groups()] for i in range(DIAGRAM_HEADS)]
    mha, gqa, mqa = DIAGRAM_KV_HEADS
    return Plot(
        fig=fig,
        alt=(f"Trzy schematy, jeden pod drugim, po {DIAGRAM_HEADS} głów zapytań (kółka u góry) "
             f"połączonych liniami z głowami kluczy i wartości (kwadraty u dołu). MHA: każda głowa "
             f"zapytań ma własną głowę K/V ({mha} par). GQA: głowy zapytań tworzą {gqa} grupy po "
             f"{DIAGRAM_HEADS // gqa}, każda grupa czyta jedną głowę K/V. MQA: wszystkie "
             f"{DIAGRAM_HEADS} głów zapytań czyta {mqa} wspólną głowę K/V."),
        caption=(f"Kto z kim dzieli klucze i wartości: {DIAGRAM_HEADS} głów zapytań przy "
                 f"{mha}, {gqa} i {mqa} głowach K/V."),
        table=Table(header=header, rows=rows, formats=[None, "int", "int", "int"]),
    )


def _short_bytes(v: float) -> str:
    """Bytes without decimal noise: "64 MiB", "1,5 GiB" (one decimal only when needed)."""
    for unit in (2**40, 2**30, 2**20, 2**10):
        if v >= unit:
            return fmt_bytes(v, 0 if float(v / unit).is_integer() else 1)
    return fmt_bytes(v, 0)


@figure
def kv_cache_sizes(style) -> Plot:
    """Dot plot (log scale): full-context KV-cache of each model as MHA / released / MQA."""
    fig, ax = new_figure(style, size=(4.8, 5.8))
    names = [m.name for m in MODELS]
    data = [variants(m) for m in MODELS]
    series = (("MHA", "jako MHA", style.muted, "o", "none"),
              ("released", "wydany wariant", style.accent, "o", None),
              ("MQA", "jako MQA", style.accent2, "^", None))
    y = np.arange(len(MODELS), dtype=float)
    lows = np.array([d["MQA"] for d in data], dtype=float)
    highs = np.array([d["MHA"] for d in data], dtype=float)
    ax.hlines(y, lows, highs, color=style.grid, linewidth=2, zorder=1)
    for key, label, colour, marker, face in series:
        sizes = np.array([d[key] for d in data], dtype=float)
        ax.scatter(sizes, y, s=55, marker=marker, zorder=3, label=label,
                   facecolors=colour if face is None else face, edgecolors=colour,
                   linewidths=1.6)
        if key == "released":
            for s_, p in zip(sizes, y, strict=True):
                ax.annotate(_short_bytes(s_), (s_, p), xytext=(0, 7), textcoords="offset points",
                            ha="center", va="bottom", fontsize=9, color=style.fg)
    ax.set_xscale("log", base=2)
    lo_exp = int(np.floor(np.log2(lows.min()) / 4) * 4)
    hi_exp = int(np.ceil(np.log2(highs.max()) / 4) * 4)
    major = [2.0**e for e in range(lo_exp, hi_exp + 1, 4)]            # every 16x: no collisions
    ax.set_xticks(major, labels=[_short_bytes(v) for v in major])
    ax.set_xticks([2.0**e for e in range(lo_exp, hi_exp + 1)], minor=True)
    ax.tick_params(axis="x", which="minor", labelbottom=False)
    ax.set_xlim(2.0**(lo_exp - 0.5), 2.0**(hi_exp + 0.5))
    ax.set_yticks(y, labels=[f"{m.name}\n({fmt_int(m.context)} tokenów)" for m in MODELS])
    ax.set_ylim(len(MODELS) - 0.4, -0.8)
    ax.set_xlabel("KV-cache przy pełnym kontekście\n(skala logarytmiczna, podziałka co 16×;\n"
                  "MiB = 2²⁰ B, GiB = 2³⁰ B, TiB = 2⁴⁰ B)")
    ax.grid(True, axis="x", which="major", linewidth=0.5)
    ax.spines[["top", "right", "left"]].set_visible(False)
    ax.tick_params(axis="y", length=0)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=3, fontsize=9,
              handletextpad=0.3, columnspacing=1.0)
    rows = [[m.name, m.context, d["MHA"], d["released"], d["MQA"]] for m, d in zip(MODELS, data, strict=True)]
    largest = max(zip(names, (d["released"] for d in data), strict=True), key=lambda t: t[1])
    return Plot(
        fig=fig,
        alt=(f"Wykres punktowy w skali logarytmicznej: pamięć KV-cache przy pełnym kontekście "
             f"dla {len(MODELS)} modeli Llama, po trzy punkty na model: jako MHA (puste kółko), "
             f"w wersji wydanej (pełne kółko, z podpisem) i jako MQA (trójkąt). Największy bufor "
             f"w wersji wydanej ma {largest[0]}: {_short_bytes(largest[1])}. Wartości w tabeli "
             f"danych."),
        caption=(f"KV-cache jednej sekwencji przy pełnym kontekście, wartości "
                 f"{8 * BYTES_PER_VALUE}-bitowe; konfiguracje: {CONFIG_SOURCE_PL}."),
        table=Table(header=["model", "kontekst (tokeny)", "jako MHA", "wydany wariant",
                            "jako MQA"],
                    rows=rows, formats=[None, "int", "bytes:2", "bytes:2", "bytes:2"]),
    )
