"""MkDocs hook: smaller page HTML with the same rendering (anatomia_engine/slim.py)."""

from __future__ import annotations

from pathlib import Path

from anatomia_engine import slim


def on_page_content(html, page, config, files):
    return slim.slim_page(html)


def on_post_page(output, page, config):
    return slim.strip_indentation(output)


def on_post_build(config):
    """The site's own scripts and stylesheets (every .js and .css under docs/) without comments
    and indentation; before hooks/purge_css.py (-300), which reads every script for class names."""
    docs, site = Path(config.docs_dir), Path(config.site_dir)
    for pattern, strip in (("*.js", slim.strip_script), ("*.css", slim.strip_stylesheet)):
        for source in sorted(docs.rglob(pattern)):
            target = site / source.relative_to(docs)
            if target.is_file():
                text = target.read_text(encoding="utf-8")
                slimmed = strip(text)
                if slimmed != text:
                    target.write_text(slimmed, encoding="utf-8")
