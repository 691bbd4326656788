"""The lab notebook: a jupytext percent `.py` file, executed at build time, published twice.

The plugin's notebook step, in the order it runs:

- `stored`: the copies from the store while the kernel's record holds, else executed;
- `kernel`: executing it in a Jupyter kernel held to the modules' rules (deps.py records,
  hermetic.py refuses), every failure with file:line; `stop()` ends every kernel at once;
- `launch`: the kernel started and warmed up; under serve, one kept spare between builds;
- `outputs`: what a cell may show (bounded size and line length, no NaN);
- `copies`: the page's copy (cell tags applied, figures as files with alt text) and the
  download;
- `conversion`: mkdocs-jupyter's HTML conversion of the page, kept in the checked store;
- `material`: that HTML reduced to what Material shows on every page.
"""

# The names the plugin and the tests use: the modules behind them may be rearranged freely.
from anatomia_engine.notebooks.conversion import (
    conversion_key,
    converter_versions,
    keep_conversion,
)
from anatomia_engine.notebooks.copies import figure_html

# The kernel is started and stopped by the build as a whole (a failed module stops it too).
from anatomia_engine.notebooks.kernel import KERNEL, execute, executing, is_running, stop

# Under serve: one kernel started and warmed up while the author reads (the plugin's hooks).
from anatomia_engine.notebooks.launch import end_spare, keep_spare
from anatomia_engine.notebooks.material import material_html

# The one call per notebook page, run in the pool of `executing()` beside the modules.
from anatomia_engine.notebooks.stored import Built, build

# The name mkdocs-jupyter is told to render (mkdocs.yml).
PAGE = "page.ipynb"

__all__ = [
    "KERNEL",
    "PAGE",
    "Built",
    "build",
    "conversion_key",
    "converter_versions",
    "end_spare",
    "execute",
    "executing",
    "figure_html",
    "is_running",
    "keep_conversion",
    "keep_spare",
    "material_html",
    "stop",
]
