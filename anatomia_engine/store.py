"""What a build worked out, kept for the next build: `.cache/anatomia/<kind>/`, one checked file per key.

An entry is named by the SHA-256 of what it was computed from (`key`); its first line holds the SHA-256
of its key and body, then the key it was stored under. One that does not match its checksum, holds another
key's entry (swapped or copied by hand) or cannot be read is reported with its path and worked out again.
Writes are atomic; a cache that cannot be written is said once per kind and skipped.
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

# Not under "mkdocs.": a damaged entry is worked out again, which is no reason for `--strict` to fail.
log = logging.getLogger("anatomia_engine.store")
KINDS = ("computed", "notebooks", "pages", "search")   # the folders of this format: prune_others keeps them


def folder(root: Path, kind: str) -> Path:
    """`.cache/anatomia/<kind>` in the project at `root`; a kind not in KINDS would be pruned: refused."""
    if kind not in KINDS:
        raise ValueError(f"unknown cache kind {kind!r}: add it to store.KINDS")
    return Path(root, ".cache", "anatomia", kind)


def prune_others(root: Path) -> None:
    """Remove what earlier formats left in `.cache/anatomia/`: other folders, and folders in these."""
    for kind in Path(root, ".cache", "anatomia").glob("*/"):
        for path in kind.glob("*/") if kind.name in KINDS else [kind]:
            shutil.rmtree(path, ignore_errors=True)


def key(*parts: str | bytes) -> str:
    """SHA-256 (hex) of `parts`, each one delimited, so ("ab", "c") and ("a", "bc") differ."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


@functools.lru_cache(maxsize=32)
def _code_digest(path: str, source: bytes) -> str:
    tree = ast.parse(source, filename=path)
    for node in ast.walk(tree):   # docstrings say why, they compute nothing
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            body[0] = ast.Pass()
    return key(ast.dump(tree, annotate_fields=False))


def code_key(*modules) -> str:
    """What the code of `modules` computes, for a key: their syntax trees without comments, docstrings
    or layout, so that a comment or a reflowed line keeps every entry they made."""
    return key(*(_code_digest(m.__file__, Path(m.__file__).read_bytes()) for m in modules))


def _checksum(name: bytes, body: bytes) -> bytes:
    """SHA-256 (hex) of an entry's key and body: neither can change without the other noticing."""
    return hashlib.sha256(name + b"\n" + body).hexdigest().encode("ascii")


_OLD_FORMAT = re.compile(rb"[0-9a-f]{64}")   # the first line of an entry written before keys were kept


class Store:
    def __init__(self, folder: Path, suffix: str = ".bin") -> None:
        self.folder = Path(folder)
        self.suffix = suffix
        self.used: set[str] = set()
        self.unwritable = False

    def path(self, name: str) -> Path:
        return self.folder / f"{name}{self.suffix}"

    def get(self, name: str, where: str = "") -> bytes | None:
        """The stored bytes for `name`, or None if there are none or they are damaged."""
        where = f"{where}: " if where else ""
        try:
            head, _, body = self.path(name).read_bytes().partition(b"\n")
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning(M.text("store_unreadable", where=where, path=self.path(name), problem=exc.strerror))
            return None
        if _OLD_FORMAT.fullmatch(head):   # an entry of the format without its key: worked out again
            return None
        checksum, _, stored = head.partition(b" ")
        if checksum != _checksum(stored, body):
            log.warning(M.text("store_damaged", where=where, path=self.path(name)))
            return None
        if stored != name.encode("ascii", "replace"):
            log.warning(M.text("store_wrong_key", where=where, path=self.path(name),
                               found=stored.decode("ascii", "replace")))
            return None
        self.used.add(name)
        return body

    def put(self, name: str, body: bytes) -> None:
        """Store `body` under `name` (atomically); a store that cannot be written is skipped."""
        self.used.add(name)
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
        """Drop the entries unused since the last prune (if any was used) and a killed build's temporaries."""
        if self.used and self.folder.is_dir():
            for path in self.folder.iterdir():
                with contextlib.suppress(OSError):   # another build may remove it first
                    old_tmp = path.name.endswith(".tmp") and time.time() - path.stat().st_mtime > 3600
                    if old_tmp or (path.suffix == self.suffix and path.stem not in self.used):
                        path.unlink(missing_ok=True)
        self.used.clear()
