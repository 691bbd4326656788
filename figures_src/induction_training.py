"""Induction heads trained at build time: a two-layer attention-only Transformer learns to copy.

Page: docs/posty/posts/glowy-indukcyjne.md (the whole post).

Inputs: `SETTINGS` (sizes, optimiser, training distribution, seed), `VOCAB` (32 tokens named by
the letters of the Polish alphabet; they are only names of token ids), `SAMPLE_SEED` (the
repeated sequence shown in the heatmaps).

Training data: each sequence of T = 2L tokens is, with probability `random_fraction`, uniformly
random; otherwise a random segment of p tokens (p uniform in min_period..L) repeated until T.
The varying period keeps a head from finding the earlier copy by its position alone.
Evaluation: a fixed batch of sequences made of a random first half (L tokens, drawn with
replacement) and its exact repetition. "First half": predictions of tokens 2..L (nothing to
copy; the best possible loss is log V); "repeated half": predictions of tokens L+2..2L.

Values (prefix `tr_`): the settings (`tr_vocab_size`, `tr_half`, `tr_seq_len`, `tr_d_model`,
`tr_n_heads`, `tr_d_k`, `tr_n_layers`, `tr_batch`, `tr_lr`, `tr_steps`, `tr_every`,
`tr_min_period`, `tr_random_fraction`, `tr_eval_size`, `tr_n_params`, `tr_examples` (sequences
seen)), `tr_log_v`; losses at the start and end (`tr_first_start`, `tr_first_end`,
`tr_rep_start`, `tr_rep_end`), `tr_first_min` (lowest first-half loss after step 0),
`tr_first_peak`, `tr_first_peak_step` (highest first-half loss from `tr_plateau_step` on, and where),
`tr_first_end_gap` (end first-half loss minus log V), `tr_rep_before` (repeated-half loss one
window before the phase change, measured at `tr_rep_before_step`), `tr_first_min_step` (where the
lowest first-half loss was measured); the phase change: `tr_phase_step` (step where the
repeated-half loss falls fastest), `tr_phase_slope` (its fall per 100 steps),
`tr_plateau_step` (first step with the repeated-half loss below log V), `tr_window` (the
checks' window, in steps: a limit, never shown); heads: `tr_prev_head`, `tr_ind_head` (1-based
numbers of the strongest layer-1 previous-token head and layer-2 induction head), their start and end scores
(`tr_prev_start`, `tr_prev_end`, `tr_ind_start`, `tr_ind_end`), the steps where they pass
half-way between the two (`tr_prev_half_step`, `tr_ind_half_step`), `tr_prev_others_end`
(strongest previous-token score among the other layer-1 heads), `tr_prev_first_half`,
`tr_prev_second_half` (that head's weight on the previous token for queries in each half), `tr_l1_ind_max_end`
(strongest induction score among layer-1 heads), `tr_ind_weakest_end` (weakest layer-2 head);
accuracy (`tr_first_acc_end`, `tr_rep_acc_end`, top-1 on the evaluation batch, `tr_chance`
= 1/V); the sample sequence (`tr_sample`), the trained and hand-built induction scores on it
(`tr_sample_trained`, `tr_sample_hand`) `tr_sample_agree` (share of repeated-half rows
where both heads weight the same key most), `tr_sample_on_stripe` (share of those rows whose
largest trained weight is on the token after the earlier occurrence), `tr_ind_self_first` (mean
weight the induction head puts on the query itself in the first half, positions 2..L);
`tr_first_at_plateau`, `tr_rep_at_plateau` (both losses at `tr_plateau_step`); `tr_history`
(a Table of the recorded curves).
Figures: `training_loss_curves`, `training_head_scores`, `trained_previous_token_head`,
`trained_induction_head`, `hand_built_induction_head` (attn_core.induction_toy on the sample).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np

from anatomia_engine.kit import Plot, Table, Value, figure, values
from anatomia_engine.numfmt import fmt_dec, fmt_int
from anatomia_engine.plot import new_figure
from attn_core import future_mask, induction_toy
from attn_core.transformer import (
    Adam,
    AttnOnlyConfig,
    cross_entropy,
    forward,
    induction_scores,
    init_params,
    next_token_loss,
    previous_token_scores,
)
from figures_src._shared.charts import heatmap

VOCAB = tuple("aąbcćdeęfghijklłmnńoóprsśtuwyzźż")
SAMPLE_SEED = 13


@dataclass(frozen=True)
class Settings:
    """One training run: sizes, Adam, the data distribution, the evaluation batch, the seed."""

    vocab_size: int = len(VOCAB)
    half: int = 10                # L: the first half; sequences have T = 2L tokens
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 2
    batch: int = 16
    lr: float = 5e-3
    steps: int = 1100
    every: int = 20               # record the curves every `every` steps
    min_period: int = 3           # training segments repeat with a period min_period..L
    random_fraction: float = 0.3  # share of training sequences with no repetition at all
    eval_size: int = 64
    seed: int = 2022

    @property
    def config(self) -> AttnOnlyConfig:
        return AttnOnlyConfig(vocab_size=self.vocab_size, n_ctx=2 * self.half,
                              d_model=self.d_model, n_heads=self.n_heads, n_layers=self.n_layers)


SETTINGS = Settings()


@dataclass(frozen=True, eq=False)
class History:
    """Curves recorded every `every` steps: steps (K,); first, repeated (K,) mean losses;
    first_acc, rep_acc (K,) top-1 accuracy; prev, ind (K, layers, h) head scores; the final
    parameters; eval_tokens (E, T)."""

    steps: np.ndarray
    first: np.ndarray
    repeated: np.ndarray
    first_acc: np.ndarray
    rep_acc: np.ndarray
    prev: np.ndarray
    ind: np.ndarray
    params: dict
    eval_tokens: np.ndarray


def training_batch(rng: np.random.Generator, s: Settings) -> np.ndarray:
    """(batch, 2L) tokens: random rows, or a random segment of period p repeated to length 2L."""
    t = 2 * s.half
    tokens = rng.integers(0, s.vocab_size, (s.batch, t))            # (B, T)
    period = rng.integers(s.min_period, s.half + 1, s.batch)         # (B,) p of each row
    period[rng.random(s.batch) < s.random_fraction] = t              # a period of T: no repeat
    return np.take_along_axis(tokens, np.arange(t) % period[:, None], axis=1)  # (B, T)


def repeated_halves(rng: np.random.Generator, n: int, half: int, vocab_size: int,
                    distinct: bool = False) -> np.ndarray:
    """(n, 2L) tokens: a random first half and its exact repetition."""
    if distinct:
        first = np.stack([rng.choice(vocab_size, half, replace=False) for _ in range(n)])
    else:
        first = rng.integers(0, vocab_size, (n, half))               # (n, L)
    return np.concatenate([first, first], axis=1)                    # (n, 2L)


def half_masks(half: int) -> tuple[np.ndarray, np.ndarray]:
    """Masks over the 2L - 1 predictions: first half (targets 2..L), repeated (L+2..2L)."""
    target = np.arange(1, 2 * half)                                  # 0-based target positions
    return target < half, target > half


def evaluate(s: Settings, params: dict, tokens: np.ndarray):
    """Losses and accuracies of both halves, and every head's scores, on `tokens`."""
    trace = forward(s.config, params, tokens)
    first, rep = half_masks(s.half)
    logits, targets = trace.logits[:, :-1], tokens[:, 1:]             # (E, T-1, V), (E, T-1)
    n = tokens.shape[0]
    loss_first, _ = cross_entropy(logits, targets, np.broadcast_to(first, (n, first.size)))
    loss_rep, _ = cross_entropy(logits, targets, np.broadcast_to(rep, (n, rep.size)))
    hit = np.argmax(logits, axis=-1) == targets                      # (E, T-1)
    prev = np.stack([previous_token_scores(lt.weights) for lt in trace.layers])       # (l, h)
    ind = np.stack([induction_scores(lt.weights, tokens) for lt in trace.layers])     # (l, h)
    return loss_first, loss_rep, hit[:, first].mean(), hit[:, rep].mean(), prev, ind


def train(s: Settings) -> History:
    """Train from a fixed seed with Adam, recording the evaluation every `s.every` steps.

    In float32: the page shows two or three digits, and at these sizes NumPy's float32 exp
    and reductions are several times faster than float64's.
    """
    rng = np.random.default_rng(s.seed)
    params = init_params(s.config, rng, dtype=np.float32)
    eval_tokens = repeated_halves(np.random.default_rng(s.seed + 1), s.eval_size, s.half,
                                  s.vocab_size)
    adam = Adam(lr=s.lr)
    rows = []
    for step in range(s.steps + 1):
        if step % s.every == 0:
            rows.append((step, *evaluate(s, params, eval_tokens)))
        if step < s.steps:
            _, grads, _ = next_token_loss(s.config, params, training_batch(rng, s))
            adam.step(params, grads)
    cols = list(zip(*rows, strict=True))
    return History(steps=np.array(cols[0]), first=np.array(cols[1]), repeated=np.array(cols[2]),
                   first_acc=np.array(cols[3]), rep_acc=np.array(cols[4]),
                   prev=np.array(cols[5]), ind=np.array(cols[6]), params=params,
                   eval_tokens=eval_tokens)


@functools.cache
def history() -> History:
    return train(SETTINGS)


SLOPE_SPAN = 2  # the slope at record k is measured from record k - 2 to record k + 2


def loss_slopes(h: History) -> np.ndarray:
    """Slope of the repeated-half loss per step at each record, over +-SLOPE_SPAN records
    (NaN where the span leaves the run)."""
    n = SLOPE_SPAN
    slopes = np.full(h.steps.size, np.nan)
    slopes[n:-n] = (h.repeated[2 * n:] - h.repeated[:-2 * n]) / (h.steps[2 * n:] - h.steps[:-2 * n])
    return slopes


def plateau_index(h: History) -> int:
    """First record at which the repeated-half loss is below log V: from there on the model does
    better than a uniform guess, so any fall comes from using the context."""
    below = h.repeated < np.log(SETTINGS.vocab_size)
    if not below.any():
        raise ValueError("the repeated-half loss never fell below log V: no phase change to locate")
    return int(np.argmax(below))


def phase_change(h: History) -> int:
    """Record where the repeated-half loss falls fastest, after it first drops below log V.

    The first steps, in which both halves fall together from the random start to about
    log V, are left out: they teach the model the uniform guess, not copying.
    """
    slopes = loss_slopes(h)
    start = plateau_index(h)
    return start + int(np.nanargmin(slopes[start:]))


def half_way_step(steps: np.ndarray, curve: np.ndarray) -> int:
    """First recorded step at which `curve` has covered half the way from its start to its end."""
    mid = (curve[0] + curve[-1]) / 2
    passed = curve >= mid if curve[-1] > curve[0] else curve <= mid
    return int(steps[np.argmax(passed)])


def strongest_heads(h: History) -> tuple[int, int]:
    """0-based: the layer-1 head with the highest final previous-token score, the layer-2 head
    with the highest final induction score."""
    return int(np.argmax(h.prev[-1, 0])), int(np.argmax(h.ind[-1, 1]))


def previous_token_by_half(s: Settings, h: History, head: int) -> tuple[float, float]:
    """Mean weight the trained layer-1 `head` puts on the previous token, over queries
    1..L-1 (first half) and L..2L-1 (repeated half) of the evaluation batch."""
    w = forward(s.config, h.params, h.eval_tokens).weights(0)[:, head]   # (E, T, T)
    i = np.arange(1, 2 * s.half)
    on_prev = w[:, i, i - 1].mean(axis=0)                            # (T-1,)
    return float(on_prev[: s.half - 1].mean()), float(on_prev[s.half - 1:].mean())


def self_weight_first_half(s: Settings, h: History, head: int) -> float:
    """Mean weight the trained layer-2 `head` puts on the query itself, queries 2..L."""
    w = forward(s.config, h.params, h.eval_tokens).weights(1)[:, head]   # (E, T, T)
    i = np.arange(1, s.half)
    return float(w[:, i, i].mean())


@functools.cache
def sample():
    """The repeated sequence of the heatmaps (distinct letters), the trained model's patterns
    on it and the hand-built circuit's induction pattern (attn_core.induction_toy)."""
    s = SETTINGS
    tokens = repeated_halves(np.random.default_rng(SAMPLE_SEED), 1, s.half, s.vocab_size,
                             distinct=True)                          # (1, T)
    trace = forward(s.config, history().params, tokens)
    hand = induction_toy(tokens[0], s.vocab_size)
    return tokens, trace, np.asarray(hand.induction_weights)


@values
def training_values() -> dict:
    s, h = SETTINGS, history()
    k, plateau = phase_change(h), plateau_index(h)
    prev_head, ind_head = strongest_heads(h)
    prev_curve, ind_curve = h.prev[:, 0, prev_head], h.ind[:, 1, ind_head]
    window = max(s.steps // 10, s.every)
    before = max(int(np.searchsorted(h.steps, h.steps[k] - window)), 0)
    prev_by_half = previous_token_by_half(s, h, prev_head)
    tokens, trace, hand = sample()
    rows = np.arange(s.half, 2 * s.half)                             # repeated-half queries
    trained = trace.weights(1)[0, ind_head]                          # (T, T)
    hand_score = induction_scores(hand[None, None], tokens)[0]
    trained_score = induction_scores(trained[None, None], tokens)[0]
    agree = np.mean(np.argmax(trained[rows], axis=1) == np.argmax(hand[rows], axis=1))
    return {
        "tr_vocab_size": s.vocab_size, "tr_half": s.half, "tr_seq_len": 2 * s.half,
        "tr_d_model": s.d_model, "tr_n_heads": s.n_heads, "tr_d_k": s.d_model // s.n_heads,
        "tr_n_layers": s.n_layers, "tr_batch": s.batch, "tr_lr": s.lr, "tr_steps": s.steps,
        "tr_every": s.every, "tr_min_period": s.min_period,
        "tr_random_fraction": s.random_fraction, "tr_eval_size": s.eval_size,
        "tr_n_params": sum(p.size for p in h.params.values()),
        "tr_examples": s.steps * s.batch,
        "tr_log_v": float(np.log(s.vocab_size)),
        "tr_first_start": float(h.first[0]), "tr_first_end": float(h.first[-1]),
        "tr_rep_start": float(h.repeated[0]), "tr_rep_end": float(h.repeated[-1]),
        # where (when) a value was measured goes with it: a claim showing it relates the step too
        "tr_first_min": Value(float(h.first[1:].min()), at="tr_first_min_step"),
        "tr_first_min_step": int(h.steps[1 + int(np.argmin(h.first[1:]))]),
        "tr_first_peak": Value(float(h.first[plateau:].max()), at="tr_first_peak_step"),
        "tr_first_peak_step": int(h.steps[plateau + int(np.argmax(h.first[plateau:]))]),
        "tr_first_end_gap": float(h.first[-1] - np.log(s.vocab_size)),
        "tr_rep_before": Value(float(h.repeated[before]), at="tr_rep_before_step"),
        "tr_rep_before_step": int(h.steps[before]),
        "tr_phase_step": int(h.steps[k]),
        "tr_phase_slope": float(-loss_slopes(h)[k] * 100),
        "tr_plateau_step": int(h.steps[plateau]),
        "tr_first_at_plateau": float(h.first[plateau]), "tr_rep_at_plateau": float(h.repeated[plateau]),
        "tr_window": Value(window, limit=True),   # the checks' tolerance, not a measured distance
        "tr_prev_head": prev_head + 1, "tr_ind_head": ind_head + 1,
        "tr_prev_start": float(prev_curve[0]), "tr_prev_end": float(prev_curve[-1]),
        "tr_ind_start": float(ind_curve[0]), "tr_ind_end": float(ind_curve[-1]),
        "tr_prev_half_step": half_way_step(h.steps, prev_curve),
        "tr_ind_half_step": half_way_step(h.steps, ind_curve),
        "tr_prev_others_end": float(np.delete(h.prev[-1, 0], prev_head).max()),
        "tr_prev_first_half": float(prev_by_half[0]), "tr_prev_second_half": float(prev_by_half[1]),
        "tr_l1_ind_max_end": float(h.ind[-1, 0].max()),
        "tr_ind_weakest_end": float(h.ind[-1, 1].min()),
        "tr_first_acc_end": float(h.first_acc[-1]), "tr_rep_acc_end": float(h.rep_acc[-1]),
        "tr_chance": 1.0 / s.vocab_size,
        "tr_sample": " ".join(VOCAB[i] for i in tokens[0]),
        "tr_sample_trained": float(trained_score), "tr_sample_hand": float(hand_score),
        "tr_sample_agree": float(agree),
        "tr_sample_on_stripe": float(np.mean(np.argmax(trained[rows], axis=1) == rows - s.half + 1)),
        "tr_ind_self_first": self_weight_first_half(s, h, ind_head),
        "tr_history": history_table(h),
    }


def history_table(h: History) -> Table:
    layers, heads = h.prev.shape[1:]
    header = ["krok", "strata: 1. połowa", "strata: powtórzenie"]
    header += [f"poprz. token, w1 g{j + 1}" for j in range(heads)]
    header += [f"indukcja, w2 g{j + 1}" for j in range(heads)]
    rows = [[int(st), float(f), float(r), *map(float, p[0]), *map(float, i[-1])]
            for st, f, r, p, i in zip(h.steps, h.first, h.repeated, h.prev, h.ind, strict=True)]
    return Table(header=header, rows=rows, formats=["int", "dec:3", "dec:3"] + ["dec:2"] * 2 * heads)


@figure
def training_loss_curves(style) -> Plot:
    """Loss on the first and the repeated half against the step; log V and the phase change."""
    s, h = SETTINGS, history()
    k = phase_change(h)
    log_v = np.log(s.vocab_size)
    fig, ax = new_figure(style, size=(6.0, 3.6))
    ax.plot(h.steps, h.first, color=style.accent2, label="pierwsza połowa (losowa)")
    ax.plot(h.steps, h.repeated, color=style.accent, label="druga połowa (powtórzenie)")
    ax.axhline(log_v, color=style.muted, linestyle="--", linewidth=1)
    # in the right margin: the first-half curve ends on the line itself
    ax.annotate(f"log V =\n{fmt_dec(log_v, 2)}", (1.0, log_v), xycoords=ax.get_yaxis_transform(),
                xytext=(4, 0), textcoords="offset points", ha="left", va="center", color=style.muted,
                annotation_clip=False)
    ax.axvline(h.steps[k], color=style.fg, linestyle=":", linewidth=1)
    # top left of the dotted line: only the first steps' losses reach that high, far to the left
    ax.annotate(f"zmiana fazowa\n(krok {fmt_int(h.steps[k])})", (h.steps[k], 1.0),
                xycoords=ax.get_xaxis_transform(), xytext=(-4, -4), textcoords="offset points",
                ha="right", va="top", color=style.fg)
    ax.set_xlabel("krok treningu")
    ax.set_ylabel("strata (entropia krzyżowa, nat)")
    ax.set_ylim(0, max(h.first.max(), h.repeated.max()) * 1.05)
    ax.spines[["top", "right"]].set_visible(False)
    # above the axes: inside, every corner is crossed by a curve or the phase line
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, frameon=False)
    return Plot(
        fig=fig,
        alt=(f"Wykres liniowy straty w funkcji kroku treningu, od 0 do {fmt_int(s.steps)}. "
             f"Strata na losowej pierwszej połowie sekwencji zaczyna od {fmt_dec(h.first[0], 2)} "
             f"i kończy na {fmt_dec(h.first[-1], 2)}, blisko przerywanej linii log V = "
             f"{fmt_dec(log_v, 2)}. Strata na powtórzonej drugiej połowie zaczyna od "
             f"{fmt_dec(h.repeated[0], 2)}, długo opada powoli, a około kroku "
             f"{fmt_int(h.steps[k])} (pionowa linia kropkowana) spada najszybciej i kończy na "
             f"{fmt_dec(h.repeated[-1], 2)}."),
        caption=(f"Strata na obu połowach sekwencji w trakcie treningu (średnia na "
                 f"{fmt_int(s.eval_size)} stałych sekwencjach testowych, co {fmt_int(s.every)} "
                 "kroków); linia kropkowana: krok, w którym strata na powtórzeniu spada najszybciej."),
        table=Table(header=["krok", "pierwsza połowa", "powtórzenie"],
                    rows=[[int(a), float(b), float(c)] for a, b, c in
                          zip(h.steps, h.first, h.repeated, strict=True)],
                    formats=["int", "dec:3", "dec:3"]),
    )


def _score_panel(ax, style, steps, curves, strongest: int, title: str, phase: int) -> None:
    """Per-head score curves; the strongest head in the accent colour, the others muted."""
    for j, curve in enumerate(curves.T):
        strong = j == strongest
        ax.plot(steps, curve, color=style.accent if strong else style.muted,
                linewidth=2.0 if strong else 1.0, linestyle="-" if strong else "--",
                label=f"głowa {j + 1}" if strong else None)
    ax.axvline(phase, color=style.fg, linestyle=":", linewidth=1)
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.spines[["top", "right"]].set_visible(False)


@figure
def training_head_scores(style) -> Plot:
    """Layer-1 previous-token scores and layer-2 induction scores of every head over training."""
    s, h = SETTINGS, history()
    k = phase_change(h)
    prev_head, ind_head = strongest_heads(h)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.0, 5.0), sharex=True, layout="constrained")
    _score_panel(top, style, h.steps, h.prev[:, 0], prev_head,
                 "warstwa 1: waga na poprzednim tokenie", h.steps[k])
    _score_panel(bottom, style, h.steps, h.ind[:, 1], ind_head,
                 "warstwa 2: waga na tokenie po wcześniejszym wystąpieniu", h.steps[k])
    top.set_ylabel("wynik")
    bottom.set_ylabel("wynik")
    bottom.set_xlabel("krok treningu")
    top.legend(loc="upper left")
    bottom.legend(loc="upper left")
    heads = s.n_heads
    return Plot(
        fig=fig,
        alt=(f"Dwa wykresy liniowe wyników głów w funkcji kroku treningu, po {heads} linie na "
             f"wykres. Górny: wynik poprzedniego tokenu głów warstwy 1; głowa {prev_head + 1} "
             f"rośnie od {fmt_dec(h.prev[0, 0, prev_head], 2)} do "
             f"{fmt_dec(h.prev[-1, 0, prev_head], 2)}, pozostałe kończą najwyżej na "
             f"{fmt_dec(np.delete(h.prev[-1, 0], prev_head).max(), 2)}. Dolny: wynik indukcyjny "
             f"głów warstwy 2; najsilniejsza, głowa {ind_head + 1}, rośnie od "
             f"{fmt_dec(h.ind[0, 1, ind_head], 2)} do {fmt_dec(h.ind[-1, 1, ind_head], 2)}. "
             f"Pionowa linia kropkowana w kroku {fmt_int(h.steps[k])} oznacza zmianę fazową."),
        caption=("Wyniki głów w trakcie treningu: u góry średnia waga, jaką głowy warstwy 1 "
                 "kładą na poprzednim tokenie, u dołu średnia waga, jaką głowy warstwy 2 kładą "
                 "na tokenie następującym po wcześniejszym wystąpieniu bieżącego; pogrubiona "
                 "linia: najsilniejsza głowa."),
        table=history_table(h),
    )


def _trained_pattern(style, matrix: np.ndarray, title: str, what: str,
                     caption: str = "wagi uwagi wytrenowanej głowy na powtórzonej sekwencji liter") -> Plot:
    """Heatmap of one head on the sample sequence, the two halves separated."""
    s = SETTINGS
    tokens = sample()[0][0]
    t = tokens.size
    labels = [VOCAB[i] for i in tokens]
    fig, ax = new_figure(style, size=(5.4, 5.0))
    heatmap(ax, matrix, row_labels=labels, col_labels=labels, style=style, annotate=False,
            blocked=future_mask(t), title=title, quantity="weights")
    for line in (ax.axhline, ax.axvline):
        line(s.half - 0.5, color=style.accent2, linewidth=1)
    table_labels = [f"{w} ({i + 1})" for i, w in enumerate(labels)]
    return Plot(
        fig=fig,
        alt=(f"Mapa ciepła {t}×{t} wag uwagi na sekwencji „{' '.join(labels)}”, której druga "
             f"połowa powtarza pierwszą (linie oddzielają połowy); wiersze to zapytania, "
             f"kolumny to klucze, pola nad przekątną są zablokowane maską. {what}"),
        caption=f"{title}: {caption}.",
        table=Table(header=["zapytanie \\ klucz"] + table_labels,
                    rows=[[table_labels[i]] + [float(x) for x in matrix[i]] for i in range(t)],
                    formats=[None] + ["dec:2"] * t),
    )


def _share_of_rows(matrix: np.ndarray, rows: np.ndarray, offset: int) -> float:
    """Share of `rows` whose largest weight lies on key row - offset."""
    return float(np.mean(np.argmax(matrix[rows], axis=1) == rows - offset))


@figure
def trained_previous_token_head(style) -> Plot:
    """The trained layer-1 head with the highest previous-token score."""
    half = SETTINGS.half
    prev_head, _ = strongest_heads(history())
    matrix = sample()[1].weights(0)[0, prev_head]
    first = _share_of_rows(matrix, np.arange(1, half), 1)
    second = _share_of_rows(matrix, np.arange(half, 2 * half), 1)
    return _trained_pattern(
        style, matrix, f"Warstwa 1, głowa {prev_head + 1} po treningu",
        f"Najsilniejsza waga wiersza leży na poprzednim tokenie w {fmt_dec(first * 100, 0)}% "
        f"wierszy pierwszej połowy (jasna linia tuż pod przekątną) i w "
        f"{fmt_dec(second * 100, 0)}% wierszy drugiej połowy, gdzie uwaga jest rozmyta na kilka "
        "ostatnich tokenów.")


@figure
def trained_induction_head(style) -> Plot:
    """The trained layer-2 head with the highest induction score: the off-diagonal stripe."""
    half = SETTINGS.half
    _, ind_head = strongest_heads(history())
    matrix = sample()[1].weights(1)[0, ind_head]
    on_stripe = _share_of_rows(matrix, np.arange(half, 2 * half), half - 1)
    on_self = _share_of_rows(matrix, np.arange(half), 0)
    return _trained_pattern(
        style, matrix, f"Warstwa 2, głowa {ind_head + 1} po treningu",
        f"W drugiej połowie jasne pola tworzą ukośny pas przesunięty o {half - 1} pozycji w "
        f"lewo od przekątnej: najsilniejsza waga wiersza leży na tokenie, który nastąpił po "
        f"wcześniejszym wystąpieniu bieżącego, w {fmt_dec(on_stripe * 100, 0)}% wierszy. W "
        f"pierwszej połowie, gdzie nie ma czego dopasować, głowa patrzy na samą siebie w "
        f"{fmt_dec(on_self * 100, 0)}% wierszy.")


@figure
def hand_built_induction_head(style) -> Plot:
    """The hand-built induction head of attn_core.induction_toy on the same sample sequence."""
    half = SETTINGS.half
    matrix = sample()[2]
    on_stripe = _share_of_rows(matrix, np.arange(half, 2 * half), half - 1)
    rows = np.arange(half, 2 * half)
    weight = matrix[rows, rows - half + 1].min()
    spread = max(np.ptp(matrix[i, 1:i + 1]) for i in range(2, half))  # first half, keys 2..i
    first_half = ("waga rozkłada się po równo na dostępne klucze (poza pierwszym)" if spread < 1e-6
                  else f"waga rozkłada się nierówno (rozrzut do {fmt_dec(spread, 2)})")
    return _trained_pattern(
        style, matrix, "Głowa indukcyjna zbudowana ręcznie",
        f"W drugiej połowie cała waga wiersza leży na ukośnym pasie przesuniętym o {half - 1} "
        f"pozycji w lewo od przekątnej (najsilniejsza w {fmt_dec(on_stripe * 100, 0)}% wierszy, "
        f"najmniejsza waga na pasie {fmt_dec(weight, 2)}). W pierwszej połowie, gdzie nie ma "
        f"czego dopasować, {first_half}.",
        caption="ręcznie ustawione wagi obwodu z wpisu o mechanizmie uwagi, na tej samej "
                "sekwencji liter")
