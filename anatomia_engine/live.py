"""Live pages: the browser models, the build's rule for what a live page
shows, and its sidecar.

A page is live when its front matter says which browser model recomputes it:

    live: {model: workedExample, fixed: [...], stale: [...]}

After the reader presses "Zmień liczby", docs/javascripts/live-example.js
recomputes the page's numbers, computed words, claims and formulas with that
model (docs/javascripts/explorer.js). The build holds the page to that
promise, so that nothing is left silently as built:

- a value shown where the browser recomputes it (a number's or a word's span
  in running text, a formula, a claim, a table's numbers) must be one the
  model computes, or one the page declares `fixed` (it does not depend on the
  reader's numbers);
- a value shown where the browser never recomputes it must be declared
  `fixed`: an attribute (alt text, a title, an aria-label, an address), a
  heading (the table of contents and the anchor copy it), the text of a
  drawing or a text area, the page's title, running text shown without a
  span. Only the `data-*` attributes of the live root keep the page's numbers
  by design: they are the model's inputs, what it starts from;
- a figure is drawn by the model, declared `fixed`, or declared `stale` (it
  keeps the page's numbers and says so in a label).

Otherwise the build stops at the value's file:line.

What the browser needs to recompute each element (MOVED) is not needed until
the reader asks for it: `publish` moves it into `<page>.live.json`, each
element keyed by its position among ITEMS with the text it shows (the browser
refuses a sidecar that does not belong to its page).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from anatomia_engine import links, mathml
from anatomia_engine.errors import EngineError
from anatomia_engine.placeholders import FigureRef, names_of_tag

# the browser's selector of the elements it recomputes, in document order
ITEMS = ".num, .live-word, [data-claim], .arithmatex"
# the same elements as this module finds them: by class, or by attribute
_ITEM_CLASSES = {"num", "live-word", "arithmatex"}
_ITEM_ATTRIBUTE = "data-claim"
# what the browser recomputes an element with; moved to the sidecar, needed only after "Zmień liczby"
MOVED = ("data-expr", "data-fmt", "data-claim-expr", "data-tex")
ROOT_ID = "live-example"
# the live root as the page writes it: the model's inputs are its data-* attributes
ROOT = re.compile(f'<div class="live-example" id="{ROOT_ID}"[^>]*>')
# the keys a `live:` declaration may have; `fixed` and `stale` are lists of names
KEYS = ("model", "fixed", "stale")


# --- the browser models ----------------------------------------------------------------

@dataclass(frozen=True)
class Model:
    """A browser model of docs/javascripts/explorer.js.

    `names`: the values it recomputes from the reader's numbers (the keys it returns;
    tests/unit/test_live_declared.py holds them to the JS).
    `draws`: the figures docs/javascripts/live-example.js redraws.
    """

    names: frozenset[str]
    draws: frozenset[str]


# the keys docs/javascripts/explorer.js's workedExample returns (test_live_declared holds them equal)
WORKED_EXAMPLE_NAMES = """
    E K K_T Q V W_FFN W_K W_Q W_V W_vocab attn_out change continued d_k d_model
    exp_logits exp_masked ffn_out h_last last_out_reordered last_row_same logits mask masked
    mouse_gap mouse_gap_shown_agrees n_params order_gap pad_embedding pad_full_len pad_gap
    pad_leak pad_len pad_sentence pad_token pad_weights pad_weights_nomask pad_zero prob_table
    probs probs_shown_pct_sum probs_shown_sum qkv_identity reordered_sentence residual scaled
    scores sentence sharpen_factor sqrt_d_k top_id top_prob top_token vocab_size vocab_table
    weights weights_enc weights_sharp weights_unscaled
    h2_K h2_K_T h2_Q h2_V h2_W_K h2_W_Q h2_W_V h2_out h2_residual h2_scaled h2_scores
    h2_weights h2_weights_enc tokens
    hand_row hand_dim hand_av hand_av_rounded hand_exact_rounded
"""

# the figures live-example.js redraws, by the name their module gives them
WORKED_EXAMPLE_DRAWS = """
    weights_masked_vs_unmasked next_token_probs scaled_scores head2_weights qkv_projection
    embedding_plane
"""

MODELS = {
    "workedExample": Model(
        names=frozenset(WORKED_EXAMPLE_NAMES.split()),
        draws=frozenset(WORKED_EXAMPLE_DRAWS.split()),
    ),
}


# --- a page's declaration ------------------------------------------------------------------

def _bare(name: str) -> str:
    """`name` without its module: a declaration and a model name values as the page shows them."""
    return name.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Declaration:
    """A page's `live:` front matter.

    `model`: the browser model that recomputes the page.
    `fixed`: values and figures that do not depend on the reader's numbers (shown as built,
    with no label).
    `stale`: figures that do depend on them but the model does not redraw (labelled as showing
    the page's numbers).
    """

    model: str
    fixed: frozenset[str]
    stale: frozenset[str]

    @property
    def spec(self) -> Model:
        return MODELS[self.model]

    def recomputes(self, name: str) -> bool:
        """May a place the browser recomputes show the value `name` (`module.name` or `name`)?"""
        return _bare(name) in self.spec.names or self.is_fixed(name)

    def is_fixed(self, name: str) -> bool:
        """Does the page declare that the value `name` does not depend on the reader's numbers?"""
        return _bare(name) in self.fixed

    def figure(self, name: str) -> str | None:
        """'drawn', 'fixed', 'stale', or None for a figure the declaration does not account for."""
        bare = _bare(name)
        if bare in self.spec.draws:
            return "drawn"
        if bare in self.fixed:
            return "fixed"
        if bare in self.stale:
            return "stale"
        return None


def declaration(meta: dict, where: str) -> Declaration | None:
    """The page's live declaration, or None for an ordinary page.

    `where` is the front matter's `live:` line (`docs/page.md:7`), named by the error a
    malformed declaration raises.
    """
    live = meta.get("live")
    # `live: false` says the same as no key: an ordinary page
    if live is None or live is False:
        return None
    models = ", ".join(MODELS)
    if not isinstance(live, dict) or live.get("model") not in MODELS:
        raise EngineError("live_model", where=where, models=models, got=repr(live),
                          example=next(iter(MODELS)))
    # a misspelt key ("fixd") would silently declare nothing fixed
    extra = set(live) - set(KEYS)
    lists = [live.get(key) or [] for key in ("fixed", "stale")]
    if extra or not all(_names_list(x) for x in lists):
        raise EngineError("live_keys", where=where, got=repr(live))
    return Declaration(live["model"], frozenset(lists[0]), frozenset(lists[1]))


def _names_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(name, str) for name in value)


# --- the rule: nothing left as built -------------------------------------------------------

def check(declared: Declaration | None, tag, scope: Mapping, *, recomputed: bool,
          model_input: bool = False) -> None:
    """Stop at `tag`'s line if a live page would keep the page's number where the reader's
    numbers give another.

    `recomputed`: the browser recomputes the text `tag` showed (its span carries the compiled
    expression, or it is a formula, a claim or a table's number). `model_input`: the tag fills
    a `data-*` attribute of the live root, which hands the model the page's numbers to start
    from. A figure the tag names is the figure processor's to check (`Declaration.figure`).
    """
    # an ordinary page keeps its numbers by design; the model's inputs are the page's numbers
    if declared is None or model_input:
        return
    for name in names_of_tag(tag):
        entry = scope.get(name)
        if entry is not None and isinstance(entry.value, FigureRef):
            continue
        # the browser recomputes this place, but not from a value its model does not compute
        if recomputed and not declared.recomputes(name):
            raise EngineError("live_unrecomputable", where=tag.place, source=tag.source,
                              model=declared.model, name=name)
        # a place the browser never recomputes: only a value that cannot change may stand there
        if not recomputed and not declared.is_fixed(name):
            raise EngineError("live_as_built", where=tag.place, source=tag.source,
                              model=declared.model, name=name)


def is_model_input(element_id: str | None, attribute: str | None) -> bool:
    """Is `attribute` of the element with `element_id` one of the live root's inputs?"""
    if element_id != ROOT_ID or attribute is None:
        return False
    # the root's other attributes (its class, an aria-label) are shown or read like any other
    return attribute.startswith("data-")


def element_id(raw_tag: str) -> str | None:
    """The id of a raw HTML start tag (`<div id="x" …>`), if it has one."""
    # raw HTML is matched, not parsed: the Markdown extension holds it as text until output
    m = re.search(r"""\sid\s*=\s*["']?([^"'\s>]+)""", raw_tag)
    return m and m.group(1)


# --- the sidecar ---------------------------------------------------------------------------

def _is_item(element) -> bool:
    """Is `element` one the browser recomputes (one `ITEMS` selects)?"""
    if element.get(_ITEM_ATTRIBUTE) is not None:
        return True
    return not _ITEM_CLASSES.isdisjoint(links.classes(element))


def _moved(element) -> dict:
    """The recomputation data `element` carries, by attribute name without `data-`."""
    held = {}
    for attribute in MOVED:
        value = element.get(attribute)
        if value is None:
            continue
        # a format ("dec:2") is text; every other attribute holds JSON
        if attribute != "data-fmt":
            value = json.loads(value)
        held[attribute.removeprefix("data-")] = value
    return held


def split(output: str, dest_uri: str) -> tuple[str, bytes]:
    """The page without its live attributes (its root names the sidecar: `data-live-src`), and
    the sidecar's bytes."""
    root = ROOT.search(output)
    if root is None:
        raise EngineError("live_without_root", where=dest_uri, root=ROOT_ID)
    # only the article is recomputed: the navigation and the table of contents keep their text
    article = next(links.read_html(output).iter("article"))
    # elements only: a comment's tag is a function
    inside = [element for element in article.iterdescendants() if isinstance(element.tag, str)]
    elements = [element for element in inside if _is_item(element)]
    items = []
    for position, element in enumerate(elements):
        held = _moved(element)
        # the text lets the browser check that the sidecar belongs to the page it loaded with
        if held:
            items.append([position, "".join(element.itertext()), held])
    inputs = {}
    live_root = next(element for element in inside if element.get("id") == ROOT_ID)
    for attribute, value in live_root.attrib.items():
        if attribute.startswith("data-"):
            inputs[attribute.removeprefix("data-")] = json.loads(value)
    data = {
        "count": len(elements),
        "inputs": inputs,
        "items": items,
        "selector": ITEMS,
        "temml": mathml.OPTIONS,
    }
    sidecar = PurePosixPath(dest_uri).with_suffix(".live.json").name
    tag = f'<div class="live-example" id="{ROOT_ID}" data-live-src="{html.escape(sidecar)}">'
    page = output[:root.start()] + tag + output[root.end():]
    # a first load without them is lighter; the browser reads them from the sidecar
    page = re.sub(" (?:" + "|".join(MOVED) + ')="[^"]*"', "", page)
    # sorted keys: the same page gives the same sidecar, byte for byte
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return page, text.encode("utf-8")


def publish(output: str, page, config) -> str:
    """MkDocs on_post_page: on a live page, write the sidecar and return the lighter page."""
    if not page.meta.get("live"):
        return output
    if f'id="{ROOT_ID}"' not in output:
        # name the page's source, which the contributor edits, not its output
        where = f"{Path(config.docs_dir).name}/{page.file.src_uri}"
        raise EngineError("live_without_example", where=where, root=ROOT_ID)
    output, data = split(output, page.file.dest_uri)
    sidecar = Path(config.site_dir, page.file.dest_uri).with_suffix(".live.json")
    sidecar.parent.mkdir(parents=True, exist_ok=True)
    sidecar.write_bytes(data)
    return output
