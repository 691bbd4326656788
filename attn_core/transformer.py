# Shapes: B = sequences, T = tokens, V = vocabulary, d = d_model, h = heads, d_k = d // h.
"""A small attention-only Transformer with a hand-written backward pass, and Adam.

Token and learned positional embeddings, `n_layers` causal multi-head attention layers that
add their output to the residual stream, an unembedding; no MLP and no layer norm, as in the
attention-only models of Elhage et al. (2021) and Olsson et al. (2022). The forward pass
computes what `split_heads`, `scaled_dot_product_attention` and `merge_heads` compute;
`backward` applies the chain rule to the same steps in reverse. The public functions check
their input once; the steps inside (`_forward`, `_backward`, `_softmax_unchecked`) do not,
which keeps a training step from re-checking the same arrays a dozen times.
Parameters live in a dict of float64 arrays: 'embed' (V, d), 'pos' (n_ctx, d), 'unembed'
(d, V) and, for layer l, 'q{l}', 'k{l}', 'v{l}' (d, d) and 'o{l}' (d, d).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attn_core._checks import check_positive_int, check_positive_number, check_token_ids
from attn_core.heads import merge_heads, split_heads
from attn_core.masks import causal_mask
from attn_core.softmax import softmax


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


def init_params(config: AttnOnlyConfig, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Gaussian initial parameters: embeddings N(0, 1), weights N(0, 1/d).

    With unit-variance residual entries every query, key, value and logit starts with
    variance about 1. Returns a new dict in the order of `config.param_shapes()`.
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    params = {}
    for name, shape in config.param_shapes().items():
        std = 1.0 if name in ("embed", "pos") else 1.0 / np.sqrt(config.d_model)
        params[name] = rng.normal(0.0, std, size=shape)
    return params


def check_params(config: AttnOnlyConfig, params: dict[str, np.ndarray]) -> None:
    """ValueError unless `params` has exactly the names and shapes of `config`, all finite."""
    shapes = config.param_shapes()
    if set(params) != set(shapes):
        raise ValueError(f"params must have the keys {sorted(shapes)}; got {sorted(params)}")
    for name, shape in shapes.items():
        p = np.asarray(params[name])
        if p.shape != shape:
            raise ValueError(f"params['{name}'] must have shape {shape}, got {p.shape}")
        if not np.all(np.isfinite(p)):
            raise ValueError(f"params['{name}'] (shape {p.shape}) must be finite")


def _check_tokens(config: AttnOnlyConfig, tokens) -> np.ndarray:
    """tokens (B, T) ints in 0..V-1 with 1 <= T <= n_ctx."""
    ids = check_token_ids(tokens, "tokens", config.vocab_size)
    if ids.ndim != 2 or 0 in ids.shape:
        raise ValueError(f"tokens must be a non-empty (B, T) array, got shape {ids.shape}")
    if ids.shape[1] > config.n_ctx:
        raise ValueError(f"tokens have T={ids.shape[1]} positions; the model has n_ctx={config.n_ctx}")
    return ids


def split_batch_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """`split_heads` for a batch: (B, T, d) -> (B, h, T, d_k)."""
    b, t, d = x.shape
    heads = split_heads(x.reshape(b * t, d), n_heads)                # (h, B*T, d_k)
    return heads.reshape(n_heads, b, t, d // n_heads).swapaxes(0, 1)  # (B, h, T, d_k)


def merge_batch_heads(x: np.ndarray) -> np.ndarray:
    """`merge_heads` for a batch: (B, h, T, d_k) -> (B, T, h * d_k)."""
    b, h, t, d_k = x.shape
    merged = merge_heads(x.swapaxes(0, 1).reshape(h, b * t, d_k))    # (B*T, d)
    return merged.reshape(b, t, h * d_k)                             # (B, T, d)


def _split(x: np.ndarray, n_heads: int) -> np.ndarray:
    """Unchecked `split_batch_heads`: (B, T, d) -> (B, h, T, d_k), a view of x."""
    b, t, d = x.shape
    return x.reshape(b, t, n_heads, d // n_heads).swapaxes(1, 2)    # (B, h, T, d_k)


def _merge(x: np.ndarray) -> np.ndarray:
    """Unchecked `merge_batch_heads`: (B, h, T, d_k) -> (B, T, h * d_k), one copy."""
    b, h, t, d_k = x.shape
    return x.swapaxes(1, 2).reshape(b, t, h * d_k)                   # (B, T, d)


def _softmax_unchecked(x: np.ndarray) -> np.ndarray:
    """`softmax(x, axis=-1)` with the same arithmetic and no input checks (new array).

    Only for arrays already known to be finite or -inf with at least one finite entry per row
    (the causal attention scores and logits of a validated forward pass)."""
    e = x - np.max(x, axis=-1, keepdims=True)                        # (..., n)
    np.exp(e, out=e)
    e /= np.sum(e, axis=-1, keepdims=True)                           # (..., n)
    return e


def _attention_layer(config, params, layer: int, x: np.ndarray, mask: np.ndarray) -> LayerTrace:
    """Causal multi-head self-attention on a batch; x (B, T, d); mask (T, T) additive (0 / -inf).

    The values of `scaled_dot_product_attention` (scores * scale + mask, softmax, @ v), bit
    for bit, without its input checks: `forward` has validated params and tokens once, so
    every score is finite and every query sees at least itself.
    """
    h = config.n_heads
    q = _split(x @ params[f"q{layer}"], h)                           # (B, h, T, d_k)
    k = _split(x @ params[f"k{layer}"], h)                           # (B, h, T, d_k)
    v = _split(x @ params[f"v{layer}"], h)                           # (B, h, T, d_k)
    scale = 1.0 / float(np.sqrt(q.shape[-1]))
    scaled = (q @ k.swapaxes(-1, -2)) * scale                        # (B, h, T, T)
    # softmax(scaled + mask) with the -inf entries kept out of exp (they make it slow):
    # e = exp(min(scaled - max, 0)) * open, where open is 1 for a visible key and 0 for a
    # blocked one; on visible keys scaled - max <= 0 already, so their values are unchanged.
    e = scaled - np.max(scaled + mask, axis=-1, keepdims=True)       # (B, h, T, T)
    np.minimum(e, 0.0, out=e)
    np.exp(e, out=e)
    e *= mask == 0
    e /= np.sum(e, axis=-1, keepdims=True)
    weights = e                                                      # (B, h, T, T)
    z = _merge(weights @ v)                                          # (B, T, d)
    return LayerTrace(x=x, q=q, k=k, v=v, weights=weights, z=z, scale=scale)


def forward(config: AttnOnlyConfig, params: dict[str, np.ndarray], tokens) -> AttnOnlyTrace:
    """Logits of the attention-only Transformer for tokens (B, T) -> logits (B, T, V).

    x_0 = W_E[tokens] + W_pos[:T]; x_{l+1} = x_l + MultiHead_l(x_l) under a causal mask;
    logits = x_L W_U. Keeps every layer's input and attention pattern for `backward`.
    Each layer computes what `split_batch_heads`, `scaled_dot_product_attention` and
    `merge_batch_heads` compute (tests/test_attn_transformer.py checks it), with the inputs
    validated once here rather than inside every step.
    Used by: figures_src/induction_training.py, docs/posty/posts/glowy-indukcyjne.md.
    """
    check_params(config, params)
    return _forward(config, params, _check_tokens(config, tokens))


def _forward(config: AttnOnlyConfig, params: dict[str, np.ndarray], ids: np.ndarray) -> AttnOnlyTrace:
    """`forward` on validated params and token ids (B, T)."""
    t = ids.shape[1]
    mask = causal_mask(t)                                            # (T, T)
    x = params["embed"][ids] + params["pos"][:t]                     # (B, T, d)
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
    """
    logits = np.asarray(logits, dtype=float)
    if logits.ndim < 1 or logits.shape[-1] == 0:
        raise ValueError(f"logits must have a non-empty last axis (V), got shape {logits.shape}")
    ids = check_token_ids(targets, "targets", logits.shape[-1])
    if ids.shape != logits.shape[:-1]:
        raise ValueError(f"targets shape {ids.shape} must equal logits shape {logits.shape} "
                         f"without its last axis")
    keep = np.ones(ids.shape, bool) if loss_mask is None else np.asarray(loss_mask)
    if keep.dtype != np.bool_ or keep.shape != ids.shape:
        raise ValueError(f"loss_mask must be bool of shape {ids.shape}, got {keep.dtype} {keep.shape}")
    if not keep.any():
        raise ValueError("loss_mask selects no position: the mean loss is undefined")
    return _cross_entropy_of(softmax(logits, axis=-1), ids, keep)


def _cross_entropy_of(p: np.ndarray, ids: np.ndarray, keep: np.ndarray) -> tuple[float, np.ndarray]:
    """`cross_entropy` from p = softmax(logits) (..., V), ids (...) in 0..V-1 and keep (...)
    bool with at least one True, all validated by the caller."""
    n = int(keep.sum())
    picked = np.take_along_axis(p, ids[..., None], axis=-1)[..., 0]  # (...)
    loss = float(-np.log(picked[keep]).sum() / n)
    grad = p.copy()
    np.put_along_axis(grad, ids[..., None], picked[..., None] - 1.0, axis=-1)
    grad *= keep[..., None] / n                                      # (..., V)
    return loss, grad


def _attention_layer_backward(config, params, layer: int, lt: LayerTrace, d_out: np.ndarray,
                              grads: dict) -> np.ndarray:
    """Gradients of one layer's weights from d_out = dL/d(layer output) (B, T, d).

    Returns dL/dx through the attention path only (B, T, d); the caller adds the residual.
    """
    d, h = config.d_model, config.n_heads
    grads[f"o{layer}"] = lt.z.reshape(-1, d).T @ d_out.reshape(-1, d)  # (d, d)
    dz = _split(d_out @ params[f"o{layer}"].T, h)                   # (B, h, T, d_k)
    dw = dz @ lt.v.swapaxes(-1, -2)                                  # (B, h, T, T)
    dv = lt.weights.swapaxes(-1, -2) @ dz                            # (B, h, T, d_k)
    ds = lt.weights * (dw - np.sum(dw * lt.weights, axis=-1, keepdims=True))  # softmax'
    dq = lt.scale * ds @ lt.k                                        # (B, h, T, d_k)
    dk = lt.scale * ds.swapaxes(-1, -2) @ lt.q                       # (B, h, T, d_k)
    dx = np.zeros_like(lt.x)                                         # (B, T, d)
    x2 = lt.x.reshape(-1, d)                                         # (B*T, d)
    for name, g in (("q", dq), ("k", dk), ("v", dv)):
        g2 = _merge(g)                                               # (B, T, d)
        grads[f"{name}{layer}"] = x2.T @ g2.reshape(-1, d)           # (d, d)
        dx += g2 @ params[f"{name}{layer}"].T                        # (B, T, d)
    return dx


def backward(config: AttnOnlyConfig, params: dict[str, np.ndarray], trace: AttnOnlyTrace,
             d_logits: np.ndarray) -> dict[str, np.ndarray]:
    """Gradients of a scalar loss with respect to every parameter, given dL/dlogits (B, T, V).

    The chain rule through `forward` in reverse: unembedding, then each layer's W_O, the
    attention weights (softmax Jacobian), Q, K, V, with the residual path adding dL/dx_l.
    Returns a dict with the keys and shapes of `params`.
    """
    d_logits = np.asarray(d_logits, dtype=float)
    if d_logits.shape != trace.logits.shape:
        raise ValueError(f"d_logits must have the logits' shape {trace.logits.shape}, "
                         f"got {d_logits.shape}")
    return _backward(config, params, trace, d_logits)


def _backward(config: AttnOnlyConfig, params: dict[str, np.ndarray], trace: AttnOnlyTrace,
              d_logits: np.ndarray) -> dict[str, np.ndarray]:
    """`backward` on a trace of `_forward` and a float d_logits of the logits' shape."""
    d, v = config.d_model, config.vocab_size
    grads = {"unembed": trace.residual.reshape(-1, d).T @ d_logits.reshape(-1, v)}  # (d, V)
    dx = d_logits @ params["unembed"].T                              # (B, T, d)
    for layer in reversed(range(config.n_layers)):
        dx = dx + _attention_layer_backward(config, params, layer, trace.layers[layer], dx, grads)
    ids, t = trace.tokens, trace.tokens.shape[1]
    onehot = np.eye(v)[ids.reshape(-1)]                              # (B*T, V)
    grads["embed"] = onehot.T @ dx.reshape(-1, d)                    # (V, d)
    grads["pos"] = np.zeros_like(params["pos"])
    grads["pos"][:t] = dx.sum(axis=0)                                # (T, d)
    return {name: grads[name] for name in config.param_shapes()}


def next_token_loss(config: AttnOnlyConfig, params: dict[str, np.ndarray], tokens,
                    loss_mask=None) -> tuple[float, dict[str, np.ndarray], AttnOnlyTrace]:
    """Next-token cross-entropy of tokens (B, T) and its gradients: (loss, grads, trace).

    Position i predicts token i + 1 (i = 0..T-2); loss_mask (B, T-1) bool picks the predictions
    that count (default: all).
    """
    ids = _check_tokens(config, tokens)
    if ids.shape[1] < 2:
        raise ValueError(f"next-token loss needs T >= 2 tokens, got shape {ids.shape}")
    check_params(config, params)
    keep = np.ones((ids.shape[0], ids.shape[1] - 1), bool) if loss_mask is None else np.asarray(loss_mask)
    if keep.dtype != np.bool_ or keep.shape != (ids.shape[0], ids.shape[1] - 1):
        raise ValueError(f"loss_mask must be bool of shape {(ids.shape[0], ids.shape[1] - 1)}, "
                         f"got {keep.dtype} {keep.shape}")
    if not keep.any():
        raise ValueError("loss_mask selects no position: the mean loss is undefined")
    trace = _forward(config, params, ids)                            # finite: params are
    p = _softmax_unchecked(trace.logits[:, :-1])                     # (B, T-1, V)
    loss, d_pred = _cross_entropy_of(p, ids[:, 1:], keep)            # (B, T-1, V)
    d_logits = np.zeros_like(trace.logits)
    d_logits[:, :-1] = d_pred                                        # (B, T, V)
    return loss, _backward(config, params, trace, d_logits), trace


@dataclass
class Adam:
    """Adam (Kingma & Ba 2015) with bias correction, updating a dict of arrays in place.

    m <- b1 m + (1 - b1) g; v <- b2 v + (1 - b2) g^2;
    p <- p - lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps).
    """

    lr: float = 1e-3
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    t: int = 0
    m: dict = field(default_factory=dict)
    v: dict = field(default_factory=dict)

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
        self.t += 1
        c1, c2 = 1.0 - self.beta1 ** self.t, 1.0 - self.beta2 ** self.t
        for name, p in params.items():
            g = np.asarray(grads[name], dtype=float)
            if g.shape != p.shape:
                raise ValueError(f"grads['{name}'] has shape {g.shape}; params has {p.shape}")
            if name not in self.m:         # (not setdefault: it would build the zeros every step)
                self.m[name], self.v[name] = np.zeros_like(p), np.zeros_like(p)
            m, v = self.m[name], self.v[name]
            m *= self.beta1
            m += (1.0 - self.beta1) * g
            v *= self.beta2
            v += (1.0 - self.beta2) * g * g
            p -= self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)


def _check_weights(weights) -> np.ndarray:
    """Attention patterns (B, h, T, T) as a float array."""
    w = np.asarray(weights, dtype=float)
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
