"""A live page's recomputation data out of its first load, into a sidecar file beside it.

On a live page (front matter `live: {model: …}`) what the browser needs to recompute each number,
claim and formula (MOVED) and the model's inputs are not needed until the reader presses
"Zmień liczby": `publish` moves them into `<page>.live.json`, each element keyed by its position
among ITEMS with the text it shows (the browser refuses a sidecar that does not belong to its page).
"""

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bs4 import BeautifulSoup
from mkdocs.exceptions import BuildError

from anatomia_engine import mathml
from anatomia_engine import messages as M

ITEMS = ".num, .live-word, [data-claim], .arithmatex"   # the browser's selector, in document order
MOVED = ("data-expr", "data-fmt", "data-claim-expr", "data-tex")
ROOT_ID = "live-example"


@dataclass(frozen=True)
class Model:
    """A browser model of docs/javascripts/explorer.js: the values it recomputes from the reader's
    numbers (the keys it returns; tests/unit/test_live_declared.py holds them to the JS) and the
    figures docs/javascripts/live-example.js redraws."""

    names: frozenset[str]
    draws: frozenset[str]


MODELS = {
    "workedExample": Model(
        names=frozenset("""E K K_T Q V W_FFN W_K W_Q W_V W_vocab attn_out change continued d_k d_model
            exp_logits exp_masked ffn_out h_last last_out_reordered last_row_same logits mask masked mouse_gap
            mouse_gap_shown_agrees n_params order_gap pad_embedding pad_full_len pad_gap pad_leak pad_len
            pad_sentence pad_token pad_weights pad_weights_nomask pad_zero prob_table probs
            probs_shown_pct_sum probs_shown_sum qkv_identity reordered_sentence residual scaled scores
            sentence sharpen_factor
            sqrt_d_k top_id top_prob top_token vocab_size vocab_table weights weights_enc weights_sharp
            weights_unscaled h2_K h2_K_T h2_Q h2_V h2_W_K h2_W_Q h2_W_V h2_out h2_residual h2_scaled h2_scores
            h2_weights h2_weights_enc tokens hand_row hand_dim hand_av hand_av_rounded
            hand_exact_rounded""".split()),
        draws=frozenset({"weights_masked_vs_unmasked", "next_token_probs", "scaled_scores", "head2_weights",
                       "qkv_projection", "embedding_plane"})),
}


@dataclass(frozen=True)
class Declaration:
    """A page's `live:` front matter: the model that recomputes it, the values and figures that do not
    depend on the reader's numbers (`fixed`: shown as built, no label), and the figures that do but the
    model does not redraw (`stale`: labelled as showing the page's numbers)."""

    model: str
    fixed: frozenset[str]
    stale: frozenset[str]

    @property
    def spec(self) -> Model:
        return MODELS[self.model]

    def recomputes(self, name: str) -> bool:
        """Can a live page show the value `name` (`module.name` or `name`)?"""
        bare = name.rsplit(".", 1)[-1]
        return bare in self.spec.names or bare in self.fixed

    def figure(self, name: str) -> str | None:
        """'drawn', 'fixed', 'stale', or None for a figure the declaration does not account for."""
        bare = name.rsplit(".", 1)[-1]
        return ("drawn" if bare in self.spec.draws else "fixed" if bare in self.fixed
                else "stale" if bare in self.stale else None)


def declaration(meta: dict) -> Declaration | None:
    """The page's live declaration, or None; ValueError (a message) if it is malformed."""
    live = meta.get("live")
    if live is None or live is False:
        return None
    if not isinstance(live, dict) or live.get("model") not in MODELS:
        raise ValueError(f"live: needs the browser model that recomputes the page, e.g. "
                         f"'live: {{model: {next(iter(MODELS))}, fixed: [...], stale: [...]}}' (models: "
                         f"{', '.join(MODELS)}); got {live!r}")
    extra = set(live) - {"model", "fixed", "stale"}
    lists = [live.get(key) or [] for key in ("fixed", "stale")]
    if extra or not all(isinstance(x, list) and all(isinstance(n, str) for n in x) for x in lists):
        raise ValueError(f"live: takes 'model', 'fixed' and 'stale' (lists of names); got {live!r}")
    return Declaration(live["model"], frozenset(lists[0]), frozenset(lists[1]))


def split(output: str, dest_uri: str) -> tuple[str, bytes]:
    """The page without its live attributes (its root names the sidecar: `data-live-src`), and the sidecar."""
    root = re.search(f'<div class="live-example" id="{ROOT_ID}"[^>]*>', output)
    if root is None:
        raise ValueError(f"{dest_uri}: a live page without <div class=\"live-example\" id=\"{ROOT_ID}\">")
    article = BeautifulSoup(output, "html.parser").article
    elements = article.select(ITEMS)
    moved = [{k[5:]: el[k] if k == "data-fmt" else json.loads(el[k]) for k in MOVED if el.has_attr(k)}
             for el in elements]
    items = [[i, elements[i].get_text(), held] for i, held in enumerate(moved) if held]
    attrs = article.find(id=ROOT_ID).attrs
    inputs = {k[5:]: json.loads(v) for k, v in attrs.items() if k.startswith("data-")}
    data = {"count": len(elements), "inputs": inputs, "items": items, "selector": ITEMS,
            "temml": mathml.OPTIONS}
    sidecar = PurePosixPath(dest_uri).with_suffix(".live.json").name
    tag = f'<div class="live-example" id="{ROOT_ID}" data-live-src="{html.escape(sidecar)}">'
    page = output[:root.start()] + tag + output[root.end():]
    page = re.sub(' (?:' + "|".join(MOVED) + ')="[^"]*"', "", page)
    return page, json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def publish(output: str, page, config) -> str:
    """MkDocs on_post_page: on a live page, write the sidecar and return the lighter page."""
    if not page.meta.get("live"):
        return output
    if f'id="{ROOT_ID}"' not in output:   # name the page's source, not its output
        where = f"{Path(config.docs_dir).name}/{page.file.src_uri}"
        raise BuildError(M.text("live_without_example", where=where, root=ROOT_ID))
    output, data = split(output, page.file.dest_uri)
    sidecar = Path(config.site_dir, page.file.dest_uri).with_suffix(".live.json")
    sidecar.parent.mkdir(parents=True, exist_ok=True)
    sidecar.write_bytes(data)
    return output
