"""The engine behind the pages: computed values and figures, the placeholder language, the plugin.

Where to look first:

- `plugin.py`: the MkDocs plugin; each build hook says what it does and in which order.
- `state.py`: what one build holds (pages, math renderer, stores), made anew by the plugin.
- `placeholders/`: the language of `{{ … }}` and `{% claim %}`, without Markdown or math.
- `markdown.py`: the Python-Markdown extension that fills a page with it.
- `runner.py`, `worker.py`: the article modules of figures_src/, each run in a fresh process.
- `errors.py`, `messages.yaml`: the one error type and the catalogue of its messages.
"""
