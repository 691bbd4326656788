"""`make docs` publishes safely: one build at a time, a folder of its own, a checked swap.

Unit tests of anatomia_engine/publish.py, then `make docs` on a copy of the real project:
two builds started half a second apart, a build killed with SIGKILL, a failing build.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from anatomia_engine import publish
from anatomia_engine.errors import EngineError

# --- the swap ----------------------------------------------------------------------------


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _build(root: Path, name: str, files: dict[str, str]) -> Path:
    folder = root / name
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return folder


def test_swap_in_without_a_previous_site(tmp_path):
    new = _build(tmp_path, ".site.tmp.1.a", {"index.html": "nowa", "a/b.css": "x"})
    publish.swap_in(new, tmp_path / "site")
    assert _tree(tmp_path / "site") == {"index.html": b"nowa", "a/b.css": b"x"}
    assert not new.exists()


@pytest.mark.parametrize("atomic", [True, False], ids=["exchange", "two-renames"])
def test_swap_in_replaces_the_whole_site(tmp_path, monkeypatch, atomic):
    if not atomic:
        monkeypatch.setattr(publish, "_exchange", lambda a, b: False)
    _build(tmp_path, "site", {"index.html": "stara", "tylko-stara.html": "x"})
    new = _build(tmp_path, ".site.tmp.1.a", {"index.html": "nowa"})
    publish.swap_in(new, tmp_path / "site")
    assert _tree(tmp_path / "site") == {"index.html": b"nowa"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_swap_in_refuses_a_build_without_index_html(tmp_path):
    _build(tmp_path, "site", {"index.html": "stara"})
    new = _build(tmp_path, ".site.tmp.1.a", {"inna.html": "nowa"})
    with pytest.raises(EngineError) as caught:
        publish.swap_in(new, tmp_path / "site")
    assert caught.value.id == "no_index"
    assert caught.value.fields == {"folder": new.name, "site": "site"}
    assert _tree(tmp_path / "site") == {"index.html": b"stara"}


def test_swap_in_puts_the_old_site_back_when_the_second_rename_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(publish, "_exchange", lambda a, b: False)
    _build(tmp_path, "site", {"index.html": "stara"})
    new = _build(tmp_path, ".site.tmp.1.a", {"index.html": "nowa"})
    real_rename, calls = os.rename, []

    def rename(src, dst):
        calls.append((Path(src).name, Path(dst).name))
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real_rename(src, dst)

    monkeypatch.setattr(publish.os, "rename", rename)
    with pytest.raises(EngineError) as caught:
        publish.swap_in(new, tmp_path / "site")
    assert caught.value.id == "move_failed" and caught.value.fields["site"] == "site"
    assert calls[0][0] == "site" and calls[1] == (new.name, "site") and calls[2][1] == "site"
    assert _tree(tmp_path / "site") == {"index.html": b"stara"}


def test_remove_stale_removes_only_build_folders(tmp_path):
    for name in [".site.tmp.12.ab", ".site.old.34.cd", "site", "docs", ".site.lock"]:
        (tmp_path / name).mkdir() if name != ".site.lock" else (tmp_path / name).write_text("1\n")
    removed = publish.remove_stale(tmp_path, say=lambda text: None)
    assert sorted(removed) == [".site.old.34.cd", ".site.tmp.12.ab"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".site.lock", "docs", "site"]


def test_a_read_only_checkout_is_named_with_what_the_build_writes(tmp_path, monkeypatch, capsys):
    from anatomia_engine import messages

    real_open = os.open

    def read_only(path, *args, **kwargs):
        if Path(path).parent == tmp_path:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(publish.os, "open", read_only)
    assert publish.main([]) == 1
    expected = messages.text("checkout_unwritable", path=tmp_path / publish.LOCK_NAME,
                             problem=os.strerror(errno.EROFS), site="site")
    assert expected in capsys.readouterr().err
    assert not (tmp_path / "site").exists()


def test_a_build_folder_that_cannot_be_made_is_named(tmp_path, monkeypatch):
    def refuse(self, *args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))

    monkeypatch.setattr(publish.Path, "mkdir", refuse)
    with pytest.raises(EngineError) as caught:
        publish.publish(tmp_path, "site", [])
    assert caught.value.id == "checkout_unwritable"
    assert str(caught.value.fields["path"]).startswith(str(tmp_path / publish.TMP_PREFIX))
