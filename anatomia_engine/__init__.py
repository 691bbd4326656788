"""The engine behind the pages: computed values and figures, the placeholder language, the runner.

kit          what a figures_src module declares (`@values`, `@figure`, `Plot`, `Table`)
numfmt       the one number formatter (Polish decimal comma, half-up rounding for display)
plot         the shared plotting styles (light/dark) and heatmap
placeholders `{{ expr | filter }}`, `{{ figure("name") }}` and `{% claim %}` in Markdown
runner       runs the figures_src modules whose inputs changed (worker, child, deps, results)
plugin       the MkDocs plugin `anatomia`: the build pipeline, step by step
store        what a build keeps for the next, checked on every read
"""
