"""An induction-head toy: [A][B] ... [A] -> [B] with a hand-built two-layer circuit.

Page: docs/posty/posts/llm-mechanizm-uwagi.md (section "Co naprawdę robią głowy uwagi",
induction heads, Olsson et al. 2022).

Inputs: `WORDS` (a Polish token sequence whose last token repeats an earlier one: A = "Pan",
B = "Tadeusz"), `VOCAB` (its distinct words, in order of first appearance).

Values: `induction_sentence` (the sequence as text), `induction_n_tokens`, `induction_a`,
`induction_b` (the expected continuation: the token that followed the earlier A),
`induction_a_position`, `induction_b_position` (0-based, as everywhere on the site),
`induction_predicted` (word),
`induction_predicted_id`, `induction_expected_id`, `prev_head_min_weight` (smallest weight a
query puts on the token just before it, positions 1..T-1, previous-token head), `prev_head_leak`
(the largest total weight any such query puts elsewhere), `induction_top_key`,
`induction_top_position` (0-based), `induction_top_weight` (the key the last query weights most
in the induction head, and its weight), `induction_top_leak` (the total weight the last query
puts on all other keys), `induction_unmatched_spread` (how unevenly a query seen for the first
time spreads its weight over positions 1..i: 0 = evenly), `induction_logit_gap` (logit of the
prediction minus the next-best logit), `induction_logit_table` (token, logit, sorted),
`induction_probs` (softmax of the logits), `induction_prob_top`, `induction_prob_next`,
`induction_vocab_size`, `induction_score_scale`, `induction_leak_formula` ((T-1) / (e^s + T-1):
the leak of both heads at the last query), `induction_n_others` (T - 1).
Figures: `previous_token_head`, `induction_head` (attention patterns, rows = query,
columns = key), `induction_prediction` (probabilities over the vocabulary at the last
position).
"""

from __future__ import annotations

import functools

import numpy as np

from anatomia_engine.kit import Plot, Table, figure, values
from anatomia_engine.numfmt import fmt_dec
from anatomia_engine.plot import new_figure
from attn_core import INDUCTION_SCORE_SCALE, future_mask, induction_toy, softmax
from figures_src._shared.charts import bar_chart, heatmap

WORDS = ("Pan", "Tadeusz", "wrócił", "do", "Soplicowa", "i", "Pan")
VOCAB = tuple(dict.fromkeys(WORDS))


def token_ids(words=WORDS, vocab=VOCAB) -> np.ndarray:
    """Ids of `words` in `vocab`: (T,) ints."""
    return np.array([vocab.index(w) for w in words])


def expected_next(words=WORDS) -> tuple[int, str]:
    """(0-based position, word) of the token that followed the last word's earlier occurrence."""
    last = words[-1]
    earlier = [i for i, w in enumerate(words[:-1]) if w == last]
    if not earlier:
        raise ValueError(f"the last token {last!r} does not occur earlier in {words}")
    pos = earlier[-1] + 1
    return pos, words[pos]


@functools.cache
def toy():
    return induction_toy(token_ids(), len(VOCAB))


def first_occurrences(words=WORDS) -> list[int]:
    """0-based positions i >= 1 whose token has not occurred before: nothing to match."""
    return [i for i in range(1, len(words)) if words[i] not in words[:i]]


def _unmatched_spread(weights: np.ndarray) -> float:
    """Largest spread (max - min) of the induction-head weights a first-occurrence query puts
    on the keys it may match, positions 1..i (position 0 has no previous token); 0 = even."""
    return float(max(np.ptp(weights[i, 1:i + 1]) for i in first_occurrences()))


def _labels() -> list[str]:
    """Tick labels: the word with its 0-based position, since A occurs twice."""
    return [f"{w} ({i})" for i, w in enumerate(WORDS)]


@values
def induction() -> dict:
    result = toy()
    b_pos, b_word = expected_next()
    prev = np.asarray(result.prev_token_weights)
    ind = np.asarray(result.induction_weights)
    last_row = ind[-1]
    top = int(np.argmax(last_row))
    logits = np.asarray(result.logits, dtype=float)
    order = np.argsort(logits)[::-1]
    predicted = int(result.predicted)
    return {
        "induction_sentence": " ".join(WORDS),
        "induction_n_tokens": len(WORDS),
        "induction_a": WORDS[-1],
        "induction_b": b_word,
        "induction_a_position": WORDS.index(WORDS[-1]),
        "induction_b_position": b_pos,
        "induction_predicted": VOCAB[predicted],
        "induction_predicted_id": predicted,
        "induction_expected_id": VOCAB.index(b_word),
        "prev_head_min_weight": float(min(prev[i, i - 1] for i in range(1, len(WORDS)))),
        "prev_head_leak": float(max(np.delete(prev[i, : i + 1], i - 1).sum()
                                    for i in range(1, len(WORDS)))),
        "induction_top_key": WORDS[top],
        "induction_top_position": top,
        "induction_top_weight": float(last_row[top]),
        "induction_top_leak": float(np.delete(last_row, top).sum()),
        "induction_unmatched_spread": _unmatched_spread(ind),
        "induction_logit_gap": float(logits[order[0]] - logits[order[1]]),
        "induction_probs": softmax(logits),
        "induction_prob_top": float(softmax(logits)[predicted]),
        "induction_prob_next": float(softmax(logits)[order[1]]),
        "induction_vocab_size": len(VOCAB),
        "induction_score_scale": INDUCTION_SCORE_SCALE,
        # The leak of both heads, in closed form: the last query has one key scoring
        # score_scale and (T - 1) keys scoring 0, so the others get (T-1) / (e^s + T - 1).
        "induction_leak_formula": (len(WORDS) - 1) / (np.exp(INDUCTION_SCORE_SCALE)
                                                      + len(WORDS) - 1),
        "induction_n_others": len(WORDS) - 1,
        "induction_logit_table": Table(header=["token", "logit"],
                                  rows=[[VOCAB[i], float(logits[i])] for i in order],
                                  formats=[None, "dec:2"]),
    }


def _pattern_figure(style, matrix, title: str, what: str) -> Plot:
    labels = _labels()
    t = len(WORDS)
    fig, ax = new_figure(style, size=(5.0, 4.4))
    heatmap(ax, matrix, row_labels=labels, col_labels=labels, style=style, decimals=2,
            blocked=future_mask(t), vmin=0.0, vmax=1.0, title=title, quantity="weights",
            xlabel="klucz (na który token patrzymy)", ylabel="zapytanie (token, który patrzy)")
    ax.tick_params(axis="x", labelrotation=45, rotation_mode="xtick")
    rows = [[labels[i]] + [float(matrix[i, j]) for j in range(t)] for i in range(t)]
    strongest = [f"{labels[i]} → {labels[int(np.argmax(matrix[i]))]}" if matrix[i].max() > 0.9
                 else f"{labels[i]}: waga rozłożona (najwyżej {fmt_dec(matrix[i].max(), 2)})"
                 for i in range(t)]
    return Plot(
        fig=fig,
        alt=(f"Mapa ciepła {t}×{t}: {what} Wiersze to zapytania, kolumny to klucze; pola nad "
             f"przekątną (przyszłość) są zablokowane maską. Najsilniejsza waga w każdym "
             f"wierszu: " + "; ".join(strongest) + "."),
        caption=f"{title}: wagi uwagi w zdaniu „{' '.join(WORDS)}”.",
        table=Table(header=["zapytanie \\ klucz"] + labels, rows=rows,
                    formats=[None] + ["dec:2"] * t),
    )


@figure
def previous_token_head(style) -> Plot:
    """Layer 1: each token attends to the token just before it."""
    return _pattern_figure(
        style, np.asarray(toy().prev_token_weights), "Głowa poprzedniego tokenu (warstwa 1)",
        "każdy token patrzy na token tuż przed sobą (pierwszy, nie mając poprzednika, na "
        "siebie).")


@figure
def induction_head(style) -> Plot:
    """Layer 2: the last A attends to the token that followed the earlier A."""
    b_pos, b_word = expected_next()
    return _pattern_figure(
        style, np.asarray(toy().induction_weights), "Głowa indukcyjna (warstwa 2)",
        f"ostatni token „{WORDS[-1]}” patrzy na „{b_word}” (pozycja {b_pos}), czyli na "
        f"token, który nastąpił po wcześniejszym „{WORDS[-1]}”.")


@figure
def induction_prediction(style) -> Plot:
    """Probabilities (softmax of the logits) over the vocabulary at the last position."""
    result = toy()
    logits = np.asarray(result.logits, dtype=float)
    probs = softmax(logits)
    predicted = int(result.predicted)
    fig, ax = new_figure(style, size=(5.2, 3.0))
    bar_chart(ax, list(VOCAB), probs, style=style, decimals=0, percent=True, highlight=predicted,
              ylabel="prawdopodobieństwo")
    ax.tick_params(axis="x", labelrotation=30, rotation_mode="xtick")
    return Plot(
        fig=fig,
        alt=(f"Wykres słupkowy prawdopodobieństw następnego słowa dla {len(VOCAB)} słów "
             f"słownika na ostatniej pozycji zdania. Najwyższy słupek ma „{VOCAB[predicted]}” "
             f"({fmt_dec(probs[predicted] * 100, 0)}%), każde z pozostałych słów "
             f"{fmt_dec(np.delete(probs, predicted).max() * 100, 0)}%."),
        caption=(f"Co obwód przewiduje po ostatnim „{WORDS[-1]}”: softmax logitów "
                 f"(logit {fmt_dec(logits[predicted], 0)} dla zwycięzcy, "
                 f"{fmt_dec(np.delete(logits, predicted).max(), 0)} dla pozostałych)."),
        table=Table(header=["token", "logit", "prawdopodobieństwo"],
                    rows=[[w, float(x), float(p)] for w, x, p in zip(VOCAB, logits, probs, strict=True)],
                    formats=[None, "dec:2", "pct:1"]),
    )
