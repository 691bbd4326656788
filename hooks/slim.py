"""MkDocs hook: smaller page HTML with the same rendering (anatomia_engine/slim.py)."""

from __future__ import annotations

from pathlib import Path

from anatomia_engine import slim


def on_page_content(html, page, config, files):
    return slim.slim_page(html)


def on_post_page(output, page, config):
    return slim.strip_indentation(output)


def on_post_build(config):
    """The site's own scripts (extra_javascript from docs/) without comments and indentation;
    before hooks/purge_css.py (-300), which reads every script for class names."""
    docs = Path(config.docs_dir)
    for item in config.extra_javascript:
        name = str(getattr(item, "path", item))
        target = Path(config.site_dir) / name
        if (docs / name).is_file() and target.is_file():
            text = target.read_text(encoding="utf-8")
            slimmed = slim.strip_script(text)
            if slimmed != text:
                target.write_text(slimmed, encoding="utf-8")
