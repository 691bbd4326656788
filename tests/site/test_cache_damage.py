"""Whatever happens to `.cache/` between builds, the next build succeeds with the same site.

A tiny project with every kind of result the build keeps (a figures module, placeholders, math,
the lab notebook through mkdocs-jupyter, links, the Polish search index): after a first build,
each file under `.cache/` is truncated or garbled (a full disk, a killed copy), and the rebuild
must give byte-identical pages, naming the damaged entries it worked out again.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from anatomia_engine.store import KINDS
from helpers import REPO, fixture_project, message_pattern, mkdocs_build

MKDOCS_YML = """\
site_name: Demo
strict: true
theme: {name: material, language: pl, font: false}
markdown_extensions: [{pymdownx.arithmatex: {generic: true}}]
plugins:
  - search
  - anatomia
  - mkdocs-jupyter: {include: ["page.ipynb"], ignore: ["*.md"], execute: false, cache: false}
nav: [index.md, laby/mini.py]
"""
MODULE = """\
import matplotlib.pyplot as plt

from anatomia_engine.kit import Plot, Table, figure, values


@values
def numbers():
    return {"weight": 0.6456563062257954}


@figure
def bars(style):
    fig, ax = plt.subplots(figsize=(3, 2), layout="constrained")
    ax.bar([0, 1], [1, 2])
    return Plot(fig=fig, alt="Dwa słupki", caption="Słupki", table=Table(["x"], [["a"]]))
"""
PAGE = """\
---
computed: [demo]
---
# Demo

Waga wynosi {{ weight | dec(2) }}, czyli \\( w = {{ weight | dec(3) }} \\). [Lab](laby/mini.py)
"""
NOTEBOOK = '# %% [markdown]\n# # Mini\n\n# %%\nprint(6 * 7)\n'


def pages(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*"))
            if p.is_file() and p.name != "sitemap.xml.gz"}


def build(project: Path, site: Path) -> str:
    proc = mkdocs_build(project, site)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-4000:]
    return proc.stderr


def reported(log: str, id: str, paths: list[Path]) -> bool:
    """Whether `log` shows the message `id` for one of `paths` (where it was read is not checked)."""
    # the build names an entry by its resolved path, under the project's resolved root
    return any(message_pattern(id, path=path.resolve()).search(log) for path in paths)


def make_project(root: Path) -> Path:
    """The fixture project with this file's configuration, module, page and notebook."""
    fixture_project(root, files={"mkdocs.yml": MKDOCS_YML, "figures_src/demo.py": MODULE,
                                 "docs/index.md": PAGE, "docs/laby/mini.py": NOTEBOOK})
    (root / "node_modules").symlink_to(REPO / "node_modules")
    return root


@pytest.fixture(scope="module")
def first_build(tmp_path_factory) -> tuple[Path, dict[str, bytes]]:
    """The project after one good build, and that build's pages; every test damages a copy."""
    folder = tmp_path_factory.mktemp("damage")
    root = make_project(folder / "proj")
    build(root, folder / "site")
    first = pages(folder / "site")
    assert "0,65" in first["index.html"].decode() and "42" in first["laby/mini/index.html"].decode()
    return root, first


@pytest.fixture
def project(first_build, tmp_path) -> Path:
    """A copy of the built project with its `.cache/`."""
    return shutil.copytree(first_build[0], tmp_path / "proj", symlinks=True)


@pytest.mark.parametrize("damage", ["truncate", "garble"])
def test_a_damaged_cache_is_worked_out_again_with_the_same_site(first_build, project, tmp_path, damage):
    first = first_build[1]
    kept = [p for p in (project / ".cache").rglob("*") if p.is_file()]
    # an entry of every kind the store keeps, each damaged below
    assert {path.parent.name for path in kept} >= set(KINDS), kept
    for path in kept:
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2] if damage == "truncate" else b"\x00garbage{" + data[::-1])
    log = build(project, tmp_path / "b")
    assert pages(tmp_path / "b") == first
    for kind in KINDS:
        damaged = [path for path in kept if path.parent.name == kind]
        assert reported(log, "store_damaged", damaged), f"no damaged {kind} entry was said:\n{log[-3000:]}"


def test_entries_swapped_between_keys_are_reported_and_worked_out_again(first_build, project, tmp_path):
    """Each entry is whole (its checksum holds) but lies under another entry's key: each is named and
    worked out again, and the site is the first build's."""
    first = first_build[1]
    kept = sorted(p for p in (project / ".cache" / "anatomia").rglob("*") if p.is_file())
    contents = [p.read_bytes() for p in kept]
    for path, data in zip(kept, contents[1:] + contents[:1], strict=True):   # every entry moves
        path.write_bytes(data)
    log = build(project, tmp_path / "b")
    assert pages(tmp_path / "b") == first
    for kind in KINDS:
        swapped = [path for path in kept if path.parent.name == kind]
        assert reported(log, "store_wrong_key", swapped), f"no swapped {kind} entry was said:\n{log[-3000:]}"


def test_an_unwritable_cache_is_said_once_per_kind_and_the_build_goes_on(first_build, project, tmp_path):
    first = first_build[1]
    shutil.rmtree(project / ".cache" / "anatomia")
    (project / ".cache" / "anatomia").write_text("not a folder\n")   # as read-only as root can see
    log = build(project, tmp_path / "b")
    assert pages(tmp_path / "b") == first
    # the message for each kind's folder, and how many times it was said
    said = {}
    for kind in KINDS:
        folder = (project / ".cache" / "anatomia" / kind).resolve()
        said[kind] = len(message_pattern("store_unwritable", folder=folder).findall(log))
    # every kind says so; the pages' store, which would write an entry per page, says it once
    assert all(said.values()) and said["pages"] == 1, (said, log[-3000:])
