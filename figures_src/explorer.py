"""Interactive attention explorer: its starting states (presets) and limits.

Page: docs/llm/anatomia.md (section #uwaga), script docs/javascripts/explorer.js.
The page embeds `explorer_data` as JSON (`{{ explorer_data | json }}` assigned to
window.attentionExplorerData in <script id="explorer-presets">); the script recomputes
softmax(Q K^T * scale + M) V in the browser from these inputs.
Inputs come from figures_src/inputs.py, where they are written down once (never retyped
here): the worked example's VOCAB, W_VOCAB, SENTENCE_IDS, W_Q, W_K, W_V and the lab's TOY_X,
LEAK_A, LEAK_B.
Values: explorer_data, presets (the list inside explorer_data), n_presets, max_tokens, d_k,
start_tokens, start_weights, start_output, start_query.
"""

from __future__ import annotations

import functools

import numpy as np

from attn_core import future_mask, scaled_dot_product_attention
from anatomia_engine.kit import values
from figures_src import lab3
from figures_src.inputs import LEAK_A, LEAK_B, SENTENCE_IDS, TOY_X, VOCAB, W_K, W_Q, W_V, W_VOCAB

# The explorer's own inputs: the sentence the "own sentence" preset starts from (the worked
# example's words in reverse order: without positions, attention only permutes the result)
# and the ranges of the controls.
OWN_SENTENCE_IDS: list[int] = SENTENCE_IDS[::-1]
LIMITS: dict = {
    "max_tokens": 8,            # positions in the sentence
    "max_vocab": 10,            # words in the vocabulary
    "max_token_chars": 40,      # length of a token's name
    "coord": {"min": -10.0, "max": 10.0, "step": 0.1, "big_step": 0.5},
    "temperature": {"min": 0.1, "max": 5.0, "step": 0.1, "default": 1.0},
    "new_word_embedding": [0.5, 0.5],
}


def _rows(x: np.ndarray) -> list[list[float]]:
    return np.asarray(x, dtype=float).tolist()


def _positions_preset(pid: str, name: str, description: str, x: np.ndarray, letter: str,
                      causal: bool) -> dict:
    """A preset whose every position is its own vocabulary word: Q = K = V = X (lab 3)."""
    x = np.asarray(x, dtype=float)                                   # (T, d)
    t, d = x.shape
    eye = _rows(np.eye(d))
    subscripts = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
    return {
        "id": pid, "name": name, "description": description,
        "vocab": [{"token": f"{letter}{str(i).translate(subscripts)}", "embedding": _rows(row)}
                  for i, row in enumerate(x)],
        "sentence": list(range(t)),
        "w_q": eye, "w_k": eye, "w_v": eye,
        "causal": causal, "scale": True,
        "temperature": LIMITS["temperature"]["default"],
        "query": t - 1,
    }


def _vocab_preset(pid: str, name: str, description: str, sentence: list[int],
                  causal: bool) -> dict:
    """A preset on the worked example's vocabulary (columns of W_VOCAB) and W_Q, W_K, W_V."""
    return {
        "id": pid, "name": name, "description": description,
        "vocab": [{"token": tok, "embedding": _rows(W_VOCAB[:, i])} for i, tok in enumerate(VOCAB)],
        "sentence": [int(i) for i in sentence],
        "w_q": _rows(W_Q), "w_k": _rows(W_K), "w_v": _rows(W_V),
        "causal": causal, "scale": True,
        "temperature": LIMITS["temperature"]["default"],
        "query": len(sentence) - 1,
    }


@functools.cache
def presets() -> tuple[dict, ...]:
    """The explorer's starting states, first one shown on load."""
    return (
        _vocab_preset(
            "krok-po-kroku", "Przykład krok po kroku: cat chases mouse",
            "Zdanie z artykułu „Krok po kroku”: embeddingi to kolumny macierzy słownika, "
            "macierze zapytań, kluczy i wartości są jednostkowe, z maską przyczynową "
            "i dzieleniem przez √dₖ, jak w dekoderze.",
            SENTENCE_IDS, causal=True),
        _positions_preset(
            "lab3-toy", "Laboratorium 3: trzy małe wektory",
            "Mała macierz z laboratorium 3: każdy jej wiersz to jedna pozycja, a zapytania, "
            "klucze i wartości są równe samym wektorom (Q = K = V). Tak jak w laboratorium "
            "zaczynamy bez maski, więc każda pozycja widzi też późniejsze.",
            TOY_X, "x", causal=False),
        _positions_preset(
            "lab3-leak-a", "Laboratorium 3: przeciek, sekwencja a",
            "Eksperyment z przeciekiem: sekwencje a i b mają ten sam pierwszy wektor. Z maską "
            "wyjście y₀ jest w obu takie samo; wyłącz maskę i porównaj y₀ z sekwencją b.",
            LEAK_A, "a", causal=True),
        _positions_preset(
            "lab3-leak-b", "Laboratorium 3: przeciek, sekwencja b",
            "Druga sekwencja eksperymentu: pierwszy wektor jak w a, dalsze inne. Z maską y₀ "
            "się nie zmienia; bez maski późniejsze pozycje przeciekają do y₀.",
            LEAK_B, "b", causal=True),
        _vocab_preset(
            "wlasne-zdanie", "Własne zdanie ze słownika przykładu",
            "Słownik z przykładu (pięć słów). Ułóż własne zdanie, wybierając słowo na każdej "
            "pozycji, przesuń embeddingi albo dopisz nowe słowo.",
            OWN_SENTENCE_IDS, causal=True),
    )


def preset_attention(preset: dict):
    """attn_core's attention for a preset: X = its sentence's embeddings, Q = X W_Q, ..."""
    x = np.array([preset["vocab"][i]["embedding"] for i in preset["sentence"]])  # (T, d)
    q, k, v = (x @ np.array(preset[w]) for w in ("w_q", "w_k", "w_v"))         # (T, d_k)
    t, d_k = q.shape
    scale = (1 / np.sqrt(d_k) if preset["scale"] else 1.0) / preset["temperature"]
    mask = future_mask(t) if preset["causal"] else None
    return scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)


def check_presets(items) -> None:
    """Check what the presets and their descriptions promise; ValueError naming the preset.

    Embeddings lie in the coordinate range, sentences fit max_tokens, LEAK_A and LEAK_B share
    their first vector, and y0 of the two leak sequences agrees with the mask but not without.
    """
    lo, hi = LIMITS["coord"]["min"], LIMITS["coord"]["max"]
    for p in items:
        for word in p["vocab"]:
            if not all(lo <= c <= hi for c in word["embedding"]):
                raise ValueError(f"preset {p['id']!r}: embedding of {word['token']!r} = "
                                 f"{word['embedding']} lies outside the range [{lo}, {hi}]")
        if len(p["sentence"]) > LIMITS["max_tokens"]:
            raise ValueError(f"preset {p['id']!r} has {len(p['sentence'])} tokens; "
                             f"max_tokens={LIMITS['max_tokens']}")
    if not np.array_equal(LEAK_A[0], LEAK_B[0]):
        raise ValueError(f"the leak presets say a and b share the first vector, but "
                         f"LEAK_A[0]={LEAK_A[0]} and LEAK_B[0]={LEAK_B[0]}")
    leak = {p["id"]: p for p in items if p["id"] in ("lab3-leak-a", "lab3-leak-b")}
    if len(leak) == 2:
        def y0(p: dict, causal: bool) -> np.ndarray:
            return preset_attention(dict(p, causal=causal)).output[0]

        a, b = leak["lab3-leak-a"], leak["lab3-leak-b"]
        if not np.array_equal(y0(a, True), y0(b, True)) or np.allclose(y0(a, False), y0(b, False)):
            raise ValueError("the leak presets' descriptions say y0 is the same with the mask "
                             "and differs without it; it does not for LEAK_A and LEAK_B")


@values
def explorer() -> dict:
    items = [dict(p) for p in presets()]
    check_presets(items)
    lab3.check_notebook_inputs()   # three presets say they are the lab's matrices
    start = items[0]
    att = preset_attention(start)
    return {
        "explorer_data": {"presets": items, "limits": LIMITS},
        "presets": items,
        "n_presets": len(items),
        "max_tokens": LIMITS["max_tokens"],
        "d_k": int(np.asarray(W_Q).shape[1]),
        "start_tokens": [start["vocab"][i]["token"] for i in start["sentence"]],
        "start_query": start["query"],
        "start_weights": att.weights,
        "start_output": att.output,
    }
