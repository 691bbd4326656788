"""Interactive attention explorer: its starting states (presets) and limits.

Page: docs/llm/anatomia.md (section #uwaga), script docs/javascripts/explorer.js.
The page embeds `explorer_data` as JSON (`{{ explorer_data | json }}` assigned to
window.attentionExplorerData in <script id="explorer-presets">); the script recomputes
softmax(Q K^T * scale + M) V in the browser from these inputs.
Inputs come from figures_src/_shared/inputs.py, where they are written down once (never retyped
here): the worked example's VOCAB, W_VOCAB, SENTENCE_IDS, W_Q, W_K, W_V, its second head's
HEAD2_W_Q, HEAD2_W_K, HEAD2_W_V and the lab's TOY_X, LEAK_A, LEAK_B.
The guided tasks ("Zadania") are data too: each names its preset, a check the script runs on
every change (one of CHECKS) and a solution; the build verifies with attn_core that the check
fails at the preset's start and holds for the solution, so no task is done before it starts and
none is impossible.
Values: explorer_data, presets (the list inside explorer_data), tasks, n_presets, n_tasks,
max_tokens, d_k, start_tokens, start_weights, start_output, start_query.
"""

from __future__ import annotations

import copy
import functools

import numpy as np

from anatomia_engine.kit import values
from anatomia_engine.numfmt import fmt_dec
from attn_core import future_mask, scaled_dot_product_attention
from figures_src import lab3
from figures_src._shared.inputs import (
    HEAD2_W_K,
    HEAD2_W_Q,
    HEAD2_W_V,
    LEAK_A,
    LEAK_B,
    SENTENCE_IDS,
    TOY_X,
    VOCAB,
    W_K,
    W_Q,
    W_V,
    W_VOCAB,
)

# The explorer's own inputs: the sentence the "own sentence" preset starts from (the worked
# example's words in reverse order: without positions, attention only permutes the result)
# and the ranges of the controls.
OWN_SENTENCE_IDS: list[int] = SENTENCE_IDS[::-1]
LIMITS: dict = {
    "max_tokens": 8,            # positions in the sentence
    "max_vocab": 10,            # words in the vocabulary
    "max_token_chars": 40,      # length of a token's name
    "coord": {"min": -10.0, "max": 10.0, "step": 0.1, "big_step": 0.5},
    "weight": {"min": -5.0, "max": 5.0},      # entries of W_Q, W_K, W_V
    "temperature": {"min": 0.1, "max": 5.0, "step": 0.1, "default": 1.0},
    "new_word_embedding": [0.5, 0.5],
}


def _quoted(token: str) -> str:
    return f"„{token}”"


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
                  causal: bool, w=(W_Q, W_K, W_V), query: int | None = None) -> dict:
    """A preset on the worked example's vocabulary (columns of W_VOCAB) and its W_Q, W_K, W_V
    (or the matrices `w`); the query is the last position unless `query` names another."""
    w_q, w_k, w_v = w
    return {
        "id": pid, "name": name, "description": description,
        "vocab": [{"token": tok, "embedding": _rows(W_VOCAB[:, i])} for i, tok in enumerate(VOCAB)],
        "sentence": [int(i) for i in sentence],
        "w_q": _rows(w_q), "w_k": _rows(w_k), "w_v": _rows(w_v),
        "causal": causal, "scale": True,
        "temperature": LIMITS["temperature"]["default"],
        "query": len(sentence) - 1 if query is None else query,
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
        _vocab_preset(
            "druga-glowa", "Przykład krok po kroku: druga głowa (czasownik szuka zwierzęcia)",
            "Druga głowa z artykułu „Krok po kroku”: to samo zdanie, ale W_Q, W_K i W_V są "
            "ustawione ręcznie i różne. Zapytanie powstaje z wymiaru 1 („akcja”), klucz "
            "z wymiaru 0 („zwierzęcość”) minus wymiar 1, a wartość przenosi tylko zwierzęcość. "
            f"Wybrane zapytanie to czasownik {_quoted(VOCAB[SENTENCE_IDS[1]])}; wyłącz maskę "
            "i zobacz, na kogo patrzy, gdy widzi całe zdanie.",
            SENTENCE_IDS, causal=True, w=(HEAD2_W_Q, HEAD2_W_K, HEAD2_W_V), query=1),
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


# ---------------------------------------------------------------------------------------------
# Guided tasks: what the reader is asked to do, how the page sees it done, and one way to do it.
# ---------------------------------------------------------------------------------------------

# The checks the script knows (docs/javascripts/explorer.js, taskHolds, mirrors task_holds), on
# the weights w (T, T), the outputs y (T, d_v) and the sentence's embeddings x (T, d):
#   weight_at_least  w[query][key] >= value          argmax      w[query][key] is the row's only maximum
#   more_than        w[query][key] > w[query][other] spread_below  the row's visible weights differ by < value
#   output_below     y[query][dim] < value           output_moved  max |y[query] - x[query]| > value
CHECKS = ("weight_at_least", "argmax", "more_than", "spread_below", "output_below", "output_moved")
# What a task may ask to keep as the preset has it ("fixed"): the sentence's embeddings X, the
# three matrices, the mask. The check then also fails while any of them differs from the start.
FIXED = ("x", "w_q", "w_k", "w_v", "causal")


def tasks() -> tuple[dict, ...]:
    """The guided tasks, in the order the page lists them. Token names come from the presets'
    vocabulary (figures_src/_shared/inputs.py), thresholds from the checks themselves."""
    cat, chases, mouse = (_quoted(VOCAB[i]) for i in SENTENCE_IDS)
    sharp, flat = 0.6, 0.05
    return (
        {
            "id": "wyostrz", "preset": "krok-po-kroku", "title": "Wyostrz uwagę",
            "text": f"Nie ruszając wektorów ani macierzy, spraw, by {mouse} dał {cat} wagę "
                    f"co najmniej {fmt_dec(sharp, 1)}.",
            "hint": "Temperatura T dzieli oceny: im mniejsza, tym ostrzejszy softmax.",
            "check": {"kind": "weight_at_least", "query": 2, "key": 0, "value": sharp},
            "fixed": ["x", "w_q", "w_k"],
            "solution": {"temperature": 0.15},
        },
        {
            "id": "splaszcz", "preset": "krok-po-kroku", "title": "Spłaszcz uwagę",
            "text": f"Nie ruszając wektorów ani macierzy, spraw, by wagi {mouse} różniły się "
                    f"między sobą o mniej niż {fmt_dec(flat, 2)}.",
            "hint": "Duże T zbliża oceny do zera, a softmax z równych ocen daje równe wagi.",
            "check": {"kind": "spread_below", "query": 2, "value": flat},
            "fixed": ["x", "w_q", "w_k"],
            "solution": {"temperature": 5.0},
        },
        {
            "id": "przesun", "preset": "krok-po-kroku", "title": "Przesuń klucz",
            "text": f"Przesuń punkty na płaszczyźnie (albo wpisz współrzędne) tak, by {mouse} "
                    f"patrzył najmocniej na {chases}.",
            "hint": "Ocena to iloczyn skalarny: klucz daleko w kierunku zapytania dostaje dużą ocenę.",
            "check": {"kind": "argmax", "query": 2, "key": 1},
            "fixed": [],
            "solution": {"vocab": {"1": [1.5, 0.0]}},
        },
        {
            "id": "czasownik", "preset": "krok-po-kroku", "title": "Czasownik szuka podmiotu",
            "text": f"Nie ruszając wektorów, zmień macierz W_Q albo W_K tak, by {chases} "
                    f"patrzył mocniej na {cat} niż na samego siebie.",
            "hint": "Gdy W_Q = W_K, każdy token najbardziej pasuje sam do siebie. Spróbuj W_Q, "
                    "która zamienia wymiary miejscami: wiersze [0; 1] i [1; 0].",
            "check": {"kind": "more_than", "query": 1, "key": 0, "other": 1},
            "fixed": ["x"],
            "solution": {"w_q": [[0.0, 1.0], [1.0, 0.0]]},
        },
        {
            "id": "wartosci", "preset": "krok-po-kroku", "title": "Wartości to nie wagi",
            "text": f"Zmień tylko macierz W_V tak, by wyjście {mouse} miało ujemny wymiar 0. "
                    "Wagi przy tym się nie zmienią.",
            "hint": "W_V działa po softmaksie: przekształca wektory, które wagi mieszają.",
            "check": {"kind": "output_below", "query": 2, "dim": 0, "value": 0.0},
            "fixed": ["x", "w_q", "w_k"],
            "solution": {"w_v": [[-1.0, 0.0], [0.0, 1.0]]},
        },
        {
            "id": "przeciek", "preset": "lab3-leak-a", "title": "Przeciek przyszłości",
            "text": "Nie ruszając wektorów ani macierzy, spraw, by wyjście pierwszego tokenu "
                    "przestało być równe jego wejściu.",
            "hint": "Z maską pierwszy token widzi tylko siebie. Co widzi bez niej?",
            "check": {"kind": "output_moved", "query": 0, "value": 0.01},
            "fixed": ["x", "w_q", "w_k", "w_v"],
            "solution": {"causal": False},
        },
    )


def solved_state(preset: dict, solution: dict) -> dict:
    """The preset with a task's solution applied (keys: temperature, causal, scale, w_q, w_k,
    w_v, and vocab: {word index: embedding})."""
    state = copy.deepcopy(preset)
    for key, value in solution.items():
        if key == "vocab":
            for k, vec in value.items():
                state["vocab"][int(k)]["embedding"] = list(vec)
        elif key in ("temperature", "causal", "scale", "w_q", "w_k", "w_v"):
            state[key] = value
        else:
            raise ValueError(f"a task's solution cannot set {key!r}")
    return state


def task_holds(task: dict, state: dict, start: dict) -> bool:
    """Does `state` (a preset-like dict) do what `task` asks, from the preset `start`?"""
    x = np.array([state["vocab"][i]["embedding"] for i in state["sentence"]])
    x0 = np.array([start["vocab"][i]["embedding"] for i in start["sentence"]])
    for part in task["fixed"]:
        if part == "x":
            if x.shape != x0.shape or not np.array_equal(x, x0):
                return False
        elif not np.array_equal(np.array(state[part]), np.array(start[part])):
            return False
    c = task["check"]
    att = preset_attention(state)
    w, y = att.weights, att.output
    q = c["query"]
    if q >= len(w):
        return False
    row = w[q]
    if c["kind"] == "weight_at_least":
        return bool(row[c["key"]] >= c["value"])
    if c["kind"] == "argmax":
        return bool(all(row[c["key"]] > v for j, v in enumerate(row) if j != c["key"]))
    if c["kind"] == "more_than":
        return bool(row[c["key"]] > row[c["other"]])
    if c["kind"] == "spread_below":
        seen = row[: q + 1] if state["causal"] else row
        return bool(seen.max() - seen.min() < c["value"])
    if c["kind"] == "output_below":
        return bool(y[q][c["dim"]] < c["value"])
    if c["kind"] == "output_moved":
        return bool(np.max(np.abs(y[q] - x[q])) > c["value"])
    raise ValueError(f"task {task['id']!r}: unknown check {c['kind']!r}; known: {CHECKS}")


def check_tasks(items, preset_items) -> None:
    """Each task names a known preset, check and fixed parts, is not done at its preset's start
    and is done by its solution; ValueError naming the task."""
    by_id = {p["id"]: p for p in preset_items}
    for task in items:
        start = by_id.get(task["preset"])
        if start is None:
            raise ValueError(f"task {task['id']!r} names preset {task['preset']!r}; "
                             f"presets: {sorted(by_id)}")
        if task["check"]["kind"] not in CHECKS or not set(task["fixed"]) <= set(FIXED):
            raise ValueError(f"task {task['id']!r}: check {task['check']['kind']!r} or fixed "
                             f"{task['fixed']} is not one the page knows ({CHECKS}; {FIXED})")
        if task_holds(task, start, start):
            raise ValueError(f"task {task['id']!r} is already done at the start of preset "
                             f"{task['preset']!r}")
        if not task_holds(task, solved_state(start, task["solution"]), start):
            raise ValueError(f"task {task['id']!r}: its solution {task['solution']} does not do "
                             "what the task asks")


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
    w_lo, w_hi = LIMITS["weight"]["min"], LIMITS["weight"]["max"]
    for p in items:
        for key in ("w_q", "w_k", "w_v"):
            if not np.all((np.array(p[key]) >= w_lo) & (np.array(p[key]) <= w_hi)):
                raise ValueError(f"preset {p['id']!r}: {key} = {p[key]} has an entry outside "
                                 f"[{w_lo}, {w_hi}]")
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
    guided = list(tasks())
    check_tasks(guided, items)
    lab3.check_notebook_inputs()   # three presets say they are the lab's matrices
    start = items[0]
    att = preset_attention(start)
    return {
        "explorer_data": {"presets": items, "limits": LIMITS, "tasks": guided},
        "presets": items,
        "tasks": guided,
        "n_presets": len(items),
        "n_tasks": len(guided),
        "max_tokens": LIMITS["max_tokens"],
        "d_k": int(np.asarray(W_Q).shape[1]),
        "start_tokens": [start["vocab"][i]["token"] for i in start["sentence"]],
        "start_query": start["query"],
        "start_weights": att.weights,
        "start_output": att.output,
    }
