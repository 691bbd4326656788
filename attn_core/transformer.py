# Shapes: B = sequences, T = tokens, V = vocabulary, d = d_model, h = heads, d_k = d // h.
"""A small attention-only Transformer with a hand-written backward pass, and Adam.

Token and learned positional embeddings, `n_layers` causal multi-head attention layers that
add their output to the residual stream, an unembedding; no MLP and no layer norm, as in the
attention-only models of Elhage et al. (2021) and Olsson et al. (2022). Each layer is
`split_heads`, scaled dot-product attention and `merge_heads`, every product batched over
all sequences and heads; `backward` applies the chain rule to the same steps in reverse. The
public functions check their input once; the steps inside (`_forward`, `_backward`) call the
unchecked kernels of attn_core.stable_softmax and attn_core.heads, so a training step does not
re-check the same arrays a dozen times.
Parameters live in a dict of arrays of one float dtype (float64 by default, float32 for
speed; every output follows it): 'embed' (V, d), 'pos' (n_ctx, d), 'unembed' (d, V) and,
for layer l, 'q{l}', 'k{l}', 'v{l}' (d, d) and 'o{l}' (d, d).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_core._checks import (
    as_float_array,
    as_real_array,
    check_positive_int,
    check_positive_number,
    check_token_ids,
    compute_dtype,
)
from attn_core.heads import merge_heads_unchecked, split_heads_unchecked
from attn_core.masks import causal_mask
from attn_core.stable_softmax import log_softmax, log_softmax_unchecked, softmax_unchecked

FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


@dataclass(frozen=True)
class AttnOnlyConfig:
    """Sizes of an attention-only Transformer: V, n_ctx (longest sequence), d, h, layers."""

    vocab_size: int
    n_ctx: int
    d_model: int
    n_heads: int
    n_layers: int = 2

    def __post_init__(self) -> None:
        for name in ("vocab_size", "n_ctx", "d_model", "n_heads", "n_layers"):
            check_positive_int(getattr(self, name), name)
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")

    @property
    def d_k(self) -> int:
        return self.d_model // self.n_heads

    def param_shapes(self) -> dict[str, tuple[int, int]]:
        """Name -> shape of every parameter, in a fixed order."""
        d = self.d_model
        shapes = {"embed": (self.vocab_size, d), "pos": (self.n_ctx, d)}
        for layer in range(self.n_layers):
            for w in "qkvo":
                shapes[f"{w}{layer}"] = (d, d)
        shapes["unembed"] = (d, self.vocab_size)
        return shapes


@dataclass(frozen=True, eq=False)
class LayerTrace:
    """What one attention layer computed: x (B, T, d) its input; q, k, v (B, h, T, d_k);
    weights (B, h, T, T) attention patterns; z (B, T, d) merged head outputs; scale 1/sqrt(d_k)."""

    x: np.ndarray
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    weights: np.ndarray
    z: np.ndarray
    scale: float


@dataclass(frozen=True, eq=False)
class AttnOnlyTrace:
    """Forward pass: tokens (B, T); layers (one LayerTrace each); residual (B, T, d) the final
    stream; logits (B, T, V). `weights(l)` is layer l's pattern (B, h, T, T)."""

    tokens: np.ndarray
    layers: list[LayerTrace]
    residual: np.ndarray
    logits: np.ndarray

    def weights(self, layer: int) -> np.ndarray:
        return self.layers[layer].weights


def init_params(config: AttnOnlyConfig, rng: np.random.Generator,
                dtype=np.float64) -> dict[str, np.ndarray]:
    """Gaussian initial parameters: embeddings N(0, 1), weights N(0, 1/d), of `dtype`.

    With unit-variance residual entries every query, key, value and logit starts with
    variance about 1. Returns a new dict in the order of `config.param_shapes()`; the draws
    are the same for both dtypes (float32 rounds the float64 ones).
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if np.dtype(dtype) not in FLOAT_DTYPES:
        raise ValueError(f"dtype must be float32 or float64, got {np.dtype(dtype)}")
    params = {}
    for name, shape in config.param_shapes().items():
        std = 1.0 if name in ("embed", "pos") else 1.0 / np.sqrt(config.d_model)
        params[name] = rng.normal(0.0, std, size=shape).astype(dtype)
    return params


def check_params(config: AttnOnlyConfig, params: dict[str, np.ndarray]) -> np.dtype:
    """The params' dtype; ValueError unless `params` has exactly the names and shapes of
    `config`, all finite arrays of one float dtype (float32 or float64)."""
    shapes = config.param_shapes()
    if set(params) != set(shapes):
        raise ValueError(f"params must have the keys {sorted(shapes)}; got {sorted(params)}")
    dtypes = {name: np.asarray(p).dtype for name, p in params.items()}
    if len(set(dtypes.values())) != 1 or next(iter(dtypes.values())) not in FLOAT_DTYPES:
        raise ValueError(f"params must share one dtype, float32 or float64; got {dtypes}")
    for name, shape in shapes.items():
        p = np.asarray(params[name])
        if p.shape != shape:
            raise ValueError(f"params['{name}'] must have shape {shape}, got {p.shape}")
        if not np.all(np.isfinite(p)):
            bad = tuple(int(i) for i in np.argwhere(~np.isfinite(p))[0])
            raise ValueError(f"params['{name}'] (shape {p.shape}) must be finite; "
                             f"found {p[bad]} at index {bad}")
    return next(iter(dtypes.values()))


def _check_tokens(config: AttnOnlyConfig, tokens) -> np.ndarray:
    """tokens (B, T) ints in 0..V-1 with 1 <= T <= n_ctx."""
    ids = check_token_ids(tokens, "tokens", config.vocab_size)
    if ids.ndim != 2 or 0 in ids.shape:
        raise ValueError(f"tokens must be a non-empty (B, T) array, got shape {ids.shape}")
    if ids.shape[1] > config.n_ctx:
        raise ValueError(f"tokens have T={ids.shape[1]} positions; the model has n_ctx={config.n_ctx}")
    return ids


def _attention_layer(config, params, layer: int, x: np.ndarray, mask: np.ndarray) -> LayerTrace:
    """Causal multi-head self-attention on a batch; x (B, T, d); mask (T, T) additive (0 / -inf).

    softmax(Q K^T * scale + M) V per head, as `scaled_dot_product_attention` computes it,
    without its input checks: `forward` has validated params and tokens once, so every score
    is finite and every query sees at least itself.
    """
    h = config.n_heads
    q, k, v = (split_heads_unchecked(x @ params[f"{w}{layer}"], h)   # (B, T, d) -> (B, h, T, d_k)
               for w in "qkv")
    scale = 1.0 / float(np.sqrt(config.d_k))
    scaled = (q @ k.swapaxes(-1, -2)) * scale                        # (B, h, T, T)
    scaled += mask
    weights = softmax_unchecked(scaled)                              # (B, h, T, T)
    z = merge_heads_unchecked(weights @ v)                           # (B, h, T, d_k) -> (B, T, d)
    return LayerTrace(x=x, q=q, k=k, v=v, weights=weights, z=z, scale=scale)


def forward(config: AttnOnlyConfig, params: dict[str, np.ndarray], tokens) -> AttnOnlyTrace:
    """Logits of the attention-only Transformer for tokens (B, T) -> logits (B, T, V).

    x_0 = W_E[tokens] + W_pos[:T]; x_{l+1} = x_l + MultiHead_l(x_l) under a causal mask;
    logits = x_L W_U, in the params' dtype. Keeps every layer's input and attention pattern
    for `backward`. Each layer computes what `split_heads`, `scaled_dot_product_attention`
    and `merge_heads` compute (tests/test_attn_transformer.py checks it).
    Used by: figures_src/induction_training.py, docs/posty/posts/glowy-indukcyjne.md.
    """
    check_params(config, params)
    return _forward(config, params, _check_tokens(config, tokens))


def _forward(config: AttnOnlyConfig, params: dict[str, np.ndarray], ids: np.ndarray) -> AttnOnlyTrace:
    """`forward` on validated params and token ids (B, T)."""
    t = ids.shape[1]
    x = params["embed"][ids] + params["pos"][:t]                     # (B, T, d)
    mask = causal_mask(t).astype(x.dtype)                            # (T, T)
    layers = []
    for layer in range(config.n_layers):
        layers.append(_attention_layer(config, params, layer, x, mask))
        x = x + layers[-1].z @ params[f"o{layer}"]                   # (B, T, d)
    return AttnOnlyTrace(tokens=ids, layers=layers, residual=x,
                         logits=x @ params["unembed"])               # (B, T, V)


def cross_entropy(logits: np.ndarray, targets, loss_mask=None) -> tuple[float, np.ndarray]:
    """Mean softmax cross-entropy -log p(target) and its gradient with respect to the logits.

    logits (..., V); targets (...) ints in 0..V-1; loss_mask (...) bool selects the positions
    that count (default: all). Returns (loss, d_logits (..., V)): d = (softmax - onehot) / n.
    log p comes from `log_softmax`, so a target far below the largest logit gives its large
    finite loss, not log(0). float32 logits give a float32 gradient.
    """
    logits = as_float_array(logits, "logits", min_ndim=1, finite=False)
    if logits.shape[-1] == 0:
        raise ValueError(f"logits must have a non-empty last axis (V), got shape {logits.shape}")
    ids = check_token_ids(targets, "targets", logits.shape[-1])
    if ids.shape != logits.shape[:-1]:
        raise ValueError(f"targets shape {ids.shape} must equal logits shape {logits.shape} "
                         f"without its last axis")
    keep = _check_loss_mask(loss_mask, ids.shape)
    return _cross_entropy_of(log_softmax(logits, axis=-1), ids, keep)


def _check_loss_mask(loss_mask, shape: tuple[int, ...]) -> np.ndarray:
    """loss_mask as a bool array of `shape` with at least one True (None: all True)."""
    keep = np.ones(shape, bool) if loss_mask is None else np.asarray(loss_mask)
    if keep.dtype != np.bool_ or keep.shape != shape:
        raise ValueError(f"loss_mask must be bool of shape {shape}, got {keep.dtype} {keep.shape}")
    if not keep.any():
        raise ValueError("loss_mask selects no position: the mean loss is undefined")
    return keep


def _cross_entropy_of(log_p: np.ndarray, ids: np.ndarray, keep: np.ndarray) -> tuple[float, np.ndarray]:
    """`cross_entropy` from log_p = log_softmax(logits) (..., V), ids (...) in 0..V-1 and
    keep (...) bool with at least one True, all validated by the caller."""
    n = int(keep.sum())
    picked = np.take_along_axis(log_p, ids[..., None], axis=-1)     # (..., 1) log p(target)
    loss = float(-picked[keep].sum(dtype=np.float64) / n)
    grad = np.exp(log_p)                                             # (..., V) softmax
    np.put_along_axis(grad, ids[..., None], np.exp(picked) - 1.0, axis=-1)
    grad *= keep[..., None] / np.asarray(n, grad.dtype)              # (..., V)
    return loss, grad


def _attention_layer_backward(config, params, layer: int, lt: LayerTrace, d_out: np.ndarray,
                              grads: dict) -> np.ndarray:
    """Gradients of one layer's weights from d_out = dL/d(layer output) (B, T, d).

    Returns dL/dx through the attention path only (B, T, d); the caller adds the residual.
    """
    d, h = config.d_model, config.n_heads
    grads[f"o{layer}"] = lt.z.reshape(-1, d).T @ d_out.reshape(-1, d)  # (d, d)
    dz = split_heads_unchecked(d_out @ params[f"o{layer}"].T, h)     # (B, h, T, d_k)
    dw = dz @ lt.v.swapaxes(-1, -2)                                  # (B, h, T, T)
    ds = dw - np.sum(dw * lt.weights, axis=-1, keepdims=True)        # softmax Jacobian:
    ds *= lt.weights                                                 # ds = w * (dw - <dw, w>)
    ds *= lt.scale
    dx = np.zeros_like(lt.x)                                         # (B, T, d)
    x2 = lt.x.reshape(-1, d)                                         # (B*T, d)
    for w, g in (("q", ds @ lt.k), ("k", ds.swapaxes(-1, -2) @ lt.q),   # (B, h, T, d_k) each
                 ("v", lt.weights.swapaxes(-1, -2) @ dz)):
        g = merge_heads_unchecked(g)                                 # (B, T, d)
        grads[f"{w}{layer}"] = x2.T @ g.reshape(-1, d)               # (d, d)
        dx += g @ params[f"{w}{layer}"].T                            # (B, T, d)
    return dx


def backward(config: AttnOnlyConfig, params: dict[str, np.ndarray], trace: AttnOnlyTrace,
             d_logits: np.ndarray) -> dict[str, np.ndarray]:
    """Gradients of a scalar loss with respect to every parameter, given dL/dlogits (B, T, V).

    The chain rule through `forward` in reverse: unembedding, then each layer's W_O, the
    attention weights (softmax Jacobian), Q, K, V, with the residual path adding dL/dx_l.
    Returns a dict with the keys and shapes of `params`, in the dtype of the trace.
    """
    d_logits = as_float_array(d_logits, "d_logits")
    if d_logits.shape != trace.logits.shape:
        raise ValueError(f"d_logits must have the logits' shape {trace.logits.shape}, "
                         f"got {d_logits.shape}")
    return _backward(config, params, trace, d_logits.astype(trace.logits.dtype, copy=False))


def _backward(config: AttnOnlyConfig, params: dict[str, np.ndarray], trace: AttnOnlyTrace,
              d_logits: np.ndarray) -> dict[str, np.ndarray]:
    """`backward` on a trace of `_forward` and d_logits of the logits' shape and dtype."""
    d, v = config.d_model, config.vocab_size
    grads = {"unembed": trace.residual.reshape(-1, d).T @ d_logits.reshape(-1, v)}  # (d, V)
    dx = d_logits @ params["unembed"].T                              # (B, T, d)
    for layer in reversed(range(config.n_layers)):
        dx = dx + _attention_layer_backward(config, params, layer, trace.layers[layer], dx, grads)
    ids, t = trace.tokens, trace.tokens.shape[1]
    cell = (ids.reshape(-1, 1) * d + np.arange(d)).reshape(-1)       # (B*T*d,) flat (id, column)
    grads["embed"] = np.bincount(cell, weights=dx.reshape(-1), minlength=v * d).reshape(v, d).astype(
        dx.dtype)                                                    # (V, d): row id += dx[b, i]
    grads["pos"] = np.zeros_like(params["pos"])                      # (n_ctx, d)
    grads["pos"][:t] = dx.sum(axis=0)                                # (T, d)
    return {name: grads[name] for name in config.param_shapes()}


def next_token_loss(config: AttnOnlyConfig, params: dict[str, np.ndarray], tokens,
                    loss_mask=None) -> tuple[float, dict[str, np.ndarray], AttnOnlyTrace]:
    """Next-token cross-entropy of tokens (B, T) and its gradients: (loss, grads, trace).

    Position i predicts token i + 1 (i = 0..T-2); loss_mask (B, T-1) bool picks the predictions
    that count (default: all). The gradients have the params' dtype.
    """
    ids = _check_tokens(config, tokens)
    if ids.shape[1] < 2:
        raise ValueError(f"next-token loss needs T >= 2 tokens, got shape {ids.shape}")
    check_params(config, params)
    keep = _check_loss_mask(loss_mask, (ids.shape[0], ids.shape[1] - 1))
    trace = _forward(config, params, ids)                            # finite: params are
    log_p = log_softmax_unchecked(trace.logits[:, :-1])              # (B, T-1, V)
    loss, d_pred = _cross_entropy_of(log_p, ids[:, 1:], keep)        # (B, T-1, V)
    d_logits = np.zeros_like(trace.logits)
    d_logits[:, :-1] = d_pred                                        # (B, T, V)
    return loss, _backward(config, params, trace, d_logits), trace


@dataclass
class Adam:
    """Adam (Kingma & Ba 2015) with bias correction, updating a dict of arrays in place.

    m <- b1 m + (1 - b1) g; v <- b2 v + (1 - b2) g^2;
    p <- p - lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps).
    The moments of all parameters live in two flat vectors (m, v), in the order of the
    first `step`'s params, so one step is a few whole-vector operations.
    """

    lr: float = 1e-3
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    t: int = 0
    m: np.ndarray | None = None
    v: np.ndarray | None = None
    layout: tuple[tuple[str, tuple[int, ...]], ...] = ()   # (name, shape) in m and v

    def __post_init__(self) -> None:
        check_positive_number(self.lr, "lr")
        check_positive_number(self.eps, "eps")
        for name in ("beta1", "beta2"):
            beta = getattr(self, name)
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"{name} must lie in [0, 1), got {beta}")

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        """One update of every array in `params` from `grads` (same keys and shapes)."""
        if set(grads) != set(params):
            raise ValueError(f"grads keys {sorted(grads)} differ from params keys {sorted(params)}")
        for name, p in params.items():
            if np.shape(grads[name]) != p.shape:
                raise ValueError(f"grads['{name}'] has shape {np.shape(grads[name])}; "
                                 f"params has {p.shape}")
        if self.m is None:
            self.layout = tuple((name, p.shape) for name, p in params.items())
            size = sum(p.size for p in params.values())
            dtype = np.result_type(*params.values())
            self.m, self.v = np.zeros(size, dtype), np.zeros(size, dtype)
        elif {name: shape for name, shape in self.layout} != {n: p.shape for n, p in params.items()}:
            raise ValueError(f"params {[(n, p.shape) for n, p in params.items()]} differ from "
                             f"the first step's {list(self.layout)}")
        names = [name for name, _ in self.layout]
        g = np.concatenate([np.ravel(grads[name]) for name in names]).astype(self.m.dtype, copy=False)
        self.t += 1
        c1, c2 = 1.0 - self.beta1 ** self.t, 1.0 - self.beta2 ** self.t
        self.m *= self.beta1
        self.m += (1.0 - self.beta1) * g
        self.v *= self.beta2
        g *= g
        self.v += (1.0 - self.beta2) * g
        denom = np.sqrt(self.v / c2)
        denom += self.eps
        update = self.m * (self.lr / c1)
        update /= denom                                              # (P,)
        start = 0
        for name in names:
            p = params[name]
            p -= update[start:start + p.size].reshape(p.shape)
            start += p.size


def _check_weights(weights) -> np.ndarray:
    """Attention patterns (B, h, T, T) as a float array (float32 kept)."""
    w = as_real_array(weights, "weights")
    w = w.astype(compute_dtype(w), copy=False)
    if w.ndim != 4 or w.shape[-1] != w.shape[-2] or 0 in w.shape:
        raise ValueError(f"weights must have shape (B, h, T, T), got {w.shape}")
    return w


def previous_token_scores(weights) -> np.ndarray:
    """Per head, the mean weight a query puts on the token just before it: (B, h, T, T) -> (h,).

    score = mean over sequences and positions i = 1..T-1 of A[i, i - 1]; 1 for a perfect
    previous-token head, about 1/i at position i for a head that spreads its weight evenly.
    Used by: figures_src/induction_training.py.
    """
    w = _check_weights(weights)
    if w.shape[-1] < 2:
        raise ValueError(f"a previous-token score needs T >= 2, got weights of shape {w.shape}")
    i = np.arange(1, w.shape[-1])
    return w[:, :, i, i - 1].mean(axis=(0, 2))                       # (B, h, T-1) -> (h,)


def induction_targets(tokens) -> np.ndarray:
    """For each position i, the position right after the latest earlier occurrence of token i.

    tokens (B, T) ints -> (B, T) ints: j + 1 where j < i is the last position with
    tokens[j] == tokens[i], or -1 where token i has not occurred before.
    Used by: `induction_scores`.
    """
    ids = np.asarray(tokens)
    if ids.ndim != 2 or 0 in ids.shape or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"tokens must be a non-empty (B, T) integer array, got {ids.dtype} {ids.shape}")
    t = ids.shape[1]
    earlier = np.tril(np.ones((t, t), bool), k=-1)                  # (T, T): j < i
    same = (ids[:, :, None] == ids[:, None, :]) & earlier            # (B, T, T)
    last = t - 1 - np.argmax(same[:, :, ::-1], axis=-1)              # (B, T) latest such j
    return np.where(same.any(axis=-1), last + 1, -1)                 # (B, T)


def induction_scores(weights, tokens) -> np.ndarray:
    """Per head, the mean weight on the token after the previous occurrence: -> (h,).

    weights (B, h, T, T), tokens (B, T). Averaged over every (sequence, position) whose token
    occurred before (`induction_targets` >= 0); 1 for a perfect induction head (Olsson et al.
    2022). On a random half followed by its repetition this is A[i, i - L + 1] in the second half.
    Used by: figures_src/induction_training.py.
    """
    w = _check_weights(weights)
    target = induction_targets(tokens)                               # (B, T)
    if target.shape != (w.shape[0], w.shape[2]):
        raise ValueError(f"tokens of shape {target.shape} do not match weights of shape {w.shape}")
    b, i = np.nonzero(target >= 0)                                   # (n,) each
    if b.size == 0:
        raise ValueError("no token occurs twice in `tokens`: the induction score is undefined")
    return w[b, :, i, target[b, i]].mean(axis=0)                     # (n, h) -> (h,)
