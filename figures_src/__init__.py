"""Computations and figures for the site's pages: one module per article or topic.

The build runs every file directly in this folder whose name does not start with '_' (see
anatomia_engine/runner.py); such a module may declare `@values` and `@figure` functions. Helpers
several modules share live in the `_shared` package, which the build never runs on its own.
"""
