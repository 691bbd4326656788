"""Small figures_src modules run in a mini project of a test's own (the fixture project with a
one-line attn_core): writing them, running them, reading what was kept, damaging a kept entry."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from anatomia_engine import runner, store
from anatomia_engine.errors import EngineError
from helpers import fixture_project

HEADER = "import numpy as np\nfrom anatomia_engine.kit import Plot, Table, Value, figure, values\n"


def make_mini(root: Path) -> Path:
    """The fixture project with a one-line attn_core; each test writes its own modules."""
    return fixture_project(root, files={"attn_core/__init__.py": "SCALE = 2\n"})


def fresh(root: Path) -> Path:
    """`root` emptied and made a mini project again (the folder stays: the kept worker runs in it)."""
    for path in root.iterdir():
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    return make_mini(root)


def compute(root: Path, names: list[str]):
    """runner.compute with the worker kept between runs (as under `mkdocs serve`)."""
    return runner.compute(names, root=root, keep_worker=True)


def failures(root: Path, names: list[str]) -> dict[str, tuple[str, bool]]:
    """Run the modules `names` together (one worker, one child each), all expected to fail: each
    one's part of the error message, and whether anything was kept for it."""
    with pytest.raises(EngineError) as info:
        compute(root, names)
    message = str(info.value)
    starts = sorted((message.index(f"figures_src/{n}.py"), n) for n in names)
    ends = [start for start, _ in starts[1:]] + [len(message)]
    return {n: (message[start:end], kept(root, n) is not None or entry_path(root, n).exists())
            for (start, n), end in zip(starts, ends, strict=True)}


def module_errors(root: Path, names: list[str]) -> dict[str, tuple[EngineError, bool]]:
    """Run the modules `names` together, all expected to fail: each one's EngineError (the build's
    error, or one of its causes when several failed) and whether anything was kept for it."""
    with pytest.raises(EngineError) as info:
        compute(root, names)
    errors = [info.value]
    if info.value.id == "modules_failed":
        errors = list(info.value.causes)
    found = {}
    for error in errors:
        # the module is the file its place starts with: figures_src/<name>.py[: function …]
        name = Path(error.where.split(":")[0]).stem
        found[name] = (error, kept(root, name) is not None or entry_path(root, name).exists())
    assert sorted(found) == sorted(names), (sorted(found), str(info.value)[:3000])
    return found


def module(root: Path, name: str, body: str) -> Path:
    path = root / "figures_src" / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(body))
    return path


def entries(cache: Path, name: str = "") -> list[Path]:
    """The store entries kept in `cache` (one per module run that succeeded)."""
    return sorted(cache.glob("*.json")) if cache.exists() else []


def kept(root: Path, name: str):
    """The kept result of `name` that a build at `root` would use now, or None."""
    computed = store.Store(root / ".cache" / "anatomia" / "computed", ".json")
    return runner.lookup(name, root.resolve(), computed)


def entry_path(root: Path, name: str) -> Path:
    return root / ".cache" / "anatomia" / "computed" / f"{runner.entry_name(name, root.resolve())}.json"


def compute_in_child(root: Path, names: list[str], env: dict | None = None, timeout: float = 120):
    """runner.compute in a separate interpreter (so a hang fails the test instead of blocking it)."""
    code = ("import sys; from pathlib import Path; from anatomia_engine import runner\n"
            "from anatomia_engine.errors import EngineError\n"
            "try:\n"
            f"    runner.compute({names!r}, root=Path({str(root)!r}))\n"
            "except EngineError as exc:\n"
            "    print(exc, file=sys.stderr); sys.exit(3)\n")
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | (env or {})
    return subprocess.run([sys.executable, "-c", code], cwd=root, env=environment,
                          capture_output=True, text=True, timeout=timeout)


def ran(root: Path, *names: str) -> list[str]:
    return compute(root, list(names))[1]


LAZY_INIT = """\
import importlib
_SOURCES = {"A": "a", "B": "b"}


def __getattr__(name):
    value = getattr(importlib.import_module(f"attn_core.{_SOURCES[name]}"), name)
    globals()[name] = value
    return value
"""


def damage_truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def damage_edit_value(path: Path) -> None:
    data = path.read_bytes()
    edited = re.sub(rb"mask_first_self", b"mask_first_selg", data, count=1)
    assert edited != data
    path.write_bytes(edited)


def damage_empty(path: Path) -> None:
    path.write_bytes(b"")
