"""MkDocs hook: the build's CPU breakdown (anatomia_engine/cpu.py), written only when asked.

on_config:     start a new record (one per build; `mkdocs serve` rebuilds in one process).
on_nav:        mark the end of file collection (figures_src modules run in on_files).
on_env:        mark the end of the pages' Markdown (KaTeX included), the start of the templates.
on_post_build: last of all (after the stylesheet purge), when ANATOMIA_CPU_REPORT names a file,
               write the record there: measured parts, wall-clock marks, the CPU of this
               process and of the KaTeX node process. `make bench-docs` reads it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from mkdocs.plugins import event_priority

from anatomia_engine import cpu, katex


@event_priority(1000)
def on_config(config):
    cpu.reset()
    cpu.mark("config")
    return config


def on_nav(nav, config, files):
    cpu.mark("files collected")
    return nav


def on_env(env, config, files):
    cpu.mark("pages converted")
    return env


@event_priority(-1000)   # after every other post-build step (hooks/purge_css.py is at -300)
def on_post_build(config):
    target = os.environ.get(cpu.REPORT_ENV)
    if not target:
        return
    cpu.mark("built")
    node = katex.renderer().proc
    node_cpu = cpu.process_cpu(node.pid) if node is not None else None
    record = {"parts": cpu.parts, "marks": cpu.marks, "self": cpu.own_cpu(),
              "node": node_cpu}
    Path(target).write_text(json.dumps(record, indent=1, sort_keys=True), encoding="utf-8")
