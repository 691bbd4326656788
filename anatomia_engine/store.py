"""What a build worked out, kept for the next build: `.cache/anatomia/<kind>/`, one checked file per key.

Every kind of result kept between builds (filled-in pages, typeset formulas, parsed links, search
sections and lemmas, the executed notebook) is a `Store`: a folder of entries named by the
SHA-256 of what the result was computed from (`key(...)`: the input and the code that reads it).
Each file starts with the SHA-256 of the rest; an entry that does not match it (truncated, edited
by hand) or cannot be read is reported with its path and worked out again, never used and never
fatal. Entries are written to a temporary file and renamed into place, so a killed build leaves
no half-written entry. A cache that cannot be written (read-only, full disk) is said once per
kind, and the build goes on without it. `prune()` at the end of a build drops what it did not use.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from pathlib import Path

# Not under "mkdocs.": a damaged entry is worked out again, which is no reason for `--strict` to fail.
log = logging.getLogger("anatomia_engine.store")
CACHE = Path(".cache") / "anatomia"


def folder(root: Path, kind: str) -> Path:
    """The folder of one kind of result in the project at `root`."""
    return Path(root) / CACHE / kind


def key(*parts: str | bytes) -> str:
    """SHA-256 (hex) of `parts`, each one delimited, so ("ab", "c") and ("a", "bc") differ."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def source_of(module) -> bytes:
    """The bytes of a module's source file: part of the key of whatever that module computes."""
    return Path(module.__file__).read_bytes()


class Store:
    def __init__(self, folder: Path, suffix: str = ".bin") -> None:
        self.folder = Path(folder)
        self.suffix = suffix
        self.used: set[str] = set()
        self.unwritable = False

    def _path(self, name: str) -> Path:
        return self.folder / f"{name}{self.suffix}"

    def get(self, name: str, where: str = "") -> bytes | None:
        """The stored bytes for `name`, or None if there are none or they are damaged."""
        path = self._path(name)
        prefix = f"{where}: " if where else ""
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("%s%s cannot be read (%s); working it out again", prefix, path, exc.strerror)
            return None
        head, _, body = data.partition(b"\n")
        if head != hashlib.sha256(body).hexdigest().encode("ascii"):
            log.warning("%s%s is damaged (its checksum does not match); working it out again", prefix, path)
            return None
        self.used.add(name)
        return body

    def put(self, name: str, body: bytes) -> None:
        """Store `body` under `name` (atomically); a store that cannot be written is skipped."""
        path = self._path(name)
        self.used.add(name)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(hashlib.sha256(body).hexdigest().encode("ascii") + b"\n" + body)
            os.replace(tmp, path)
        except OSError as exc:
            if not self.unwritable:
                log.warning("cannot write the cache %s (%s); building without it", self.folder, exc.strerror)
            self.unwritable = True
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass

    def prune(self) -> None:
        """Drop the entries not used since the last prune (nothing if none was used), and
        temporary files older than an hour (left by a build that was killed while writing)."""
        if self.used and self.folder.is_dir():
            for path in self.folder.iterdir():
                try:
                    if path.name.endswith(".tmp"):
                        if time.time() - path.stat().st_mtime > 3600:
                            path.unlink(missing_ok=True)
                    elif path.suffix == self.suffix and path.stem not in self.used:
                        path.unlink(missing_ok=True)
                except OSError:
                    pass
        self.used.clear()
