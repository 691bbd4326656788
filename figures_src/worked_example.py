"""Worked example "cat chases mouse": one decoder layer computed by hand, step by step.

Page: docs/krok-po-kroku.md.
Inputs (defined here only; other modules import them): VOCAB, W_VOCAB, SENTENCE_IDS,
W_Q, W_K, W_V, W_FFN. SOURCE_PRINTED holds the numbers the source article printed.
Values: sentence, sentence_ids, continued, d_model, d_k, vocab_size, n_params, sqrt_d_k,
W_vocab, W_Q, W_K, W_V, W_FFN, E, Q, K, V, K_T, scores, scaled, mask, masked, weights,
weights_enc, weights_unscaled, sharpen_factor, weights_sharp, exp_masked, attn_out, change, ffn_out, h_last, logits,
exp_logits, probs, top_id, top_token, top_prob, qkv_identity, last_row_same, vocab_table,
prob_table, source_table, n_source_values, n_source_differ, base_d_model, base_heads, base_d_k, bert_d_model.
Figures: scaled_scores, causal_mask_figure, weights_masked_vs_unmasked, embedding_plane,
next_token_probs.
"""

from __future__ import annotations

import functools
from decimal import Decimal

import numpy as np
from matplotlib.ticker import FuncFormatter

from attn_core import causal_mask, future_mask, softmax, tiny_decoder
from anatomia_engine.kit import Plot, Table, Value, figure, values
from anatomia_engine.numfmt import fmt_dec, fmt_pct, round_half_up
from anatomia_engine.plot import bar_chart, heatmap, new_figure


def _frozen(rows) -> np.ndarray:
    arr = np.array(rows, dtype=float)
    arr.flags.writeable = False
    return arr


# ---------------------------------------------------------------------------------------------
# Inputs of the example: the only place where they are written down.
# ---------------------------------------------------------------------------------------------
VOCAB: list[str] = ["cat", "chases", "mouse", "quickly", "sleeping"]

# Columns are the embeddings of the VOCAB tokens (d_model = 2 rows, V = 5 columns).
W_VOCAB = _frozen([
    [1.0, 0.2, 0.8, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.5, 0.0],
])

SENTENCE_IDS: list[int] = [0, 1, 2]  # "cat chases mouse"

W_Q = _frozen(np.eye(2))
W_K = _frozen(np.eye(2))
W_V = _frozen(np.eye(2))

W_FFN = _frozen([
    [0.5, 1.0],
    [1.0, 0.5],
])

# Published configurations quoted on the page (facts, not results of this example).
# Transformer base: Vaswani et al. 2017, "Attention Is All You Need", section 3.2.2 and table 3.
BASE_D_MODEL, BASE_HEADS = 512, 8
# BERT-base (Devlin et al. 2019, section 3: H = 768) and GPT-2 small (Radford et al. 2019, table 2).
BERT_D_MODEL = 768

# The softmax paragraph multiplies the scaled scores by this factor to show how larger score
# differences sharpen the distribution (an illustration chosen for the page, not a model value).
SHARPEN_FACTOR = 10

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
        "masked": Value(att.masked, masked=True),
        "exp_masked": np.exp(att.masked),                            # e^-inf = 0
        "weights": att.weights,
        "weights_enc": enc.attention.weights,
        "weights_unscaled": unscaled,
        "sharpen_factor": SHARPEN_FACTOR,
        "weights_sharp": softmax(SHARPEN_FACTOR * att.scaled + causal_mask(t)),
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
            header=["id", "token", "wymiar 1", "wymiar 2", "w zdaniu"],
            rows=[[i, tok, W_VOCAB[0, i], W_VOCAB[1, i], "tak" if i in SENTENCE_IDS else "nie"]
                  for i, tok in enumerate(VOCAB)],
            formats=["int", None, "dec:1", "dec:1", None]),
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
    return out


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
        return "√d_k"
    if key == "W_vocab":
        return f"W_vocab: {VOCAB[index[1]]}, wymiar {index[0] + 1}"
    if key == "W_FFN":
        return f"W_FFN[{index[0]}][{index[1]}]"
    row, col = index
    if key in ("scores", "scaled", "weights"):
        name = {"scores": "QKᵀ", "scaled": "QKᵀ/√d_k", "weights": "waga uwagi"}[key]
        return f"{name} {tokens[row]} → {tokens[col]}"
    name = {"attn_out": "wyjście uwagi", "ffn_out": "wyjście FFN"}[key]
    return f"{name}: {tokens[row]}, wymiar {col + 1}"


def _source_comparison(vals: dict) -> dict:
    """Table of the printed numbers that differ from the exact ones rounded to the same places."""
    exact_of = {key: vals[key] for key in SOURCE_PRINTED if key in vals}
    exact_of["probs_pct"] = vals["probs"] * 100
    rows, n_values = [], 0
    for key, printed in SOURCE_PRINTED.items():
        printed_arr = np.array(printed, dtype=object)
        exact_arr = np.asarray(exact_of[key], dtype=float)
        if printed_arr.shape != exact_arr.shape:
            raise ValueError(f"SOURCE_PRINTED[{key!r}] has shape {printed_arr.shape}; "
                             f"the computed value has shape {exact_arr.shape}")
        for index in np.ndindex(printed_arr.shape):
            text, exact = printed_arr[index], float(exact_arr[index])
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
_YLABEL = "zapytanie (token, który patrzy)"


def _matrix_table(matrix, tokens, spec: str = "dec:4") -> Table:
    return Table(header=["zapytanie \\ klucz", *tokens],
                 rows=[[tok, *map(float, row)] for tok, row in zip(tokens, matrix)],
                 formats=[None, *[spec] * len(tokens)])


@figure
def scaled_scores(style) -> Plot:
    dec, _ = _traces()
    tokens = _tokens()
    fig, ax = new_figure(style, size=(4.4, 3.6))
    heatmap(ax, dec.attention.scaled, tokens, tokens, style=style, decimals=2,
            xlabel=_XLABEL, ylabel=_YLABEL)
    return Plot(fig=fig,
                alt=f"Mapa ciepła {len(tokens)} na {len(tokens)} z przeskalowanymi wynikami "
                    "uwagi QKᵀ/√d_k: wiersze to tokeny, które patrzą, kolumny to tokeny, na które "
                    "patrzą; im ciemniejsze pole, tym większy iloczyn skalarny zapytania i klucza.",
                caption="Przeskalowane wyniki QKᵀ/√d_k przed maską. Wiersz: token, który "
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
                caption="Maska przyczynowa dodawana do wyników przed softmaksem: 0 tam, gdzie "
                        "wolno patrzeć, −∞ (zakreskowane) tam, gdzie klucz leży w przyszłości.",
                table=Table(header=["zapytanie \\ klucz", *tokens],
                            rows=[[tok, *("−∞" if b else "0" for b in row)]
                                  for tok, row in zip(tokens, blocked)]))


@figure
def weights_masked_vs_unmasked(style) -> Plot:
    dec, enc = _traces()
    tokens = _tokens()
    t = len(tokens)
    fig, (left, right) = new_figure(style, size=(8.0, 3.7), ncols=2)
    heatmap(left, dec.attention.weights, tokens, tokens, style=style, decimals=2,
            blocked=future_mask(t), vmin=0.0, vmax=1.0, title="z maską (dekoder)",
            xlabel=_XLABEL, ylabel=_YLABEL)
    heatmap(right, enc.attention.weights, tokens, tokens, style=style, decimals=2,
            vmin=0.0, vmax=1.0, title="bez maski (enkoder)", xlabel=_XLABEL, ylabel="")
    rows = [[f"{q} → {k}", float(dec.attention.weights[i, j]), float(enc.attention.weights[i, j])]
            for i, q in enumerate(tokens) for j, k in enumerate(tokens)]
    return Plot(fig=fig,
                alt="Dwie mapy ciepła wag uwagi obok siebie. Po lewej z maską przyczynową: pola "
                    "nad przekątną są zakreskowane i mają wagę zero. Po prawej bez maski: każdy "
                    "token rozkłada uwagę na wszystkie trzy tokeny. Ostatni wiersz jest w obu "
                    "taki sam.",
                caption="Wagi uwagi po softmaksie: z maską przyczynową (dekoder, jak w GPT) i bez "
                        "maski (enkoder, jak w BERT). Każdy wiersz sumuje się do 1.",
                table=Table(header=["zapytanie → klucz", "z maską", "bez maski"], rows=rows,
                            formats=[None, "dec:4", "dec:4"]))


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
    emb, out = dec.embeddings, dec.attention.output
    fig, ax = new_figure(style, size=(5.6, 4.4))
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
    for tok, a, b in zip(tokens, emb, out):
        if not np.allclose(a, b):
            ax.annotate("", xy=b, xytext=a, zorder=3,
                        arrowprops={"arrowstyle": "->", "color": style.fg, "lw": 1.2,
                                    "shrinkA": 5, "shrinkB": 5})
        ax.annotate(tok, a, color=style.fg, textcoords="offset points", **_label_away(b - a))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: fmt_dec(x, 1)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: fmt_dec(y, 1)))
    ax.set_xlabel("wymiar 1 („zwierzęcość”)")
    ax.set_ylabel("wymiar 2 („akcja”)")
    ax.set_aspect("equal", adjustable="datalim")
    ax.grid(True, linewidth=0.5)
    ax.margins(0.15)
    ax.legend(loc="upper right", fontsize=8)
    rows = [[tok, *map(float, a), *map(float, b)] for tok, a, b in zip(tokens, emb, out)]
    return Plot(fig=fig,
                alt="Płaszczyzna embeddingów: oś pozioma to wymiar 1, pionowa wymiar 2. Puste "
                    "kółka to embeddingi tokenów zdania, pełne kółka to ich reprezentacje po "
                    "uwadze; strzałki łączą jedno z drugim. Kwadraty to pozostałe tokeny "
                    "słownika.",
                caption="Tokeny zdania przed uwagą (embedding E) i po niej (wyjście uwagi). "
                        "Strzałka pokazuje, dokąd kontekst przesunął token.",
                table=Table(header=["token", "E: wymiar 1", "E: wymiar 2",
                                    "po uwadze: wymiar 1", "po uwadze: wymiar 2"],
                            rows=rows, formats=[None, "dec:4", "dec:4", "dec:4", "dec:4"]))


@figure
def next_token_probs(style) -> Plot:
    dec, _ = _traces()
    probs = dec.probs
    top = int(np.argmax(probs))
    fig, ax = new_figure(style, size=(5.2, 3.4))
    bar_chart(ax, VOCAB, probs, style=style, decimals=1, percent=True, highlight=top,
              ylabel="prawdopodobieństwo")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: fmt_pct(y, 0)))
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
