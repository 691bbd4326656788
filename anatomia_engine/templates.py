"""The theme's compiled templates, kept between builds in the project's checked store.

MkDocs makes a new Jinja environment for every build (each build of `serve` too), so every
build compiled the theme's templates again: Material's base template and its partials, about a
third of a second of each warm build on this site. Jinja keeps compiled templates through its
documented `BytecodeCache`; this one keeps them in `store.Store` (`.cache/anatomia/templates/`),
whose entries are checked by their SHA-256 and their key like every other entry the build reads.

An entry's key holds the template's name and file (Jinja's bucket key), the checksum of its
source, and the versions of Python and Jinja that compiled it: an edited template, another
Python or another Jinja is compiled anew, never read stale.
"""

from __future__ import annotations

import sys

import jinja2
from jinja2.bccache import Bucket

from anatomia_engine import store


class StoredBytecode(jinja2.BytecodeCache):
    """Jinja's bytecode cache over a `store.Store` (see the module's docstring)."""

    def __init__(self, kept: store.Store) -> None:
        self.kept = kept

    def _name(self, bucket: Bucket) -> str:
        # The compiled code is Python's own (marshal), valid for one Python and one Jinja.
        return store.key(bucket.key, bucket.checksum, sys.version, jinja2.__version__)

    def load_bytecode(self, bucket: Bucket) -> None:
        data = self.kept.get(self._name(bucket), "theme templates")
        # Nothing stored (or a damaged entry, reported by the store): Jinja compiles the source.
        if data is not None:
            bucket.bytecode_from_string(data)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.kept.put(self._name(bucket), bucket.bytecode_to_string())
