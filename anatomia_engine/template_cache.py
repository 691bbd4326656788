"""The theme's Jinja templates compiled once and kept between builds (`.cache/templates/`).

MkDocs makes a new Jinja environment for every build, so every build (and every rebuild under
`mkdocs serve`) parses and compiles the ~50 templates of Material and of our theme again: about
0.2 s of a warm build here. Jinja has a hook for exactly this, the bytecode cache
(https://jinja.palletsprojects.com/en/stable/api/#bytecode-cache); `TemplateCache` is one whose
entries live in a `store.Store`, like the project's other build caches:

- an entry is found by the template's name and file, Jinja's and Python's versions and the
  environment's syntax settings; inside it, Jinja keeps the SHA-1 of the template's source and
  compiles again when the source changed (an edited template is never served from the cache);
- the Store checks each entry's SHA-256 when it reads it: a truncated or edited entry is
  reported and the template compiled again; entries are written atomically;
- `prune()` (after the build) drops the entries the build did not use.

A cache only saves time: a build with it publishes the same bytes as one without
(tests/test_template_cache.py). Zensical runs no MkDocs hooks and renders its own templates.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket

from anatomia_engine import store

# Settings of an environment that change what a template compiles to.
_SYNTAX = ("block_start_string", "block_end_string", "variable_start_string",
           "variable_end_string", "comment_start_string", "comment_end_string",
           "line_statement_prefix", "line_comment_prefix", "trim_blocks", "lstrip_blocks",
           "newline_sequence", "keep_trailing_newline", "optimized", "is_async")

_attached: list[TemplateCache] = []


class TemplateCache(jinja2.BytecodeCache):
    """Jinja's bytecode cache, kept in a checked `store.Store` of the folder `folder`."""

    def __init__(self, folder: Path, environment: jinja2.Environment) -> None:
        self.entries = store.Store(folder, ".jinja")
        settings = [repr(getattr(environment, name, None)) for name in _SYNTAX]
        self.salt = store.key(jinja2.__version__, sys.version, *settings,
                              *sorted(environment.extensions))

    def _name(self, bucket: Bucket) -> str:
        return store.key(self.salt, bucket.key)

    def load_bytecode(self, bucket: Bucket) -> None:
        data = self.entries.get(self._name(bucket), "compiled template")
        if data is not None:
            bucket.bytecode_from_string(data)   # Jinja resets it if the source changed

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.entries.put(self._name(bucket), bucket.bytecode_to_string())


def attach(environment: jinja2.Environment, folder: Path) -> TemplateCache:
    """Give `environment` a TemplateCache in `folder`; `prune()` tidies it after the build."""
    cache = TemplateCache(folder, environment)
    environment.bytecode_cache = cache
    _attached.append(cache)
    return cache


def prune() -> None:
    """Drop the entries that no template of this build used (see `store.Store.prune`). Only the
    newest cache counts: one left by a build that failed before its end has seen only part of
    the templates."""
    if _attached:
        _attached[-1].entries.prune()
    _attached.clear()
