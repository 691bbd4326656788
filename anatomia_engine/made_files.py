"""The files the plugin makes (figures, a notebook's download and images), as MkDocs files.

A file MkDocs holds in memory (`File.generated(content=…)`) counts as modified in every build: a
`--dirty` build of `mkdocs serve` writes all of them again (some 170 files, 3 MB, on every save).
Under serve they are kept instead in a folder that lives as long as the server, each written only
when its content changed, and handed to MkDocs by path (`File.generated(abs_src_path=…)`, the
documented form of a made file backed by a temporary file): MkDocs then copies only the files whose
source is newer than their copy in the site. A build that is not `--dirty` copies every file,
whichever way it is held.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from mkdocs.structure.files import File


class MadeFiles:
    """The files one plugin instance makes; `kept` (under serve): in a folder kept between builds."""

    def __init__(self, kept: bool) -> None:
        self.kept = kept
        # made on the first file: a build that makes none leaves no folder behind
        self._folder: tempfile.TemporaryDirectory | None = None
        # src_uri -> the content its file in the folder holds (compared in memory, not read back)
        self._written: dict[str, str | bytes] = {}

    def file(self, config, src_uri: str, content: str | bytes) -> File:
        """The MkDocs file `src_uri` with `content`."""
        # a single build copies every file anyway: held in memory, nothing is written twice
        if not self.kept:
            return File.generated(config, src_uri, content=content)
        if self._folder is None:
            self._folder = tempfile.TemporaryDirectory(prefix="anatomia-made-")
        path = Path(self._folder.name, src_uri)
        # an unchanged file keeps its age: MkDocs leaves its copy in the site as it is
        changed = self._written.get(src_uri) != content
        if changed or not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            # bytes as MkDocs writes a made file's content: text in UTF-8, bytes as they are
            if isinstance(content, str):
                path.write_text(content, encoding="utf-8")
            else:
                path.write_bytes(content)
            self._written[src_uri] = content
        source = str(path)
        return File.generated(config, src_uri, abs_src_path=source)

    def close(self) -> None:
        """Remove the folder (the server stops; MkDocs' on_shutdown)."""
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None
            self._written = {}
