"""Worked example "cat chases mouse": one decoder layer computed by hand, step by step.

Page: docs/krok-po-kroku.md.
Inputs (written down once in figures_src/_shared/inputs.py, re-exported here): VOCAB, W_VOCAB,
SENTENCE_IDS, W_Q, W_K, W_V, W_FFN. SOURCE_PRINTED holds the numbers the source article printed.
Values: sentence, sentence_ids, continued, d_model, d_k, vocab_size, n_params, sqrt_d_k,
W_vocab, W_Q, W_K, W_V, W_FFN, E, Q, K, V, K_T, scores, scaled, mask, masked, weights,
weights_enc, weights_unscaled, sharpen_factor, weights_sharp, exp_masked, attn_out, change, ffn_out,
h_last, logits,
exp_logits, probs, top_id, top_token, top_prob, qkv_identity, last_row_same, vocab_table,
prob_table, source_table, n_source_values, n_source_differ, base_d_model, base_heads, base_d_k,
bert_d_model (quoted: kit.Value with cite); soft lookup: soft_keys, soft_values, soft_query,
soft_sigma, soft_weights, soft_pred, soft_top, soft_nearest, soft_narrow_sigma, soft_narrow_pred,
soft_narrow_top_weight, soft_table; order and residual: reordered_sentence, last_out_reordered,
order_gap, residual; padding: pad_sentence, pad_token, pad_len, pad_full_len, pad_weights,
pad_embedding, pad_weights_nomask, pad_mask_bool, pad_leak, pad_gap, pad_zero; rounding: probs_shown_sum,
probs_shown_pct_sum; by hand: hand_row, hand_dim, hand_av, hand_av_rounded,
hand_exact_rounded. The main matrices carry `what` and `axes` (kit.Value). For the live page's
drawings: live_colour_maps (each theme's colour maps, sampled).
Figures: scaled_scores, causal_mask_figure, weights_masked_vs_unmasked, embedding_plane,
next_token_probs, soft_lookup, padding_mask_figure, transformer_block, qkv_projection,
head2_weights. Second head (HEAD2_W_*): tokens, h2_W_Q, h2_W_K, h2_W_V, h2_Q, h2_K, h2_V, h2_K_T,
h2_scores, h2_scaled, h2_weights, h2_weights_enc, h2_out, h2_residual.
"""

from __future__ import annotations

import functools
from decimal import Decimal

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import to_hex
from matplotlib.ticker import FuncFormatter

from anatomia_engine.errors import EngineError
from anatomia_engine.kit import Plot, Table, Value, figure, values
from anatomia_engine.numfmt import fmt_dec, fmt_pct, round_half_up
from anatomia_engine.plot import STYLES, new_figure
from attn_core import (
    causal_mask,
    future_mask,
    masked_softmax,
    nadaraya_watson,
    padding_mask,
    softmax,
    tiny_decoder,
)
from figures_src._shared.charts import QUANTITIES, bar_chart, heatmap
from figures_src._shared.inputs import (
    HEAD2_W_K,
    HEAD2_W_Q,
    HEAD2_W_V,
    SENTENCE_IDS,
    VOCAB,
    W_FFN,
    W_K,
    W_Q,
    W_V,
    W_VOCAB,
)

# Published configurations quoted on the page (facts, not results of this example).
# Transformer base: Vaswani et al. 2017, "Attention Is All You Need", section 3.2.2 and table 3.
BASE_D_MODEL = 512
BASE_HEADS = 8
# BERT-base (Devlin et al. 2019, section 3: H = 768) and GPT-2 small (Radford et al. 2019, table 2).
BERT_D_MODEL = 768

# The softmax paragraph multiplies the scaled scores by this factor to show how larger score
# differences sharpen the distribution (an illustration chosen for the page, not a model value).
SHARPEN_FACTOR = 10

# "Attention as a soft lookup" (Nadaraya-Watson kernel regression), before Q, K and V: a small
# table of (key, value) pairs, one query between the keys, and the kernel's width sigma. A
# narrow width (SOFT_LOOKUP_NARROW) shows the soft lookup turning into a nearest-key lookup.
SOFT_LOOKUP_KEYS = (1.0, 2.0, 3.0, 4.0, 5.0)
SOFT_LOOKUP_VALUES = (2.0, 4.0, 3.0, 5.0, 4.5)
SOFT_LOOKUP_QUERY = 2.3
SOFT_LOOKUP_SIGMA = 0.6
SOFT_LOOKUP_NARROW = 0.2

# The order experiment: the same three words in another order ("chases cat mouse").
REORDERED_IDS: list[int] = [1, 0, 2]

# The padding mask: a batch of two sentences of different length. The shorter one is padded
# with a token "[PAD]" (as in BERT) whose embedding is PAD_EMBEDDING (any vector would do: it is masked).
PAD_TOKEN = "[PAD]"
GAP_DECIMALS = 3   # places of the mouse row's scores in the sentence about their gap (docs: krok 5)
# Places of A, V and AV in step 6's formula (docs: krok 6): a reader who multiplies the numbers shown
# there gets the product of rounded numbers, whose last digit can differ from the rounded exact one.
AV_DECIMALS = {"weights": 2, "V": 1, "attn_out": 2}
PAD_EMBEDDING = (0.0, 0.0)
BATCH_IDS: list[list[int]] = [[0, 1, 2], [2, 1]]   # "cat chases mouse", "mouse chases"

# The numbers printed by the source article "Mechanizm attention krok po kroku — przykład
# obliczeniowy" (seed 000_c028d74c44707e49 of this project), copied as printed, dot as the
# decimal mark. The source rounded intermediate results and computed on with the rounded
# numbers; the page compares these strings with the exact computation (see source_table).
# Keys are names of values of this module; "probs_pct" is `probs` in percent.
SOURCE_PRINTED: dict[str, object] = {
    "W_vocab": [["1.0", "0.2", "0.8", "0.0", "0.0"], ["0.0", "1.0", "0.0", "0.5", "0.0"]],
    "W_FFN": [["0.5", "1.0"], ["1.0", "0.5"]],
    "scores": [["1.0", "0.2", "0.8"], ["0.2", "1.04", "0.16"], ["0.8", "0.16", "0.64"]],
    "sqrt_d_k": "1.414",
    "scaled": [["0.71", "0.14", "0.57"], ["0.14", "0.74", "0.11"], ["0.57", "0.11", "0.45"]],
    "weights": [["1.0", "0.0", "0.0"], ["0.35", "0.65", "0.0"], ["0.40", "0.25", "0.35"]],
    "attn_out": [["1.0", "0.0"], ["0.48", "0.65"], ["0.73", "0.25"]],
    "ffn_out": [["0.50", "1.00"], ["0.89", "0.81"], ["0.62", "0.86"]],
    "logits": ["0.62", "0.984", "0.496", "0.43", "0.0"],
    "probs": ["0.21", "0.31", "0.19", "0.18", "0.11"],
    "probs_pct": ["21", "31", "19", "18", "11"],
}


# ---------------------------------------------------------------------------------------------
# Computation
# ---------------------------------------------------------------------------------------------
@functools.cache
def _traces():
    """The decoder (causal mask) and the same layer without a mask (encoder-style)."""
    decoder = tiny_decoder(SENTENCE_IDS, W_VOCAB, W_Q, W_K, W_V, W_FFN, causal=True)
    encoder = tiny_decoder(SENTENCE_IDS, W_VOCAB, W_Q, W_K, W_V, W_FFN, causal=False)
    return decoder, encoder


@functools.cache
def _head2_traces():
    """The second, hand-set head (HEAD2_W_Q, HEAD2_W_K, HEAD2_W_V) on the same embeddings:
    with the causal mask and without it."""
    decoder = tiny_decoder(SENTENCE_IDS, W_VOCAB, HEAD2_W_Q, HEAD2_W_K, HEAD2_W_V, W_FFN, causal=True)
    encoder = tiny_decoder(SENTENCE_IDS, W_VOCAB, HEAD2_W_Q, HEAD2_W_K, HEAD2_W_V, W_FFN, causal=False)
    return decoder, encoder


def _tokens() -> list[str]:
    return [VOCAB[i] for i in SENTENCE_IDS]


@values
def worked_example() -> dict:
    dec, enc = _traces()
    att = dec.attention
    tokens = _tokens()
    t, d_model = dec.embeddings.shape
    d_k = dec.k.shape[-1]
    sqrt_d_k = float(np.sqrt(d_k))
    probs = dec.probs
    top_id = int(np.argmax(probs))
    unscaled = softmax(att.scores + causal_mask(t))
    out = {
        # inputs and sizes
        "sentence": " ".join(tokens),
        "sentence_ids": ", ".join(map(str, SENTENCE_IDS[:-1])) + f" i {SENTENCE_IDS[-1]}",
        "continued": " ".join([*tokens, VOCAB[top_id]]),
        "d_model": d_model,
        "d_k": d_k,
        "vocab_size": len(VOCAB),
        "n_params": sum(w.size for w in (W_VOCAB, W_Q, W_K, W_V, W_FFN)),
        "qkv_identity": int(all(np.array_equal(w, np.eye(d_model)) for w in (W_Q, W_K, W_V))),
        "W_vocab": np.array(W_VOCAB),
        "W_Q": np.array(W_Q),
        "W_K": np.array(W_K),
        "W_V": np.array(W_V),
        "W_FFN": np.array(W_FFN),
        # steps 1-6: embeddings and attention
        "E": dec.embeddings,
        "Q": dec.q,
        "K": dec.k,
        "V": dec.v,
        "K_T": dec.k.T,
        "scores": att.scores,
        "sqrt_d_k": sqrt_d_k,
        "scaled": att.scaled,
        "mask": Value(causal_mask(t), masked=True),          # 0 / -inf
        "masked": att.masked,                                        # -inf above the diagonal
        "exp_masked": np.exp(att.masked),                            # e^-inf = 0
        "weights": att.weights,
        "weights_enc": enc.attention.weights,
        "weights_unscaled": unscaled,
        "sharpen_factor": SHARPEN_FACTOR,
        "weights_sharp": softmax(SHARPEN_FACTOR * att.scaled + causal_mask(t)),
        # The mouse row's gap between the scores of cat and chases, and whether the difference
        # of the two scores as printed (GAP_DECIMALS places) is the gap as printed: a reader who
        # subtracts the shown numbers gets the shown result.
        "mouse_gap": att.scaled[-1][0] - att.scaled[-1][1],
        "mouse_gap_shown_agrees": int(
            round_half_up(att.scaled[-1][0], GAP_DECIMALS) - round_half_up(att.scaled[-1][1], GAP_DECIMALS)
            == round_half_up(att.scaled[-1][0] - att.scaled[-1][1], GAP_DECIMALS)),
        "last_row_same": int(np.array_equal(att.weights[-1], enc.attention.weights[-1])),
        "attn_out": att.output,
        "change": att.output - dec.embeddings,
        # steps 7-8: FFN, logits, probabilities
        "ffn_out": dec.ffn_out,
        "h_last": dec.last_hidden,
        "logits": dec.logits,
        "exp_logits": np.exp(dec.logits),
        "probs": probs,
        "top_id": top_id,
        "top_token": VOCAB[top_id],
        "top_prob": float(probs[top_id]),
        "vocab_table": Table(
            header=["id", "token", "wymiar 0", "wymiar 1", "w zdaniu"],
            # the id is a label (an input), not a result: plain text, no provenance popover or Tab stop
            rows=[[str(i), tok, W_VOCAB[0, i], W_VOCAB[1, i], "tak" if i in SENTENCE_IDS else "nie"]
                  for i, tok in enumerate(VOCAB)],
            formats=[None, None, "dec:1", "dec:1", None]),
        "prob_table": Table(
            header=["token", "logit", "prawdopodobieństwo"],
            rows=[[tok, dec.logits[i], probs[i]] for i, tok in enumerate(VOCAB)],
            formats=[None, "dec:3", "pct:1"]),
        # quoted configurations
        "base_d_model": BASE_D_MODEL,
        "base_heads": BASE_HEADS,
        "base_d_k": BASE_D_MODEL // BASE_HEADS,
        "bert_d_model": BERT_D_MODEL,
    }
    out.update(_source_comparison(out))
    out.update(_soft_lookup())
    out.update(_order_and_residual(dec))
    out.update(_padding())
    out.update(_rounding(probs))
    out.update(_by_hand(att.weights, dec.v, att.output))
    out.update(_second_head())
    out["live_colour_maps"] = _live_colour_maps()
    return _described(out, tokens)


# Stops per colour map handed to the live page: it interpolates linearly between them, which
# stays within a few 1/255 of matplotlib's own 256-entry table (tests/browser/test_live_page.py).
LIVE_COLOUR_STOPS = 33


def _live_colour_maps() -> dict:
    """Each theme's colour maps as the figures use them (figures_src/_shared/charts.py heatmap: "scores"
    diverging around 0, "weights" sequential from 0), sampled at evenly spaced points, so that the
    grids the live page redraws colour sign and size exactly as the built figures do."""
    maps = {}
    for style in STYLES:
        maps[style.name] = {}
        for quantity, (attribute, _) in QUANTITIES.items():
            cmap = matplotlib.colormaps[getattr(style, attribute)]
            points = np.linspace(0.0, 1.0, LIVE_COLOUR_STOPS)
            maps[style.name][quantity] = [to_hex(cmap(float(x))) for x in points]
    return maps


def _second_head() -> dict:
    """The second head: Q, K and V that differ, scores that are not symmetric, one named job."""
    dec, enc = _head2_traces()
    att = dec.attention
    return {
        "tokens": _tokens(),
        "h2_W_Q": np.array(HEAD2_W_Q),
        "h2_W_K": np.array(HEAD2_W_K),
        "h2_W_V": np.array(HEAD2_W_V),
        "h2_Q": dec.q,
        "h2_K": dec.k,
        "h2_V": dec.v,
        "h2_K_T": dec.k.T,
        "h2_scores": att.scores,
        "h2_scaled": att.scaled,
        "h2_weights": att.weights,
        "h2_weights_enc": enc.attention.weights,
        "h2_out": att.output,
        "h2_residual": dec.embeddings + att.output,
    }


def _described(out: dict, tokens: list[str]) -> dict:
    """What the main matrices and vectors are (shown when a reader points at a number)."""
    dims = ["0", "1"]
    what = {
        "E": ("embedding: {i}, wymiar {j}", (tokens, dims)),
        "Q": ("zapytanie: {i}, wymiar {j}", (tokens, dims)),
        "K": ("klucz: {i}, wymiar {j}", (tokens, dims)),
        "V": ("wartość: {i}, wymiar {j}", (tokens, dims)),
        "scores": ("ocena dopasowania: {i} patrzy na {j}", (tokens, tokens)),
        "scaled": ("ocena po skalowaniu: {i} patrzy na {j}", (tokens, tokens)),
        "masked": ("ocena po masce: {i} patrzy na {j}", (tokens, tokens)),
        "weights": ("waga: {i} patrzy na {j}", (tokens, tokens)),
        "weights_enc": ("waga bez maski: {i} patrzy na {j}", (tokens, tokens)),
        "attn_out": ("wyjście uwagi: {i}, wymiar {j}", (tokens, dims)),
        "residual": ("E + AV: {i}, wymiar {j}", (tokens, dims)),
        "ffn_out": ("wyjście FFN: {i}, wymiar {j}", (tokens, dims)),
        "h_last": ("h_mouse, wymiar {i}", (dims,)),
        "logits": ("logit tokenu {i}", (VOCAB,)),
        "probs": ("prawdopodobieństwo, że następny będzie {i}", (VOCAB,)),
        "soft_weights": ("waga klucza {i}", ([fmt_dec(k, 0) for k in SOFT_LOOKUP_KEYS],)),
        "h2_Q": ("druga głowa, zapytanie: {i}, wymiar {j}", (tokens, dims)),
        "h2_K": ("druga głowa, klucz: {i}, wymiar {j}", (tokens, dims)),
        "h2_V": ("druga głowa, wartość: {i}, wymiar {j}", (tokens, dims)),
        "h2_scores": ("druga głowa, ocena: {i} patrzy na {j}", (tokens, tokens)),
        "h2_weights": ("druga głowa, waga: {i} patrzy na {j}", (tokens, tokens)),
        "h2_weights_enc": ("druga głowa bez maski, waga: {i} patrzy na {j}", (tokens, tokens)),
        "h2_out": ("druga głowa, wyjście: {i}, wymiar {j}", (tokens, dims)),
        "h2_residual": ("E + wyjście drugiej głowy: {i}, wymiar {j}", (tokens, dims)),
    }
    for name, (text, axes) in what.items():
        out[name] = Value(out[name], what=text, axes=axes, masked=name == "masked")
    out["base_d_model"] = Value(BASE_D_MODEL, cite="Vaswani i in. (2017)")
    out["base_heads"] = Value(BASE_HEADS, cite="Vaswani i in. (2017)")
    out["bert_d_model"] = Value(BERT_D_MODEL, cite="Devlin i in. (2019)")
    return out


@functools.cache
def _soft_lookup_results():
    keys = np.array(SOFT_LOOKUP_KEYS)
    vals = np.array(SOFT_LOOKUP_VALUES)
    wide = nadaraya_watson([SOFT_LOOKUP_QUERY], keys, vals, bandwidth=SOFT_LOOKUP_SIGMA)
    narrow = nadaraya_watson([SOFT_LOOKUP_QUERY], keys, vals, bandwidth=SOFT_LOOKUP_NARROW)
    return keys, vals, wide, narrow


def _soft_lookup() -> dict:
    """Nadaraya-Watson regression at one query: weights over the keys and the prediction."""
    keys, vals, wide, narrow = _soft_lookup_results()
    weights = wide.weights[0]
    nearest = int(np.argmin(np.abs(keys - SOFT_LOOKUP_QUERY)))
    return {
        "soft_keys": keys,
        "soft_values": vals,
        "soft_query": SOFT_LOOKUP_QUERY,
        "soft_sigma": SOFT_LOOKUP_SIGMA,
        "soft_weights": weights,
        "soft_pred": float(wide.output[0]),
        "soft_top": int(np.argmax(weights)),
        "soft_nearest": nearest,
        "soft_narrow_sigma": SOFT_LOOKUP_NARROW,
        "soft_narrow_pred": float(narrow.output[0]),
        "soft_narrow_top_weight": float(narrow.weights[0].max()),
        "soft_table": Table(
            header=["klucz xⱼ", "wartość yⱼ", "waga aⱼ"],
            rows=[[k, v, w] for k, v, w in zip(keys, vals, weights, strict=True)],
            formats=["dec:1", "dec:1", "dec:3"]),
    }


def _order_and_residual(dec) -> dict:
    """The last row without positions does not depend on the order; E + AV is the residual step."""
    reordered = tiny_decoder(REORDERED_IDS, W_VOCAB, W_Q, W_K, W_V, W_FFN, causal=True)
    last = dec.attention.output[-1]
    last_re = reordered.attention.output[-1]
    residual = dec.embeddings + dec.attention.output
    return {
        "reordered_sentence": " ".join(VOCAB[i] for i in REORDERED_IDS),
        "last_out_reordered": last_re,
        "order_gap": float(np.abs(last - last_re).max()),
        "residual": residual,
    }


@functools.cache
def _padding_results():
    """Both sentences of BATCH_IDS padded to one length, without and with the padding mask."""
    table = np.column_stack([W_VOCAB, PAD_EMBEDDING])                # (d, V + 1): pad = id V
    pad_id = len(VOCAB)
    t = max(map(len, BATCH_IDS))
    ids = [row + [pad_id] * (t - len(row)) for row in BATCH_IDS]
    x = np.stack([table[:, row].T for row in ids])                   # (B, T, d)
    q = x @ np.array(W_Q)                      # (B, T, d_k)
    k = x @ np.array(W_K)                      # (B, T, d_k)
    scaled = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])         # (B, T, T)
    lens = [len(row) for row in BATCH_IDS]
    no_mask = softmax(scaled)                                        # (B, T, T)
    with_mask = masked_softmax(scaled, lens)                         # (B, T, T)
    short = BATCH_IDS[1]
    alone = softmax(scaled[1, :len(short), :len(short)])             # the short one, unpadded
    names = [VOCAB[i] for i in short] + [PAD_TOKEN] * (t - len(short))
    return names, lens, no_mask, with_mask, alone, padding_mask(lens, t)


def _padding() -> dict:
    names, lens, no_mask, with_mask, alone, blocked = _padding_results()
    n = lens[1]
    return {
        "pad_sentence": " ".join(names[:n]),
        "pad_token": PAD_TOKEN,
        "pad_embedding": np.array(PAD_EMBEDDING),
        "pad_len": lens[1],
        "pad_full_len": lens[0],
        "pad_weights_nomask": no_mask[1],
        "pad_weights": with_mask[1],
        "pad_mask_bool": blocked[1],
        "pad_leak": float(no_mask[1][0][n:].sum()),
        "pad_gap": float(np.abs(with_mask[1][:n, :n] - alone).max()),
        "pad_zero": int(np.all(with_mask[1][:, n:] == 0)),
    }


def _rounding(probs) -> dict:
    """The probabilities as shown (two places and one place in percent) do not always sum to 1."""
    shown = sum(round_half_up(float(p), 2) for p in probs)
    shown_pct = sum(round_half_up(float(p) * 100, 1) for p in probs)
    return {"probs_shown_sum": float(shown), "probs_shown_pct_sum": float(shown_pct)}


def _by_hand(weights, v, output) -> dict:
    """Step 6 "on paper": A·V from A and V as the page shows them (AV_DECIMALS), against the exact
    A·V as shown. The cell (row, dimension) is the one where the two differ most among those whose
    shown digits differ; where none does, the one where they differ most (the page's claim is
    then false and says so)."""
    a_places = AV_DECIMALS["weights"]
    v_places = AV_DECIMALS["V"]
    shown_a = [[round_half_up(float(x), a_places) for x in row] for row in weights]
    shown_v = [[round_half_up(float(x), v_places) for x in row] for row in v]
    cells = []
    for i, j in np.ndindex(output.shape):
        by_hand = sum(shown_a[i][k] * shown_v[k][j] for k in range(len(shown_v)))   # exact Decimal
        differs = round_half_up(by_hand, AV_DECIMALS["attn_out"]) != round_half_up(
            float(output[i, j]), AV_DECIMALS["attn_out"])
        cells.append((differs, abs(float(by_hand) - float(output[i, j])), i, j, by_hand))
    # ties (equal gaps) go to the later cell, as in the browser's model (explorer.js)
    _, _, row, dim, by_hand = max(cells)
    places = AV_DECIMALS["attn_out"]
    return {
        "hand_row": row,
        "hand_dim": dim,
        "hand_av": Value(float(by_hand), what="A·V policzone z liczb A i V pokazanych w kroku 6"),
        # both rounded as the page shows A·V: the sentence compares these two
        "hand_av_rounded": Value(float(round_half_up(by_hand, places)),
                                 what="A·V z liczb pokazanych, zaokrąglone jak na stronie"),
        "hand_exact_rounded": Value(float(round_half_up(float(output[row, dim]), places)),
                                    what="dokładne A·V, zaokrąglone jak na stronie"),
    }


# ---------------------------------------------------------------------------------------------
# Source article versus the exact computation
# ---------------------------------------------------------------------------------------------
def _describe(key: str, index: tuple[int, ...]) -> str:
    """Polish name of one printed number, e.g. 'waga uwagi chases → cat'."""
    tokens = _tokens()
    if key in ("probs", "probs_pct", "logits"):
        tok = VOCAB[index[0]]
        names = {"probs": f"P({tok})", "probs_pct": f"P({tok}) w %", "logits": f"logit {tok}"}
        return names[key]
    if key == "sqrt_d_k":
        return "√dₖ"
    if key == "W_vocab":
        return f"W_vocab: {VOCAB[index[1]]}, wymiar {index[0]}"
    if key == "W_FFN":
        return f"W_FFN[{index[0]}][{index[1]}]"
    row, col = index
    if key in ("scores", "scaled", "weights"):
        name = {"scores": "ocena QKᵀ", "scaled": "ocena QKᵀ/√dₖ", "weights": "waga uwagi"}[key]
        return f"{name} {tokens[row]} → {tokens[col]}"
    name = {"attn_out": "wyjście uwagi", "ffn_out": "wyjście FFN"}[key]
    return f"{name}: {tokens[row]}, wymiar {col}"


def _source_comparison(vals: dict) -> dict:
    """Table of the printed numbers that differ from the exact ones rounded to the same places."""
    exact_of = {key: vals[key] for key in SOURCE_PRINTED if key in vals}
    exact_of["probs_pct"] = vals["probs"] * 100
    rows = []
    n_values = 0
    for key, printed in SOURCE_PRINTED.items():
        printed_arr = np.array(printed, dtype=object)
        exact_arr = np.asarray(exact_of[key], dtype=float)
        if printed_arr.shape != exact_arr.shape:
            raise EngineError("source_printed_shape", key=key, printed=printed_arr.shape,
                              computed=exact_arr.shape)
        for index in np.ndindex(printed_arr.shape):
            text = printed_arr[index]
            exact = float(exact_arr[index])
            places = -Decimal(text).as_tuple().exponent
            n_values += 1
            if round_half_up(exact, places) != Decimal(text):
                rows.append([_describe(key, index), text.replace(".", ","), exact,
                             float(text) - exact])
    return {
        "source_table": Table(
            header=["wielkość", "wartość w źródle", "wartość dokładna",
                    "różnica (źródło − dokładna)"],
            rows=rows, formats=[None, None, "dec:4", "dec:4"]),
        "n_source_values": n_values,
        "n_source_differ": len(rows),
    }


# ---------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------
_XLABEL = "klucz (na który token patrzymy)"
_YLABEL = "zapytanie\n(token, który patrzy)"   # two lines: one is taller than a stacked panel


def _matrix_table(matrix, tokens, spec: str = "dec:4") -> Table:
    return Table(header=["zapytanie \\ klucz", *tokens],
                 rows=[[tok, *map(float, row)] for tok, row in zip(tokens, matrix, strict=True)],
                 formats=[None, *[spec] * len(tokens)])


@figure
def scaled_scores(style) -> Plot:
    dec, _ = _traces()
    tokens = _tokens()
    fig, ax = new_figure(style, size=(4.4, 3.6))
    heatmap(ax, dec.attention.scaled, tokens, tokens, style=style, decimals=2, quantity="scores",
            xlabel=_XLABEL, ylabel=_YLABEL)
    return Plot(fig=fig,
                alt=f"Mapa ciepła {len(tokens)} na {len(tokens)} z przeskalowanymi ocenami "
                    "dopasowania QKᵀ/√dₖ: wiersze to tokeny, które patrzą, kolumny to tokeny, "
                    "na które patrzą; w każdym polu wypisana jest ocena, a jej kolor odczytuje się z "
                    "paska obok (skala ocen dopasowania z zerem pośrodku, wspólna dla witryny).",
                caption="Przeskalowane oceny QKᵀ/√dₖ przed maską. Wiersz: token, który "
                        "patrzy (zapytanie), kolumna: token, na który patrzy (klucz).",
                table=_matrix_table(dec.attention.scaled, tokens))


@figure
def causal_mask_figure(style) -> Plot:
    tokens = _tokens()
    t = len(tokens)
    blocked = future_mask(t)
    fig, ax = new_figure(style, size=(4.4, 3.6))
    heatmap(ax, causal_mask(t), tokens, tokens, style=style, decimals=0, blocked=blocked,
            vmin=0.0, vmax=3.0, xlabel=_XLABEL, ylabel=_YLABEL)
    return Plot(fig=fig,
                alt=f"Maska przyczynowa {t} na {t}: na przekątnej i pod nią zera, nad przekątną "
                    "minus nieskończoność (pola zakreskowane) — token nie widzi tokenów "
                    "późniejszych.",
                caption="Maska przyczynowa dodawana do ocen przed softmaksem: 0 tam, gdzie "
                        "wolno patrzeć, −∞ (zakreskowane) tam, gdzie klucz leży w przyszłości.",
                table=Table(header=["zapytanie \\ klucz", *tokens],
                            rows=[[tok, *("−∞" if b else "0" for b in row)]
                                  for tok, row in zip(tokens, blocked, strict=True)]))


@figure
def weights_masked_vs_unmasked(style) -> Plot:
    dec, enc = _traces()
    tokens = _tokens()
    t = len(tokens)
    fig, (left, right) = plt.subplots(2, 1, figsize=(4.6, 7.0), layout="constrained")
    image = heatmap(left, dec.attention.weights, tokens, tokens, style=style, decimals=2,
                    quantity="weights", colorbar=False,
                    blocked=future_mask(t), vmin=0.0, vmax=1.0, title="z maską (dekoder)",
                    xlabel=_XLABEL, ylabel=_YLABEL)
    heatmap(right, enc.attention.weights, tokens, tokens, style=style, decimals=2, quantity="weights",
            colorbar=False, vmin=0.0, vmax=1.0, title="bez maski (enkoder)", xlabel=_XLABEL,
            ylabel=_YLABEL)
    _shared_colorbar(fig, image, [left, right], style)
    rows = [[f"{q} → {k}", float(dec.attention.weights[i, j]), float(enc.attention.weights[i, j])]
            for i, q in enumerate(tokens) for j, k in enumerate(tokens)]
    return Plot(fig=fig,
                alt="Dwie mapy ciepła wag uwagi, jedna nad drugą. U góry z maską przyczynową: pola "
                    "nad przekątną są zakreskowane i mają wagę zero. Na dole bez maski: każdy "
                    "token rozkłada uwagę na wszystkie trzy tokeny. Ostatni wiersz jest w obu "
                    "taki sam.",
                caption="Wagi uwagi po softmaksie: z maską przyczynową (dekoder, jak w GPT) i bez "
                        "maski (enkoder, jak w BERT). Każdy wiersz sumuje się do 1.",
                table=Table(header=["zapytanie → klucz", "z maską", "bez maski"], rows=rows,
                            formats=[None, "dec:4", "dec:4"]))


def _shared_colorbar(fig, image, axes, style) -> None:
    """One colour bar for stacked weight maps on one scale: both panels keep the same width (a bar
    beside one panel only would shift the two maps against each other)."""
    bar = fig.colorbar(image, ax=axes, shrink=0.6, pad=0.03)
    bar.set_label("waga uwagi", color=style.fg)
    bar.outline.set_visible(False)
    bar.ax.tick_params(colors=style.fg, labelsize=9.5)
    fig.align_ylabels(axes)


def _tick_dec_1(x: float, _position) -> str:
    """An axis tick in the site's format: one place, decimal comma (matplotlib's FuncFormatter)."""
    return fmt_dec(x, 1)


def _tick_pct_0(y: float, _position) -> str:
    """A probability tick in percent, no places."""
    return fmt_pct(y, 0)


def _label_away(direction: np.ndarray) -> dict:
    """Text placement for a point's label, on the side away from its arrow (above if none)."""
    norm = float(np.hypot(*direction))
    if norm < 1e-9:
        return {"xytext": (0, 9), "ha": "center", "va": "bottom"}
    dx, dy = -10 * direction / norm
    ha = "right" if dx < -2 else "left" if dx > 2 else "center"
    return {"xytext": (dx, dy), "ha": ha, "va": "top" if dy < 0 else "bottom"}


@figure
def embedding_plane(style) -> Plot:
    dec, _ = _traces()
    tokens = _tokens()
    emb = dec.embeddings
    out = dec.attention.output
    fig, ax = new_figure(style, size=(5.0, 4.4))
    others = [i for i in range(len(VOCAB)) if i not in SENTENCE_IDS]
    ax.scatter(W_VOCAB[0, others], W_VOCAB[1, others], marker="s", s=28, color=style.muted,
               label="pozostałe tokeny słownika", zorder=2)
    for i in others:
        ax.annotate(VOCAB[i], W_VOCAB[:, i], xytext=(6, -10), textcoords="offset points",
                    color=style.muted)
    ax.scatter(emb[:, 0], emb[:, 1], s=48, facecolors="none", edgecolors=style.accent,
               linewidths=1.6, label="embedding E (przed uwagą)", zorder=3)
    # Smaller than the rings, so that a token attention did not move (cat) shows both markers.
    ax.scatter(out[:, 0], out[:, 1], s=22, color=style.accent2,
               label="wyjście uwagi (po uwadze)", zorder=4)
    for tok, a, b in zip(tokens, emb, out, strict=True):
        if not np.allclose(a, b):
            ax.annotate("", xy=b, xytext=a, zorder=3,
                        arrowprops={"arrowstyle": "->", "color": style.fg, "lw": 1.2,
                                    "shrinkA": 5, "shrinkB": 5})
        ax.annotate(tok, a, color=style.fg, textcoords="offset points", **_label_away(b - a))
    ax.xaxis.set_major_formatter(FuncFormatter(_tick_dec_1))
    ax.yaxis.set_major_formatter(FuncFormatter(_tick_dec_1))
    ax.set_xlabel("wymiar 0 („zwierzęcość”)")
    ax.set_ylabel("wymiar 1 („akcja”)")
    ax.set_aspect("equal", adjustable="datalim")
    ax.grid(True, linewidth=0.5)
    ax.margins(0.15)
    ax.legend(loc="upper right", fontsize=9)
    rows = [[tok, *map(float, a), *map(float, b)] for tok, a, b in zip(tokens, emb, out, strict=True)]
    return Plot(fig=fig,
                alt="Płaszczyzna embeddingów: oś pozioma to wymiar 0, pionowa wymiar 1. Puste "
                    "kółka to embeddingi tokenów zdania, pełne kółka to ich reprezentacje po "
                    "uwadze; strzałki łączą jedno z drugim. Kwadraty to pozostałe tokeny "
                    "słownika.",
                caption="Tokeny zdania przed uwagą (embedding E) i po niej (wyjście uwagi). "
                        "Strzałka pokazuje, dokąd kontekst przesunął token.",
                table=Table(header=["token", "E: wymiar 0", "E: wymiar 1",
                                    "po uwadze: wymiar 0", "po uwadze: wymiar 1"],
                            rows=rows, formats=[None, "dec:4", "dec:4", "dec:4", "dec:4"]))


@figure
def next_token_probs(style) -> Plot:
    dec, _ = _traces()
    probs = dec.probs
    top = int(np.argmax(probs))
    fig, ax = new_figure(style, size=(5.2, 3.4))
    bar_chart(ax, VOCAB, probs, style=style, decimals=1, percent=True, highlight=top,
              ylabel="prawdopodobieństwo")
    ax.yaxis.set_major_formatter(FuncFormatter(_tick_pct_0))
    ax.set_xlabel("kandydat na następny token")
    return Plot(fig=fig,
                alt=f"Wykres słupkowy prawdopodobieństw następnego tokenu dla pięciu tokenów "
                    f"słownika; wyróżniony najwyższy słupek to „{VOCAB[top]}”.",
                caption="Rozkład prawdopodobieństwa następnego tokenu po zdaniu "
                        f"„{' '.join(_tokens())}” (softmax logitów).",
                table=Table(header=["token", "logit", "prawdopodobieństwo"],
                            rows=[[tok, float(dec.logits[i]), float(probs[i])]
                                  for i, tok in enumerate(VOCAB)],
                            formats=[None, "dec:4", "pct:2"]))


@figure
def soft_lookup(style) -> Plot:
    keys, vals, wide, _ = _soft_lookup_results()
    grid = np.linspace(keys.min() - 0.5, keys.max() + 0.5, 201)
    curve = nadaraya_watson(grid, keys, vals, bandwidth=SOFT_LOOKUP_SIGMA).output
    weights = wide.weights[0]
    pred = float(wide.output[0])
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(5.0, 4.8), layout="constrained", sharex=True,
                                      gridspec_kw={"height_ratios": [2.2, 1]})
    top.plot(grid, curve, color=style.accent, lw=1.6, label="przewidywanie f(x) dla każdego x")
    top.scatter(keys, vals, s=36, color=style.fg, zorder=3, label="pary (klucz, wartość)")
    top.scatter([SOFT_LOOKUP_QUERY], [pred], s=70, marker="D", color=style.accent2, zorder=4,
                label=f"zapytanie x = {fmt_dec(SOFT_LOOKUP_QUERY, 1)}")
    top.axvline(SOFT_LOOKUP_QUERY, color=style.accent2, lw=1, ls="--")
    top.set_ylabel("wartość")
    top.legend(loc="lower right", fontsize=9)
    top.spines[["top", "right"]].set_visible(False)
    bottom.bar(keys, weights, width=0.35, color=style.accent)
    for k, w in zip(keys, weights, strict=True):
        bottom.annotate(fmt_dec(w, 2), (k, w), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", color=style.fg, fontsize=9)
    bottom.axvline(SOFT_LOOKUP_QUERY, color=style.accent2, lw=1, ls="--")
    bottom.set_ylim(0, weights.max() * 1.35)
    bottom.set_ylabel("waga")
    bottom.set_xlabel("klucz x")
    bottom.spines[["top", "right"]].set_visible(False)
    return Plot(fig=fig,
                alt=f"Dwa wykresy jeden nad drugim. U góry {len(keys)} punktów (klucz, wartość), "
                    "gładka krzywa przewidywań regresji jądrowej i zaznaczone zapytanie. Na dole "
                    "słupki wag, jakie zapytanie przydziela kluczom: największe przy kluczach "
                    "najbliższych zapytaniu, małe przy dalekich.",
                caption="Miękkie wyszukiwanie (regresja jądrowa Nadarai–Watsona): przewidywanie "
                        "dla zapytania to średnia wartości ważona tym, jak blisko zapytania leży "
                        "każdy klucz; wagi sumują się do 1.",
                table=Table(header=["klucz xⱼ", "wartość yⱼ", "waga dla zapytania"],
                            rows=[[float(k), float(v), float(w)]
                                  for k, v, w in zip(keys, vals, weights, strict=True)],
                            formats=["dec:1", "dec:1", "dec:4"]))


@figure
def padding_mask_figure(style) -> Plot:
    names, lens, no_mask, with_mask, _, blocked = _padding_results()
    b = blocked[1]
    fig, (left, right) = plt.subplots(2, 1, figsize=(4.6, 7.0), layout="constrained")
    image = heatmap(left, no_mask[1], names, names, style=style, decimals=2, vmin=0.0, vmax=1.0,
                    quantity="weights", colorbar=False,
                    title="bez maski dopełnienia", xlabel=_XLABEL, ylabel=_YLABEL)
    heatmap(right, with_mask[1], names, names, style=style, decimals=2, blocked=b, quantity="weights",
            colorbar=False, vmin=0.0, vmax=1.0, title="z maską dopełnienia", xlabel=_XLABEL,
            ylabel=_YLABEL)
    _shared_colorbar(fig, image, [left, right], style)
    rows = [[f"{q} → {k}", float(no_mask[1][i, j]), float(with_mask[1][i, j])]
            for i, q in enumerate(names) for j, k in enumerate(names)]
    n = lens[1]
    return Plot(fig=fig,
                alt=f"Dwie mapy ciepła wag uwagi dla zdania z {n} tokenów dopełnionego do "
                    f"{len(names)} pozycji tokenem {PAD_TOKEN}, jedna nad drugą. U góry, bez maski, "
                    "prawdziwe tokeny oddają część uwagi dopełnieniu. Na dole kolumna dopełnienia jest "
                    "zakreskowana i ma wagę zero, a wagi prawdziwych tokenów sumują się do 1.",
                caption="Maska dopełnienia (padding mask) w enkoderze: kolumny tokenów "
                        f"{PAD_TOKEN} dostają wagę 0 w każdym wierszu. Wiersz samego {PAD_TOKEN} "
                        "liczy się, ale jego wyjścia nikt nie czyta.",
                table=Table(header=["zapytanie → klucz", "bez maski", "z maską"], rows=rows,
                            formats=[None, "dec:4", "dec:4"]))


@figure
def qkv_projection(style) -> Plot:
    dec, _ = _head2_traces()
    tokens = _tokens()
    dims = ["0", "1"]
    panels = [("E", "embeddingi", dec.embeddings),
              ("Q = E·W_Q", "czego token szuka", dec.q),
              ("K = E·W_K", "po czym go znaleźć", dec.k),
              ("V = E·W_V", "co przekazuje", dec.v)]
    reach = max(float(np.abs(m).max()) for _, _, m in panels)
    fig, axes = plt.subplots(2, 2, figsize=(4.6, 5.4), layout="constrained")
    for ax, (name, role, matrix) in zip(axes.flat, panels, strict=True):
        heatmap(ax, matrix, tokens, dims, style=style, decimals=1, quantity="scores",
                colorbar=False, vmin=-reach, vmax=reach, title=f"{name}\n({role})",
                xlabel="wymiar", ylabel="")
    rows = [[tok, *(float(m[i, j]) for _, _, m in panels for j in range(2))]
            for i, tok in enumerate(tokens)]
    return Plot(fig=fig,
                alt="Cztery małe macierze w dwóch rzędach, każda z trzema wierszami (cat, chases, "
                    "mouse) i dwiema kolumnami (wymiar 0 i 1): embeddingi E oraz zapytania Q, "
                    "klucze K i wartości V drugiej głowy. Q ma niezerową liczbę tylko w wierszu "
                    "chases; K ma w wymiarze 0 liczby dodatnie dla cat i mouse i ujemną dla "
                    "chases; V zachowuje tylko wymiar 0 embeddingów.",
                caption="Te same embeddingi E, trzy różne macierze wag, trzy różne wyniki: "
                        "zapytania, klucze i wartości drugiej głowy. Kolor: znak i wielkość "
                        "liczby (zero pośrodku skali).",
                table=Table(header=["token", *(f"{name.split(' ')[0]}, wymiar {d}"
                                               for name, _, _ in panels for d in dims)],
                            rows=rows, formats=[None, *["dec:2"] * 8]))


@figure
def head2_weights(style) -> Plot:
    dec, enc = _head2_traces()
    tokens = _tokens()
    t = len(tokens)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(4.6, 7.0), layout="constrained")
    heatmap(top, dec.attention.scores, tokens, tokens, style=style, decimals=1, quantity="scores",
            title="oceny QKᵀ (przed skalowaniem i maską)", xlabel=_XLABEL, ylabel=_YLABEL)
    heatmap(bottom, dec.attention.weights, tokens, tokens, style=style, decimals=2,
            quantity="weights", blocked=future_mask(t), title="wagi z maską przyczynową",
            xlabel=_XLABEL, ylabel=_YLABEL)
    fig.align_ylabels([top, bottom])
    rows = [[f"{q} → {k}", float(dec.attention.scores[i, j]), float(dec.attention.weights[i, j]),
             float(enc.attention.weights[i, j])]
            for i, q in enumerate(tokens) for j, k in enumerate(tokens)]
    return Plot(fig=fig,
                alt="Dwie mapy ciepła drugiej głowy, jedna nad drugą. U góry oceny QKᵀ: tylko "
                    "wiersz chases ma liczby różne od zera, więc macierz nie jest symetryczna. Na "
                    "dole wagi z maską przyczynową: chases patrzy prawie wyłącznie na cat.",
                caption="Druga głowa: oceny QKᵀ (niesymetryczne — pyta tylko czasownik) i wagi "
                        "po softmaksie z maską przyczynową.",
                table=Table(header=["zapytanie → klucz", "ocena QKᵀ", "waga z maską",
                                    "waga bez maski"],
                            rows=rows, formats=[None, "dec:4", "dec:4", "dec:4"]))


# The Transformer block of Vaswani et al. (2017), figure 1, drawn bottom to top.
_BLOCK = [
    ("x", "wejście bloku x (jeden wektor na token)"),
    ("attn", "uwaga wielogłowa (z maską w bloku typu GPT)"),
    ("add1", "dodaj i normalizuj: LayerNorm(x + uwaga(x))"),
    ("ffn", "sieć feed-forward (osobno dla każdej pozycji)"),
    ("add2", "dodaj i normalizuj: LayerNorm(y + FFN(y))"),
    ("out", "wyjście bloku (wejście następnego bloku)"),
]


@figure
def transformer_block(style) -> Plot:
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    fig, ax = new_figure(style, size=(5.0, 5.0))
    ys = {key: 0.5 + 1.0 * i for i, (key, _) in enumerate(_BLOCK)}
    width = 3.6
    height = 0.56
    x0 = 0.0
    fills = {"attn": style.accent, "ffn": style.accent, "add1": style.accent2,
             "add2": style.accent2}
    for key, label in _BLOCK:
        y = ys[key]
        fill = fills.get(key)
        box = FancyBboxPatch((x0 - width / 2, y - height / 2), width, height,
                             boxstyle="round,pad=0.02,rounding_size=0.08", linewidth=1.2,
                             edgecolor=style.fg if fill is None else fill,
                             facecolor="none" if fill is None else fill, alpha=1.0)
        ax.add_patch(box)
        colour = style.fg if fill is None else style.bg
        ax.text(x0, y, label, ha="center", va="center", fontsize=9, color=colour, wrap=True)
    keys = [k for k, _ in _BLOCK]
    for a, b in zip(keys[:-1], keys[1:], strict=True):
        ax.add_patch(FancyArrowPatch((x0, ys[a] + height / 2), (x0, ys[b] - height / 2),
                                     arrowstyle="-|>", mutation_scale=10, color=style.fg, lw=1.2))
    # Residual (skip) connections: from a block's input around the sub-layer into "add".
    for start, end in (("x", "add1"), ("add1", "add2")):
        y0 = ys[start] + height / 2 + 0.12
        y1 = ys[end]
        side = x0 + width / 2 + 0.35
        ax.add_patch(FancyArrowPatch((x0 + 0.05, y0), (side, y0), arrowstyle="-", color=style.muted,
                                     lw=1.2, connectionstyle="arc3,rad=0"))
        ax.add_patch(FancyArrowPatch((side, y0), (side, y1), arrowstyle="-", color=style.muted,
                                     lw=1.2))
        ax.add_patch(FancyArrowPatch((side, y1), (x0 + width / 2, y1), arrowstyle="-|>",
                                     mutation_scale=10, color=style.muted, lw=1.2))
        ax.text(side + 0.08, (y0 + y1) / 2, "połączenie\nrezydualne", fontsize=9,
                color=style.muted, va="center", ha="left")
    ax.set_xlim(-width / 2 - 0.2, width / 2 + 1.6)
    ax.set_ylim(0, ys["out"] + 0.6)
    ax.set_aspect("equal")
    ax.axis("off")
    rows = [[str(i), label] for i, (_, label) in enumerate(_BLOCK)]
    return Plot(fig=fig,
                alt="Schemat jednego bloku Transformera, od dołu do góry: wejście x, uwaga "
                    "wielogłowa, dodaj i normalizuj, sieć feed-forward, drugie dodaj i normalizuj, "
                    "wyjście. Dwie strzałki omijają podwarstwy: wejście uwagi trafia wprost do "
                    "pierwszego dodawania, a wejście sieci feed-forward do drugiego.",
                caption="Warstwa enkodera Transformera (Vaswani i in., 2017, rysunek 1), czytana od "
                        "dołu; blok dekodera typu GPT wygląda tak samo, tylko z maską (dekoder "
                        "oryginału ma jeszcze uwagę na wyjście enkodera). Każda podwarstwa dodaje swoje "
                        "wyjście do wektora, który do niej wszedł (połączenie rezydualne), a suma "
                        "przechodzi przez normalizację warstwy.",
                table=Table(header=["kolejność", "element bloku"], rows=rows))
