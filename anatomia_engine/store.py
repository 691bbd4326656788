"""What a build worked out, kept for the next build: `.cache/anatomia/<kind>/`, one checked file per key.

An entry is named by the SHA-256 of what it was computed from (`key`); its first line holds the SHA-256
of its key and body, then the key it was stored under. One that does not match its checksum, holds another
key's entry (swapped or copied by hand) or cannot be read is reported with its path and worked out again.
Writes are atomic; a cache that cannot be written is said once per kind and skipped.

`Store.prune` drops what the last build did not use, and a temporary file only once it is an hour
old: a younger one may belong to a build running now beside this one (serve and `make docs`).
"""

import ast
import contextlib
import functools
import hashlib
import logging
import os
import re
import shutil
import time
from pathlib import Path

from anatomia_engine import messages as M
from anatomia_engine.errors import EngineError

# Not under "mkdocs.": a damaged entry is worked out again, which is no reason for `--strict` to fail.
log = logging.getLogger("anatomia_engine.store")
# the folders of this format: prune_others keeps them
KINDS = ("computed", "figures", "notebooks", "pages", "search", "templates")
# How old a temporary file must be before prune removes it (seconds): a younger one may be
# another build's, written now.
STALE_TMP = 3600


def folder(root: Path, kind: str) -> Path:
    """`.cache/anatomia/<kind>` in the project at `root`; a kind not in KINDS would be pruned: refused."""
    if kind not in KINDS:
        raise EngineError("cache_kind", kind=kind)
    return Path(root, ".cache", "anatomia", kind)


def prune_others(root: Path) -> None:
    """Remove what earlier formats left in `.cache/anatomia/`: other folders, and folders in these."""
    for kind in Path(root, ".cache", "anatomia").glob("*/"):
        if kind.name not in KINDS:
            shutil.rmtree(kind, ignore_errors=True)
            continue
        # a kind of this format holds files only: a folder in it is an earlier format's
        for path in kind.glob("*/"):
            shutil.rmtree(path, ignore_errors=True)


def key(*parts: str | bytes) -> str:
    """SHA-256 (hex) of `parts`, each one delimited, so ("ab", "c") and ("a", "bc") differ."""
    digest = hashlib.sha256()
    for part in parts:
        data = part
        if isinstance(part, str):
            data = part.encode("utf-8")
        # the length first: where one part ends is part of the key
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


@functools.lru_cache(maxsize=32)
def _code_digest(path: str, source: bytes) -> str:
    tree = ast.parse(source, filename=path)
    for node in ast.walk(tree):
        # docstrings say why, they compute nothing
        if _has_docstring(node):
            node.body[0] = ast.Pass()
    return key(ast.dump(tree, annotate_fields=False))


def _has_docstring(node: ast.AST) -> bool:
    if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if not node.body or not isinstance(node.body[0], ast.Expr):
        return False
    first = node.body[0].value
    return isinstance(first, ast.Constant) and isinstance(first.value, str)


def code_key(*modules) -> str:
    """What the code of `modules` computes, for a key: their syntax trees without comments, docstrings
    or layout, so that a comment or a reflowed line keeps every entry they made."""
    return key(*(_code_digest(m.__file__, Path(m.__file__).read_bytes()) for m in modules))


def _checksum(name: bytes, body: bytes) -> bytes:
    """SHA-256 (hex) of an entry's key and body: neither can change without the other noticing."""
    return hashlib.sha256(name + b"\n" + body).hexdigest().encode("ascii")


_OLD_FORMAT = re.compile(rb"[0-9a-f]{64}")   # the first line of an entry written before keys were kept


class Store:
    """The entries of one kind: `get` and `put` by key, `prune` what no build used since."""

    def __init__(self, folder: Path, suffix: str = ".bin") -> None:
        self.folder = Path(folder)
        self.suffix = suffix
        # the keys got or put since the last prune: what prune keeps
        self.used: set[str] = set()
        # a store that could not be written says so once, then builds without it
        self.unwritable = False

    def path(self, name: str) -> Path:
        return self.folder / f"{name}{self.suffix}"

    def get(self, name: str, where: str = "") -> bytes | None:
        """The stored bytes for `name`, or None if there are none or they are damaged."""
        if where:
            where = f"{where}: "
        try:
            head, _, body = self.path(name).read_bytes().partition(b"\n")
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning(M.text("store_unreadable", where=where, path=self.path(name), problem=exc.strerror))
            return None
        # an entry of the format without its key: worked out again
        if _OLD_FORMAT.fullmatch(head):
            return None
        checksum, _, stored = head.partition(b" ")
        if checksum != _checksum(stored, body):
            log.warning(M.text("store_damaged", where=where, path=self.path(name)))
            return None
        # swapped or copied by hand: a whole entry, checksum and all, of another key
        if stored != name.encode("ascii", "replace"):
            log.warning(M.text("store_wrong_key", where=where, path=self.path(name),
                               found=stored.decode("ascii", "replace")))
            return None
        self.used.add(name)
        return body

    def put(self, name: str, body: bytes) -> None:
        """Store `body` under `name` (atomically); a store that cannot be written is skipped."""
        self.used.add(name)
        # written beside the entry, then renamed: a reader never sees half an entry
        tmp = self.folder / f".{name}{self.suffix}.{os.getpid()}.tmp"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            stored = name.encode("ascii")
            tmp.write_bytes(_checksum(stored, body) + b" " + stored + b"\n" + body)
            os.replace(tmp, self.path(name))
        except OSError as exc:
            if not self.unwritable:
                log.warning(M.text("store_unwritable", folder=self.folder, problem=exc.strerror))
            self.unwritable = True
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)

    def prune(self) -> None:
        """Drop the entries unused since the last prune (if any was used) and the temporaries of killed
        builds: those older than an hour (STALE_TMP), since a younger one may be a running build's."""
        # a build that used nothing (it failed early) says nothing about what is still needed
        if self.used:
            self._drop_unused()
        self.used.clear()

    def keep_only(self, keys: set[str]) -> None:
        """Drop every entry but those of `keys` (what another store's entries name, none at all
        if it is empty) and the temporaries of killed builds, as `prune` does."""
        self.used = set(keys)
        self._drop_unused()
        self.used.clear()

    def _drop_unused(self) -> None:
        if not self.folder.is_dir():
            return
        for path in self.folder.iterdir():
            # another build may remove it first
            with contextlib.suppress(OSError):
                if self._stale(path):
                    path.unlink(missing_ok=True)

    def _stale(self, path: Path) -> bool:
        if path.name.endswith(".tmp"):
            return time.time() - path.stat().st_mtime > STALE_TMP
        return path.suffix == self.suffix and path.stem not in self.used
