"""anatomia_engine/store.py: checksummed entries, used again only when intact; and the per-page
results kept in it (a page's links and search sections, typeset formulas)."""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import time

import pytest

from anatomia_engine import links, store
from anatomia_engine.errors import EngineError
from helpers import message_pattern


def test_key_delimits_its_parts():
    assert store.key("ab", "c") != store.key("a", "bc")
    assert store.key("a", b"b") == store.key(b"a", "b")


def test_an_entry_comes_back_and_a_damaged_one_does_not(tmp_path, caplog):
    s = store.Store(tmp_path, ".bin")
    s.put("k", b"payload")
    assert store.Store(tmp_path, ".bin").get("k") == b"payload"
    path = tmp_path / "k.bin"
    path.write_bytes(path.read_bytes().replace(b"payload", b"paylaod"))     # edited by hand
    with caplog.at_level(logging.WARNING, logger="anatomia_engine.store"):
        assert store.Store(tmp_path, ".bin").get("k", "docs/x.md") is None
    assert message_pattern("store_damaged", where="docs/x.md: ", path=path).search(caplog.text), caplog.text
    path.write_bytes(path.read_bytes()[:20])                                 # truncated
    assert store.Store(tmp_path, ".bin").get("k") is None
    assert store.Store(tmp_path, ".bin").get("missing") is None


def test_an_entry_read_under_another_key_is_reported_and_worked_out_again(tmp_path, caplog):
    s = store.Store(tmp_path, ".bin")
    s.put("a", b"what a was computed from")
    s.put("b", b"what b was computed from")
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    data_a, data_b = a.read_bytes(), b.read_bytes()
    a.write_bytes(data_b)                                  # swapped: each whole, each checksum right
    b.write_bytes(data_a)
    with caplog.at_level(logging.WARNING, logger="anatomia_engine.store"):
        assert store.Store(tmp_path, ".bin").get("a", "docs/x.md") is None
        assert store.Store(tmp_path, ".bin").get("b") is None
    assert message_pattern("store_wrong_key", where="docs/x.md: ", path=a, found="b").search(caplog.text)
    assert message_pattern("store_wrong_key", where="", path=b, found="a").search(caplog.text)
    s = store.Store(tmp_path, ".bin")                      # worked out again: stored under its own key
    s.put("a", b"what a was computed from")
    assert store.Store(tmp_path, ".bin").get("a") == b"what a was computed from"


def test_an_entry_of_the_format_without_keys_is_worked_out_again_without_a_warning(tmp_path, caplog):
    body = b"payload"
    (tmp_path / "k.bin").write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    with caplog.at_level(logging.WARNING, logger="anatomia_engine.store"):
        assert store.Store(tmp_path, ".bin").get("k") is None
    assert caplog.text == ""


def test_a_code_key_ignores_comments_docstrings_and_layout_but_not_code(tmp_path):
    import importlib.util

    def key_of(source: str) -> str:
        path = tmp_path / f"m{len(list(tmp_path.iterdir()))}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        return store.code_key(importlib.util.module_from_spec(spec))

    base = key_of('"""A module."""\n\ndef f(x):\n    """Twice."""\n    return 2 * x\n')
    assert key_of('"""A module, described anew."""\n# a comment\n\n\ndef f(x):  # why\n'
                  '    """Twice x."""\n    return 2 * (x)\n') == base
    assert key_of('"""A module."""\n\ndef f(x):\n    """Twice."""\n    return 3 * x\n') != base
    assert key_of('"""A module."""\n\ndef f(x):\n    """Twice."""\n    return "2" * x\n') != base


def test_prune_keeps_what_was_used_and_drops_old_temporary_files(tmp_path):
    s = store.Store(tmp_path, ".bin")
    for name in "abc":
        s.put(name, name.encode())
    s.prune()
    stale_tmp = tmp_path / ".d.bin.123.tmp"
    fresh_tmp = tmp_path / ".e.bin.124.tmp"
    stale_tmp.write_bytes(b"x")
    fresh_tmp.write_bytes(b"x")
    os.utime(stale_tmp, (time.time() - 7200, time.time() - 7200))
    s = store.Store(tmp_path, ".bin")
    assert s.get("b") == b"b"
    s.prune()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".e.bin.124.tmp", "b.bin"]
    store.Store(tmp_path, ".bin").prune()     # a build that used nothing removes nothing
    assert (tmp_path / "b.bin").exists()


def _read_page(tmp_path, html: str) -> list[str]:
    """A build's plugin reading one final page (its store in tmp_path/cache): the link check's problems."""
    import types

    from anatomia_engine.plugin import AnatomiaPlugin
    from anatomia_engine.state import BuildState

    plugin = AnatomiaPlugin()
    plugin.docs_name, plugin.uses_search = "docs", False
    plugin.state = BuildState(rendered=store.Store(tmp_path / "cache", ".pickle"))
    plugin.links = links.Checker()
    page = types.SimpleNamespace(url="", title="Start", meta={}, content=html, file=types.SimpleNamespace(
        src_uri="index.md", dest_uri="index.html"))
    plugin.on_post_page(html, page=page, config=types.SimpleNamespace(docs_dir=str(tmp_path)))
    return [str(problem) for problem in plugin.links.check(tmp_path / "site")]


def test_a_page_is_read_once_per_html_and_a_damaged_entry_is_not_used(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<p id='a'>x</p>")
    html = "<h2 id='a'>A</h2><a href='#a'>to a</a><a href='#b'>to b</a>"
    first = _read_page(tmp_path, html)
    assert len(first) == 1 and "#b" in first[0]
    [entry] = (tmp_path / "cache").glob("*.pickle")
    # The stored parse is what the next build uses: a consistent forgery shows ...
    head, _, body = entry.read_bytes().partition(b"\n")
    parsed, docs = pickle.loads(body)
    parsed.ids.add("b")
    forged = pickle.dumps((parsed, docs))
    name = head.split(b" ")[1]
    checksum = hashlib.sha256(name + b"\n" + forged).hexdigest().encode()
    entry.write_bytes(checksum + b" " + name + b"\n" + forged)
    assert _read_page(tmp_path, html) == []
    # ... a damaged one is read again, so the broken link is reported as before.
    entry.write_bytes(entry.read_bytes()[:-3])
    assert _read_page(tmp_path, html) == first
    # Other HTML is another entry: the stored parse of the old page is not used for it.
    assert _read_page(tmp_path, html.replace("#a", "#c")) != []


def test_formulas_come_from_the_store_without_node_and_a_damaged_entry_is_typeset_again(tmp_path):
    from anatomia_engine import mathml

    jobs = [(r"\frac{a}{b}", True), (r"x_i", False)]
    first = mathml.MathRenderer(stored=store.Store(tmp_path, ".json"))
    typeset = first.render_many(jobs)
    assert first.formulas_typeset == 2 and "<mfrac>" in typeset[jobs[0]]
    again = mathml.MathRenderer(stored=store.Store(tmp_path, ".json"))
    assert again.render_many(jobs) == typeset
    assert again.formulas_typeset == 0                                  # node never started
    [entry] = tmp_path.glob("*.json")
    entry.write_bytes(entry.read_bytes().replace(b"mfrac", b"mfrak"))    # edited by hand
    third = mathml.MathRenderer(stored=store.Store(tmp_path, ".json"))
    assert third.render_many(jobs) == typeset and third.formulas_typeset == 2
    bad = mathml.MathRenderer(stored=store.Store(tmp_path / "bad", ".json"))
    assert isinstance(bad.render_many([(r"\frac{", False)])[(r"\frac{", False)], mathml.Refused)
    assert not (tmp_path / "bad").exists()                               # errors are never stored


def test_an_unreadable_entry_is_reported_and_an_unwritable_store_is_skipped_once(tmp_path, caplog):
    (tmp_path / "k.bin").mkdir()                                  # an entry that cannot be read
    with caplog.at_level(logging.WARNING, logger="anatomia_engine.store"):
        assert store.Store(tmp_path, ".bin").get("k", "docs/x.md") is None
        unreadable = message_pattern("store_unreadable", where="docs/x.md: ", path=tmp_path / "k.bin")
        assert unreadable.search(caplog.text), caplog.text
        caplog.clear()
        (tmp_path / "file").write_text("not a folder\n")
        s = store.Store(tmp_path / "file" / "kind", ".bin")          # as unwritable as root can see
        s.put("a", b"1")
        s.put("b", b"2")
        assert s.get("a") is None
    # said once for the store, however many entries it could not write
    unwritable = message_pattern("store_unwritable", folder=tmp_path / "file" / "kind")
    assert len(unwritable.findall(caplog.text)) == 1, caplog.text
    assert not list(tmp_path.glob("**/*.tmp"))


def test_what_earlier_formats_left_in_the_cache_is_removed(tmp_path):
    base = tmp_path / ".cache" / "anatomia"
    for kind in ("katex", "links", "notebooks/0123abcd", "computed"):
        (base / kind).mkdir(parents=True)
    (base / "notebooks" / "0123abcd" / "page.ipynb").write_text("{}")
    store.Store(base / "notebooks", ".json").put("k", b"1")
    store.prune_others(tmp_path)
    left = sorted(p.relative_to(base).as_posix() for p in base.rglob("*"))
    assert left == ["computed", "notebooks", "notebooks/k.json"]


def test_a_kind_of_result_the_pruning_would_remove_is_refused(tmp_path):
    with pytest.raises(EngineError) as info:
        store.folder(tmp_path, "katex")
    assert info.value.id == "cache_kind" and info.value.fields == {"kind": "katex"}
