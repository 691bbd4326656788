"""MkDocs hook: smaller page HTML with the same rendering (anatomia_engine/slim.py)."""

from __future__ import annotations

from anatomia_engine import slim


def on_page_content(html, page, config, files):
    return slim.slim_page(html)


def on_post_page(output, page, config):
    return slim.strip_indentation(output)
