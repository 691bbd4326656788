"""The attention-only Transformer of attn_core.transformer: forward, backward, loss, Adam, scores.

The forward pass is checked against a plain loop-per-head NumPy implementation written here;
every gradient against central finite differences in float64.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from attn_core import (
    Adam,
    AttnOnlyConfig,
    cross_entropy,
    induction_scores,
    induction_targets,
    init_params,
    next_token_loss,
    previous_token_scores,
)
from attn_core.transformer import backward, forward

SMALL = AttnOnlyConfig(vocab_size=5, n_ctx=7, d_model=6, n_heads=2, n_layers=2)


def small_case(seed: int = 0, b: int = 3, t: int = 6):
    rng = np.random.default_rng(seed)
    return init_params(SMALL, rng), rng.integers(0, SMALL.vocab_size, (b, t))


def plain_forward(config, params, tokens):
    """Logits (B, T, V) with explicit loops over sequences, layers and heads."""
    d_k = config.d_k
    out = []
    for seq in tokens:
        t = len(seq)
        x = np.array([params["embed"][tok] + params["pos"][i] for i, tok in enumerate(seq)])
        for layer in range(config.n_layers):
            heads = []
            for j in range(config.n_heads):
                cols = slice(j * d_k, (j + 1) * d_k)
                q = x @ params[f"q{layer}"][:, cols]
                k = x @ params[f"k{layer}"][:, cols]
                v = x @ params[f"v{layer}"][:, cols]
                s = q @ k.T / np.sqrt(d_k)
                s[np.triu_indices(t, 1)] = -np.inf
                a = np.exp(s - s.max(axis=1, keepdims=True))
                heads.append(a / a.sum(axis=1, keepdims=True) @ v)
            x = x + np.concatenate(heads, axis=1) @ params[f"o{layer}"]
        out.append(x @ params["unembed"])
    return np.array(out)


def plain_loss(config, params, tokens, mask=None):
    logits = plain_forward(config, params, tokens)[:, :-1]
    logp = logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))
    nll = -np.take_along_axis(logp, tokens[:, 1:, None], axis=-1)[..., 0]
    mask = np.ones(nll.shape, bool) if mask is None else mask
    return nll[mask].mean()


# --- forward --------------------------------------------------------------------------------

def test_forward_matches_plain_loops():
    params, tokens = small_case()
    trace = forward(SMALL, params, tokens)
    assert trace.logits.shape == (3, 6, SMALL.vocab_size)
    assert_allclose(trace.logits, plain_forward(SMALL, params, tokens), rtol=1e-12, atol=1e-12)


def test_forward_is_causal():
    params, tokens = small_case(1, b=1, t=7)
    changed = tokens.copy()
    changed[0, 4:] = (changed[0, 4:] + 1) % SMALL.vocab_size
    a, b = forward(SMALL, params, tokens).logits, forward(SMALL, params, changed).logits
    assert_array_equal(a[0, :4], b[0, :4])
    assert not np.allclose(a[0, 4:], b[0, 4:])


def test_attention_weights_rows_sum_to_one_and_ignore_the_future():
    params, tokens = small_case(2)
    for layer in range(SMALL.n_layers):
        w = forward(SMALL, params, tokens).weights(layer)              # (B, h, T, T)
        assert w.shape == (3, SMALL.n_heads, 6, 6)
        assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)
        assert_array_equal(w[..., np.triu_indices(6, 1)[0], np.triu_indices(6, 1)[1]], 0.0)


def test_loss_matches_plain_cross_entropy():
    params, tokens = small_case(3)
    loss, _, _ = next_token_loss(SMALL, params, tokens)
    assert_allclose(loss, plain_loss(SMALL, params, tokens), rtol=1e-12)


# --- gradients ------------------------------------------------------------------------------

def central_difference(f, array: np.ndarray, h: float = 1e-5) -> np.ndarray:
    grad = np.zeros_like(array)
    for idx in np.ndindex(array.shape):
        old = array[idx]
        array[idx] = old + h
        up = f()
        array[idx] = old - h
        down = f()
        array[idx] = old
        grad[idx] = (up - down) / (2 * h)
    return grad


def relative_error(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(a), np.linalg.norm(b)))


@pytest.mark.parametrize("name", list(SMALL.param_shapes()))
def test_gradient_matches_central_differences(name):
    params, tokens = small_case(4)
    mask = np.random.default_rng(5).random((3, 5)) < 0.7
    _, grads, _ = next_token_loss(SMALL, params, tokens, mask)
    numeric = central_difference(lambda: plain_loss(SMALL, params, tokens, mask), params[name])
    assert np.linalg.norm(numeric) > 1e-6, f"{name}: the loss must depend on it in this case"
    assert relative_error(grads[name], numeric) <= 1e-6


def test_gradient_of_an_unused_position_is_zero():
    params, tokens = small_case(6, t=4)
    _, grads, _ = next_token_loss(SMALL, params, tokens)
    assert_array_equal(grads["pos"][4:], 0.0)                         # rows 4..n_ctx-1 unused


def test_cross_entropy_gradient_matches_central_differences():
    rng = np.random.default_rng(7)
    logits = rng.normal(size=(2, 3, 4))
    targets = rng.integers(0, 4, (2, 3))
    mask = np.array([[True, False, True], [True, True, False]])
    loss, grad = cross_entropy(logits, targets, mask)
    numeric = central_difference(lambda: cross_entropy(logits, targets, mask)[0], logits)
    assert relative_error(grad, numeric) <= 1e-6
    p = np.exp(logits) / np.exp(logits).sum(axis=-1, keepdims=True)
    expected = -np.mean(np.log(p[np.nonzero(mask)][np.arange(4), targets[mask]]))
    assert_allclose(loss, expected, rtol=1e-12)


def test_cross_entropy_of_a_target_far_below_the_top_logit_is_the_gap():
    # -log softmax([0, 1000])_0 = 1000 + log(1 + e^-1000) = 1000 in float64; p = [e^-1000, 1]
    # underflows to [0, 1], so a loss taken as -log(p) would be -log(0).
    loss, grad = cross_entropy(np.array([[0.0, 1000.0], [3.0, 1.0]]), [0, 0])
    expected_second = np.log1p(np.exp(-2.0))                           # -log softmax([3, 1])_0
    assert_allclose(loss, (1000.0 + expected_second) / 2, rtol=1e-15)
    assert_allclose(grad[0], [-0.5, 0.5], rtol=1e-15)


@pytest.mark.parametrize("gap", [100.0, 1e4])
def test_cross_entropy_keeps_float32_without_overflow(gap):
    loss, grad = cross_entropy(np.array([[0.0, gap]], np.float32), [0])
    assert grad.dtype == np.float32
    assert_allclose(loss, gap, rtol=1e-6)
    assert_allclose(grad, [[-1.0, 1.0]], rtol=1e-6)


def test_backward_rejects_wrong_shape():
    params, tokens = small_case()
    trace = forward(SMALL, params, tokens)
    with pytest.raises(ValueError, match="d_logits must have the logits' shape"):
        backward(SMALL, params, trace, np.zeros((3, 6, 4)))


def test_float32_params_give_float32_trace_and_gradients_close_to_float64():
    params, tokens = small_case(9)
    p32 = {name: p.astype(np.float32) for name, p in params.items()}
    loss64, grads64, _ = next_token_loss(SMALL, params, tokens)
    loss32, grads32, trace32 = next_token_loss(SMALL, p32, tokens)
    assert trace32.logits.dtype == trace32.weights(0).dtype == np.float32
    assert_allclose(loss32, loss64, rtol=1e-5)
    for name, g in grads32.items():
        assert g.dtype == np.float32, name
        assert relative_error(g, grads64[name]) <= 1e-5, name


def test_init_params_in_float32_rounds_the_same_draws():
    p64 = init_params(SMALL, np.random.default_rng(1))
    p32 = init_params(SMALL, np.random.default_rng(1), dtype=np.float32)
    for name in p64:
        assert p32[name].dtype == np.float32
        assert_array_equal(p32[name], p64[name].astype(np.float32))
    with pytest.raises(ValueError, match="dtype must be float32 or float64, got float16"):
        init_params(SMALL, np.random.default_rng(1), dtype=np.float16)


# --- Adam -----------------------------------------------------------------------------------

def test_adam_first_step_moves_each_entry_by_lr_times_sign():
    p = {"w": np.array([1.0, -2.0, 3.0])}
    g = {"w": np.array([0.5, -4.0, 1e-3])}
    Adam(lr=0.1, eps=1e-12).step(p, g)
    # m_hat = g, v_hat = g^2 after one step, so the update is lr * g / |g|.
    assert_allclose(p["w"], [0.9, -1.9, 2.9], rtol=1e-9)


def test_adam_step_lowers_the_loss_on_a_fixed_batch():
    params, tokens = small_case(8)
    adam = Adam(lr=1e-3)
    before, grads, _ = next_token_loss(SMALL, params, tokens)
    adam.step(params, grads)
    after, _, _ = next_token_loss(SMALL, params, tokens)
    assert after < before


def test_adam_rejects_mismatched_grads():
    with pytest.raises(ValueError, match="grads keys"):
        Adam().step({"w": np.zeros(2)}, {"v": np.zeros(2)})
    with pytest.raises(ValueError, match=r"grads\['w'\] has shape \(3,\)"):
        Adam().step({"w": np.zeros(2)}, {"w": np.zeros(3)})


def test_adam_rejects_params_that_changed_since_its_first_step():
    adam = Adam()
    adam.step({"w": np.zeros(2), "b": np.zeros(1)}, {"w": np.ones(2), "b": np.ones(1)})
    changed = r"params \[\('w', \(3,\)\), \('b', \(1,\)\)\] differ from the first step's"
    with pytest.raises(ValueError, match=changed):
        adam.step({"w": np.zeros(3), "b": np.zeros(1)}, {"w": np.ones(3), "b": np.ones(1)})


def test_adam_keeps_float32_and_matches_a_per_array_update():
    rng = np.random.default_rng(11)
    p = {"a": rng.normal(size=(2, 3)), "b": rng.normal(size=4)}
    p32 = {k: v.astype(np.float32) for k, v in p.items()}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v2 = {k: np.zeros_like(v) for k, v in p.items()}
    adam, adam32 = Adam(lr=0.01), Adam(lr=0.01)
    for t in range(1, 4):
        g = {k: rng.normal(size=v.shape) for k, v in p.items()}
        for k in p:                                   # the formula of Kingma & Ba, one array at a time
            m[k] = 0.9 * m[k] + 0.1 * g[k]
            v2[k] = 0.999 * v2[k] + 0.001 * g[k] ** 2
        want = {k: p[k] - 0.01 * (m[k] / (1 - 0.9**t)) / (np.sqrt(v2[k] / (1 - 0.999**t)) + 1e-8)
                for k in p}
        adam.step(p, g)
        adam32.step(p32, {k: x.astype(np.float32) for k, x in g.items()})
        for k in p:
            assert_allclose(p[k], want[k], rtol=1e-12)
            assert p32[k].dtype == np.float32
            assert_allclose(p32[k], want[k], rtol=1e-5, atol=1e-6)
            p[k] = want[k].copy()                     # go on from the reference, not its rounding


@pytest.mark.parametrize("kwargs, message", [
    ({"lr": 0.0}, "lr must be finite and > 0, got 0.0"),
    ({"beta1": 1.0}, r"beta1 must lie in \[0, 1\), got 1.0"),
    ({"beta2": -0.1}, r"beta2 must lie in \[0, 1\), got -0.1"),
])
def test_adam_rejects_bad_hyperparameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Adam(**kwargs)


# --- scores ---------------------------------------------------------------------------------

def test_induction_targets_follow_the_latest_earlier_occurrence():
    tokens = np.array([[0, 1, 0, 2, 0, 1, 0, 2]])
    # position 2 (0) follows 0 at 0 -> 1; 4 -> after 2 -> 3; 5 (1) -> after 1 -> 2; ...
    assert_array_equal(induction_targets(tokens), [[-1, -1, 1, -1, 3, 2, 5, 4]])


def test_scores_of_perfect_heads_are_one():
    half = np.array([3, 1, 4, 0, 2])
    tokens = np.concatenate([half, half])[None]                        # (1, 10)
    t = tokens.shape[1]
    prev = np.zeros((1, 1, t, t))
    prev[0, 0, 0, 0] = 1.0
    prev[0, 0, np.arange(1, t), np.arange(t - 1)] = 1.0
    ind = np.full((1, 1, t, t), 0.0)
    target = induction_targets(tokens)[0]
    ind[0, 0, np.arange(t), np.where(target >= 0, target, 0)] = 1.0
    assert_allclose(previous_token_scores(prev), [1.0])
    assert_allclose(induction_scores(ind, tokens), [1.0])
    assert_allclose(induction_scores(prev, tokens), [0.0])           # i - 1 != i - 4 here


def test_uniform_causal_head_scores():
    t = 6
    w = np.tril(np.ones((t, t))) / np.arange(1, t + 1)[:, None]
    # row i spreads 1/(i + 1) over positions 0..i; mean over i = 1..5 of 1/(i + 1)
    assert_allclose(previous_token_scores(w[None, None]), [np.mean(1 / np.arange(2, t + 1))])


# --- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    ({"d_model": 7}, "d_model=7 is not divisible by n_heads=2"),
    ({"n_layers": 0}, "n_layers must be > 0, got 0"),
    ({"vocab_size": 2.5}, "vocab_size must be an integer, got 2.5"),
])
def test_config_rejects_bad_sizes(kwargs, message):
    sizes = {"vocab_size": 5, "n_ctx": 7, "d_model": 6, "n_heads": 2} | kwargs
    with pytest.raises(ValueError, match=message):
        AttnOnlyConfig(**sizes)


@pytest.mark.parametrize("tokens, message", [
    (np.zeros((2, 8), int), "tokens have T=8 positions; the model has n_ctx=7"),
    (np.full((1, 3), 5), r"must lie in 0..4 .* out of range: \[5, 5, 5\]"),
    (np.zeros(4, int), r"tokens must be a non-empty \(B, T\) array, got shape \(4,\)"),
    (np.zeros((1, 3)), "tokens must be integers, got dtype float64"),
])
def test_forward_rejects_bad_tokens(tokens, message):
    params, _ = small_case()
    with pytest.raises(ValueError, match=message):
        forward(SMALL, params, tokens)


def test_forward_rejects_params_of_mixed_or_integer_dtypes():
    params, tokens = small_case()
    mixed = r"params must share one dtype, float32 or float64; got .*'q0': dtype\('float32'\)"
    with pytest.raises(ValueError, match=mixed):
        forward(SMALL, params | {"q0": params["q0"].astype(np.float32)}, tokens)
    ints = {name: np.zeros(p.shape, int) for name, p in params.items()}
    with pytest.raises(ValueError, match="params must share one dtype, float32 or float64"):
        forward(SMALL, ints, tokens)


def test_forward_rejects_bad_params():
    params, tokens = small_case()
    with pytest.raises(ValueError, match=r"params\['q1'\] must have shape \(6, 6\), got \(6, 4\)"):
        forward(SMALL, params | {"q1": np.zeros((6, 4))}, tokens)
    missing = {k: v for k, v in params.items() if k != "unembed"}
    with pytest.raises(ValueError, match="params must have the keys"):
        forward(SMALL, missing, tokens)
    bad = params["embed"].copy()
    bad[0, 0] = np.nan
    nan = r"params\['embed'\] \(shape \(5, 6\)\) must be finite; found nan at index \(0, 0\)"
    with pytest.raises(ValueError, match=nan):
        forward(SMALL, params | {"embed": bad}, tokens)


def test_loss_rejects_bad_input():
    params, tokens = small_case()
    with pytest.raises(ValueError, match="needs T >= 2 tokens, got shape"):
        next_token_loss(SMALL, params, tokens[:, :1])
    with pytest.raises(ValueError, match="loss_mask selects no position"):
        next_token_loss(SMALL, params, tokens, np.zeros((3, 5), bool))
    with pytest.raises(ValueError, match=r"targets shape \(2,\) must equal logits shape \(3, 4\)"):
        cross_entropy(np.zeros((3, 4)), [0, 1])
    with pytest.raises(ValueError, match="loss_mask must be bool of shape"):
        cross_entropy(np.zeros((3, 4)), [0, 1, 2], np.ones(3))


def test_scores_reject_bad_input():
    with pytest.raises(ValueError, match=r"weights must have shape \(B, h, T, T\), got \(2, 3\)"):
        previous_token_scores(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="no token occurs twice"):
        induction_scores(np.zeros((1, 1, 3, 3)), np.array([[0, 1, 2]]))
    with pytest.raises(ValueError, match=r"do not match weights of shape \(1, 1, 3, 3\)"):
        induction_scores(np.zeros((1, 1, 3, 3)), np.array([[0, 1, 0, 1]]))
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        init_params(SMALL, 0)


# --- the unchecked internal steps compute what the checked building blocks compute ---------

@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_forward_layers_equal_the_checked_building_blocks(dtype):
    """forward validates once and then skips the per-step checks; every layer must still hold
    exactly (bit for bit) what split_heads, scaled_dot_product_attention and merge_heads
    give, in the params' dtype."""
    from attn_core import causal_mask, merge_heads, scaled_dot_product_attention, split_heads

    params, tokens = small_case(seed=3, b=4, t=7)
    params = {name: p.astype(dtype) for name, p in params.items()}
    trace = forward(SMALL, params, tokens)
    x = params["embed"][tokens] + params["pos"][:7]
    for layer, lt in enumerate(trace.layers):
        q, k, v = (split_heads(x @ params[f"{w}{layer}"], SMALL.n_heads) for w in "qkv")
        attn = scaled_dot_product_attention(q, k, v, mask=causal_mask(7))
        assert_array_equal(lt.x, x)
        for got, want in ((lt.q, q), (lt.k, k), (lt.v, v), (lt.weights, attn.weights),
                          (lt.z, merge_heads(attn.output))):
            assert got.dtype == want.dtype == dtype
            assert_array_equal(got, want)
        assert lt.scale == attn.scale
        x = x + lt.z @ params[f"o{layer}"]
    assert trace.logits.dtype == dtype
    assert_array_equal(trace.logits, x @ params["unembed"])


def test_next_token_loss_equals_the_public_loss_and_backward():
    params, tokens = small_case(seed=4)
    mask = np.random.default_rng(5).random((3, 5)) < 0.6
    loss, grads, trace = next_token_loss(SMALL, params, tokens, mask)
    want_loss, d_pred = cross_entropy(trace.logits[:, :-1], tokens[:, 1:], mask)
    d_logits = np.zeros_like(trace.logits)
    d_logits[:, :-1] = d_pred
    want = backward(SMALL, params, forward(SMALL, params, tokens), d_logits)
    assert loss == want_loss
    assert list(grads) == list(want)
    for name in want:
        assert_array_equal(grads[name], want[name])


def test_next_token_loss_checks_params_and_mask_at_the_boundary():
    params, tokens = small_case()
    bad = params["q0"].copy()
    bad[1, 2] = np.inf
    with pytest.raises(ValueError, match=r"params\['q0'\] \(shape \(6, 6\)\) must be finite"):
        next_token_loss(SMALL, params | {"q0": bad}, tokens)
    with pytest.raises(ValueError, match=r"loss_mask must be bool of shape \(3, 5\), got int64 \(3, 5\)"):
        next_token_loss(SMALL, params, tokens, np.ones((3, 5), np.int64))
    with pytest.raises(ValueError, match=r"loss_mask must be bool of shape \(3, 5\), got bool \(3, 6\)"):
        next_token_loss(SMALL, params, tokens, np.ones((3, 6), bool))
    with pytest.raises(ValueError, match="must lie in 0..4"):
        next_token_loss(SMALL, params, np.array([[0, 1, 5]]))


def test_cross_entropy_still_rejects_nan_logits():
    with pytest.raises(ValueError, match="must not contain NaN"):
        cross_entropy(np.array([[0.0, np.nan]]), [0])
