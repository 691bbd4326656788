"""MkDocs hook: the theme's templates compiled once, kept in .cache/templates/ (anatomia_engine/template_cache.py)."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files

from anatomia_engine import template_cache


@event_priority(100)   # before any plugin's on_env renders a template
def on_env(env: Environment, config: MkDocsConfig, files: Files) -> Environment:
    root = Path(config.config_file_path).resolve().parent
    template_cache.attach(env, root / ".cache" / "templates")
    return env


def on_post_build(config: MkDocsConfig) -> None:
    template_cache.prune()
