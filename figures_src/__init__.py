"""Computations and figures for the site's pages: one module per article or topic.

Modules whose names start with an underscore are shared helpers; every other module is
run by the build (see anatomia_engine/runner.py) and may declare `@values` and `@figure` functions.
"""
