"""The options of the `anatomia` MkDocs plugin.

Given under `plugins:` in mkdocs.yml, typed as Material's plugins
type theirs.
"""

from mkdocs.config import base
from mkdocs.config import config_options as c


class Config(base.Config):
    """MkDocs checks these when it loads mkdocs.yml.

    A wrong type stops the build there, naming the option.
    """

    # The folder under docs/ whose jupytext percent .py files are
    # notebook pages (the lab): the plugin executes them and
    # mkdocs-jupyter renders the executed copies
    notebooks = c.Type(str, default="laby/")
