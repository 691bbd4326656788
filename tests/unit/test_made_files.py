"""made_files.MadeFiles: under serve a made file is copied into the site only when it changed."""

from pathlib import Path

import pytest
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import Files

from anatomia_engine.made_files import MadeFiles


class _Maker(BasePlugin):
    """Makes one file in on_files, as the anatomia plugin makes its figures."""

    def __init__(self, made: MadeFiles):
        super().__init__()
        self.made = made
        self.wanted: tuple[str, str | bytes] = ("", "")

    def on_files(self, files, *, config):
        src_uri, content = self.wanted
        files.append(self.made.file(config, src_uri, content))
        return files


def made(config, maker: _Maker, src_uri: str, content: str | bytes):
    """The file `maker` makes in one build's on_files."""
    maker.wanted = (src_uri, content)
    return config.plugins.on_files(Files([]), config=config).get_file_from_path(src_uri)


@pytest.fixture
def config(tmp_path: Path) -> MkDocsConfig:
    (tmp_path / "docs").mkdir()
    config = MkDocsConfig(config_file_path=str(tmp_path / "mkdocs.yml"))
    config.load_dict({"site_name": "x", "docs_dir": str(tmp_path / "docs"),
                      "site_dir": str(tmp_path / "site")})
    errors, _ = config.validate()
    assert not errors
    return config


@pytest.fixture
def maker(config):
    """The plugin that makes the files, registered in `config`; its folder removed at the end."""
    makers = []

    def make(kept: bool) -> _Maker:
        plugin = _Maker(MadeFiles(kept=kept))
        config.plugins["maker"] = plugin
        makers.append(plugin)
        return plugin

    yield make
    for plugin in makers:
        plugin.made.close()


def test_outside_serve_a_made_file_is_held_in_memory(config, maker):
    file = made(config, maker(kept=False), "figures/m/a.svg", "<svg/>")
    assert file.abs_src_path is None
    assert file.content_string == "<svg/>"


def test_under_serve_an_unchanged_file_is_not_copied_again(config, maker):
    serving = maker(kept=True)
    first = made(config, serving, "figures/m/a.svg", "<svg>1</svg>")
    first.copy_file(dirty=True)
    copied = Path(first.abs_dest_path)
    assert copied.read_text(encoding="utf-8") == "<svg>1</svg>"
    # the next build makes the same file: its source keeps its age, so MkDocs skips it
    again = made(config, serving, "figures/m/a.svg", "<svg>1</svg>")
    assert not again.is_modified()
    # changed content is written anew and copied by the next --dirty build
    changed = made(config, serving, "figures/m/a.svg", "<svg>2</svg>")
    assert changed.is_modified()
    changed.copy_file(dirty=True)
    assert copied.read_text(encoding="utf-8") == "<svg>2</svg>"


def test_under_serve_bytes_are_kept_as_bytes(config, maker):
    file = made(config, maker(kept=True), "laby/x/figure.png", b"\x89PNG\x00")
    assert Path(file.abs_src_path).read_bytes() == b"\x89PNG\x00"
    assert file.content_bytes == b"\x89PNG\x00"
