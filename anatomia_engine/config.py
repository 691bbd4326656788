"""The options of the `anatomia` MkDocs plugin (mkdocs.yml, `plugins:`), typed as Material's are."""

from mkdocs.config import base
from mkdocs.config import config_options as c


class Config(base.Config):
    notebooks = c.Type(str, default="laby/")   # under docs/: jupytext percent .py files are notebook pages
