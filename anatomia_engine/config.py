"""The options of the `anatomia` MkDocs plugin (mkdocs.yml, `plugins:`), typed as Material's are."""

from mkdocs.config import base
from mkdocs.config import config_options as c


class Config(base.Config):
    """MkDocs validates these when it loads mkdocs.yml; a wrong type stops the build there."""

    # The folder under docs/ whose jupytext percent .py files are notebook pages (the lab):
    # the plugin executes them and mkdocs-jupyter renders the executed copies
    notebooks = c.Type(str, default="laby/")
