"""Module results: what one figures_src module run produced, and how it is kept between builds.

A result is the record of the inputs its run read (deps.py), its result.json (codec.py) and its
figure files (SVG per style, CSV). Between builds it is one entry of the checked store
(store.py, `.cache/anatomia/computed/`), named after the module and its source, so going back
to an earlier version of a module finds that version's result. An entry is used only while its
record still describes the project. The figure files are written into a folder of this process
(`ModuleResult.folder`), from which the build publishes them.
"""

from __future__ import annotations

import atexit
import functools
import json
import logging
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from anatomia_engine import codec, deps, store
from anatomia_engine.child import DEPS, RESULT

FORMAT = 1   # of a store entry: {"format", "deps", "result", "files"}
log = logging.getLogger("anatomia_engine.runner")


class ComputeError(Exception):
    """A figures_src module failed; the message names the module and function."""


@dataclass(frozen=True, eq=False)
class ModuleResult:
    """What one module produced: `files` in `folder` (published under figures/<module>/), the
    `digest` of its content (result.json and every figure file), the `record` of what its run
    read (deps.py) and result.json's `text`, decoded on first use (a build whose pages all come
    from the page store decodes nothing)."""

    folder: Path
    files: list[str]
    digest: str
    record: dict
    root: Path
    text: str
    where: str        # the store entry, for messages

    @functools.cached_property
    def inputs(self) -> list[Path]:
        """Absolute paths of every file and folder the run read."""
        return deps.inputs(self.record, self.root)

    @functools.cached_property
    def output(self) -> codec.ModuleOutput:
        try:
            return codec.decode(self.text)
        except codec.CodecError as exc:
            raise ComputeError(f"{self.where}: {RESULT}: {exc}") from None

    @functools.cached_property
    def values(self) -> dict:
        """name -> decoded value (number, str, np.ndarray, list/dict, kit.Table)."""
        return {n: r.value for n, r in self.output.values.items()}

    @functools.cached_property
    def meta(self) -> dict:
        """name -> {"function", "what", "cite", "axes"}."""
        return {n: r.meta() for n, r in self.output.values.items()}

    @functools.cached_property
    def figures(self) -> dict:
        """name -> {"files": {style or "csv": filename}, "alt", "caption", "table": encoded table}."""
        return {n: {"files": dict(f.files), "alt": f.alt, "caption": f.caption,
                    "table": codec.encode_value(f.table, f"figure {n!r}")}
                for n, f in self.output.figures.items()}


def decode_values(raw: dict) -> dict:
    """Decoded values of a {name: encoded value} mapping (codec.decode_value on each)."""
    return {name: codec.decode_value(item) for name, item in raw.items()}


def entry_name(name: str, root: Path) -> str:
    try:
        source = (root / "figures_src" / f"{name}.py").read_bytes()
    except OSError:
        source = b""
    return store.key("figures_src module", name, source)


@functools.cache
def scratch() -> Path:
    """This process's folder for runs and result files (removed when it ends)."""
    folder = Path(tempfile.mkdtemp(prefix="anatomia-results-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


_known: dict[tuple[str, str], ModuleResult] = {}   # (entry, digest) -> result: a rebuild reuses it


def _result(body: dict, root: Path, where: str, folder: Path | None) -> ModuleResult:
    files = body["files"]
    digest = store.key(body["result"], *(f"{f}\0{files[f]}" for f in sorted(files)))
    known = _known.get((where, digest))
    if known is not None and known.folder.is_dir():
        return known
    if folder is None:
        folder = scratch() / digest[:24]
        folder.mkdir(exist_ok=True)
        for filename, text in files.items():
            (folder / filename).write_text(text, encoding="utf-8")
    result = ModuleResult(folder, sorted(files), digest, body["deps"], root, body["result"], where)
    _known[where, digest] = result
    return result


def lookup(name: str, root: Path, kept: store.Store, environ: Mapping[str, str],
           hashes: dict) -> ModuleResult | None:
    """The kept result of module `name` if its record of inputs still holds, else None."""
    key = entry_name(name, root)
    where = f"figures_src/{name}.py"
    data = kept.get(key, where)
    if data is None:
        return None
    path = kept.folder / f"{key}{kept.suffix}"
    try:
        body = json.loads(data)
        if body.get("format") != FORMAT or not isinstance(body["files"], dict):
            raise ValueError(f"format {body.get('format')!r}")
        changed = deps.problem(body["deps"], root, environ, hashes)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("%s: %s cannot be read (%s); running the module again", where, path, exc)
        return None
    if changed is not None:
        log.info("%s: runs again: %s", where, changed)
        return None
    return _result(body, root, str(path), None)


def save(name: str, root: Path, kept: store.Store, work: Path, figure_files: list[str]) -> ModuleResult:
    """Keep the result a run wrote into `work` (its folder from now on) in the store."""
    key = entry_name(name, root)
    body = {"format": FORMAT, "deps": json.loads((work / DEPS).read_text(encoding="utf-8")),
            "result": (work / RESULT).read_text(encoding="utf-8"),
            "files": {f: (work / f).read_text(encoding="utf-8") for f in sorted(figure_files)}}
    kept.put(key, json.dumps(body, sort_keys=True).encode("utf-8"))
    return _result(body, root, str(kept.folder / f"{key}{kept.suffix}"), work)
