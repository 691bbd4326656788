"""What a build worked out from its inputs, kept for the next build: one checksummed file per key.

A `Store` is a folder, e.g. `.cache/pages/`, of entries named by the SHA-256 of everything the
stored result was computed from (the caller's `key(...)`: the input text and the code that
reads it). Each file starts with the SHA-256 of the rest; an entry that does not match it
(truncated, edited by hand) is reported and computed again, never used. Entries are written to
a temporary file and renamed into place, so a killed build leaves no half-written entry.

Used for the placeholder rendering of each page (hooks/computed.py), the links and ids of each
built page (links.py) and the search sections of each page (search_pl.py): on a warm build or a
rebuild under `mkdocs serve`, the pages whose inputs did not change are not worked out again.
`prune()` at the end of a build drops the entries that build did not use, so the folder holds
about one entry per page.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from pathlib import Path

# Not under "mkdocs.": a damaged entry is recomputed, which is no reason for `--strict` to fail.
log = logging.getLogger("anatomia_engine.store")


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

    def _path(self, name: str) -> Path:
        return self.folder / f"{name}{self.suffix}"

    def get(self, name: str, where: str = "") -> bytes | None:
        """The stored bytes for `name`, or None if there are none or they are damaged."""
        path = self._path(name)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        head, _, body = data.partition(b"\n")
        if head != hashlib.sha256(body).hexdigest().encode("ascii"):
            log.warning("%s%s is damaged (its checksum does not match); working it out again",
                        f"{where}: " if where else "", path)
            return None
        self.used.add(name)
        return body

    def put(self, name: str, body: bytes) -> None:
        """Store `body` under `name` (atomically); a store that cannot be written is skipped."""
        path = self._path(name)
        self.used.add(name)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(hashlib.sha256(body).hexdigest().encode("ascii") + b"\n" + body)
            os.replace(tmp, path)
        except OSError as exc:
            log.debug("could not store %s: %s", path, exc)

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
