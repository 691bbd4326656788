"""The attention explorer on /llm/anatomia/#uwaga: presets, maths, mask, editing, safety, keyboard.

The first tests read figures_src/explorer.py and the built page. The browser tests drive the
Debian Chromium at /usr/bin/chromium with playwright (never `playwright install`): a fresh
strict build is served by http.server on 127.0.0.1, and every request to any other host is
aborted and fails the test, so the page is checked to work offline. The weights the page
computes are compared with attn_core.scaled_dot_product_attention.
"""

from __future__ import annotations

import numpy as np
import pytest

from attn_core import tiny_decoder
from figures_src import explorer
from figures_src._shared.inputs import HEAD2_W_K, HEAD2_W_Q, HEAD2_W_V
from figures_src.lab3 import LEAK_A, LEAK_B, TOY_X
from figures_src.worked_example import SENTENCE_IDS, VOCAB, W_FFN, W_K, W_Q, W_V, W_VOCAB

# --- the presets, in Python ---------------------------------------------------------------

def by_id(pid: str) -> dict:
    return next(p for p in explorer.presets() if p["id"] == pid)


def preset_x(p: dict) -> np.ndarray:
    return np.array([p["vocab"][i]["embedding"] for i in p["sentence"]])


def test_presets_come_from_the_shared_inputs():
    worked = by_id("krok-po-kroku")
    assert [w["token"] for w in worked["vocab"]] == VOCAB
    assert worked["sentence"] == list(SENTENCE_IDS)
    np.testing.assert_array_equal(np.array([w["embedding"] for w in worked["vocab"]]), W_VOCAB.T)
    for key, w in (("w_q", W_Q), ("w_k", W_K), ("w_v", W_V)):
        np.testing.assert_array_equal(np.array(worked[key]), w)
    assert worked["causal"] and worked["scale"] and worked["temperature"] == 1.0
    head2 = by_id("druga-glowa")   # the page's second head: the same sentence, its own matrices
    assert head2["sentence"] == worked["sentence"] and head2["vocab"] == worked["vocab"]
    for key, w in (("w_q", HEAD2_W_Q), ("w_k", HEAD2_W_K), ("w_v", HEAD2_W_V)):
        np.testing.assert_array_equal(np.array(head2[key]), w)
    assert head2["w_q"] != head2["w_k"]
    for pid, x in (("lab3-toy", TOY_X), ("lab3-leak-a", LEAK_A), ("lab3-leak-b", LEAK_B)):
        np.testing.assert_array_equal(preset_x(by_id(pid)), x)
    assert by_id("lab3-toy")["causal"] is False  # the lab's first exercise has no mask
    explorer.check_presets(explorer.presets())


def test_starting_preset_matches_the_worked_example():
    trace = tiny_decoder(SENTENCE_IDS, W_VOCAB, W_Q, W_K, W_V, W_FFN, causal=True)
    att = explorer.preset_attention(by_id("krok-po-kroku"))
    np.testing.assert_allclose(att.weights, trace.attention.weights, rtol=0, atol=1e-15)
    np.testing.assert_allclose(att.output, trace.attention.output, rtol=0, atol=1e-15)


def test_check_presets_rejects_an_embedding_out_of_range():
    bad = dict(by_id("lab3-toy"), vocab=[{"token": "x", "embedding": [99.0, 0.0]}], sentence=[0])
    with pytest.raises(ValueError, match="outside the range"):
        explorer.check_presets([bad])


# --- guided tasks --------------------------------------------------------------------------

def test_every_task_starts_undone_and_its_solution_does_it():
    tasks = explorer.tasks()
    assert len({t["id"] for t in tasks}) == len(tasks)
    explorer.check_tasks(tasks, explorer.presets())   # raises on a task done at start or unsolvable
    for task in tasks:
        start = by_id(task["preset"])
        assert not explorer.task_holds(task, start, start)
        assert explorer.task_holds(task, explorer.solved_state(start, task["solution"]), start)


def test_a_task_done_at_its_start_or_with_a_wrong_solution_stops_the_build():
    start = by_id("krok-po-kroku")
    weights = explorer.preset_attention(start).weights
    winner = int(np.argmax(weights[2]))
    done = {"id": "gotowe", "preset": "krok-po-kroku", "fixed": [], "solution": {},
            "check": {"kind": "argmax", "query": 2, "key": winner}}
    with pytest.raises(ValueError, match="already done"):
        explorer.check_tasks([done], explorer.presets())
    loser = int(np.argmin(weights[2]))
    wrong = dict(done, check={"kind": "argmax", "query": 2, "key": loser}, solution={"temperature": 1.0})
    with pytest.raises(ValueError, match="does not do what the task asks"):
        explorer.check_tasks([wrong], explorer.presets())
    unknown = dict(done, preset="nie-ma-takiego")
    with pytest.raises(ValueError, match="names preset"):
        explorer.check_tasks([unknown], explorer.presets())


def test_a_task_that_keeps_the_vectors_is_not_done_by_moving_them():
    task = next(t for t in explorer.tasks() if "x" in t["fixed"])
    start = by_id(task["preset"])
    solved = explorer.solved_state(start, task["solution"])
    assert explorer.task_holds(task, solved, start)
    moved = explorer.solved_state(solved, {"vocab": {str(start["sentence"][0]): [0.3, 0.3]}})
    assert not explorer.task_holds(task, moved, start)


def test_task_texts_name_the_presets_tokens():
    for task in explorer.tasks():
        check = task["check"]
        start = by_id(task["preset"])
        names = [start["vocab"][i]["token"] for i in start["sentence"]]
        for key in ("key", "other"):
            if key in check:
                assert f"„{names[check[key]]}”" in task["text"], task["id"]
