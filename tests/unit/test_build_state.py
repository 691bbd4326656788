"""The build's state is explicit: one object per build, handed to the Markdown extension and the
math renderer; the plugins' order the engine depends on is checked when the build starts."""

from __future__ import annotations

import types
from pathlib import Path

import markdown as pymd
import pytest
from mkdocs.config import load_config

from anatomia_engine import markdown as amd
from anatomia_engine.errors import EngineError
from anatomia_engine.plugin import ORDER, AnatomiaPlugin, check_order
from anatomia_engine.state import BuildState

ROOT = Path(__file__).resolve().parents[2]
HEAD = "---\ncomputed: [demo]\n---\n"
RESULTS = {"demo": types.SimpleNamespace(values={"p": 0.25}, meta={}, figures={})}


def _convert(state: BuildState, text: str) -> str:
    return pymd.Markdown(extensions=[state.extension()]).convert(text)


def test_a_page_is_filled_by_the_extension_of_its_own_build():
    state = BuildState()
    body = "p = {{ p }}\n"
    text = amd.render_page(body, amd.Page("x.md", HEAD + body), RESULTS, state.pages)
    assert "0,25" in _convert(state, text)


def test_a_page_of_another_build_is_not_filled_by_this_one():
    """Nothing reaches a build through a module's globals: a token registered in one state is
    unknown to the next build's extension, and stops the conversion."""
    earlier = BuildState()
    body = "p = {{ p }}\n"
    text = amd.render_page(body, amd.Page("x.md", HEAD + body), RESULTS, earlier.pages)
    with pytest.raises(EngineError) as info:
        _convert(BuildState(), text)
    assert info.value.id == "needs_page"


def test_the_extension_by_name_refuses_placeholders():
    """Without the plugin (by name, no pages registered), a placeholder stops the conversion."""
    assert pymd.markdown("tekst", extensions=["anatomia_engine.markdown"]) == "<p>tekst</p>"
    with pytest.raises(EngineError) as info:
        pymd.markdown("a {{ x }} b", extensions=["anatomia_engine.markdown"])
    assert info.value.id == "needs_page"


def test_the_sites_plugins_run_in_the_order_the_engine_needs():
    config = load_config(str(ROOT / "mkdocs.yml"))
    check_order(config.plugins)
    # every pair of ORDER is checked on the site: both of its plugins are listed
    for _, first, then in ORDER:
        assert first.split(":")[0] in config.plugins and then.split(":")[0] in config.plugins


class _Plugin:
    def on_files(self, files, *, config):
        return files


def test_a_plugin_running_before_the_notebook_pages_are_made_stops_the_build():
    """mkdocs-jupyter's on_files before anatomia's: it would not see the executed notebook."""
    anatomia = _Plugin()
    jupyter = _Plugin()
    events = {event: [] for event, _, _ in ORDER}
    events["files"] = [jupyter.on_files, anatomia.on_files]
    plugins = types.SimpleNamespace(events=events)
    plugins.items = {"anatomia": anatomia, "mkdocs-jupyter": jupyter}.items
    with pytest.raises(EngineError) as info:
        check_order(plugins)
    assert info.value.id == "plugin_order"
    assert info.value.fields == {"event": "on_files", "first": "anatomia", "then": "mkdocs-jupyter"}


def test_a_combined_event_is_checked_handler_by_handler():
    """anatomia's on_pre_page is two handlers around mkdocs-jupyter's: each is checked."""
    config = load_config(str(ROOT / "mkdocs.yml"))
    handlers = config.plugins.events["pre_page"]
    # mkdocs-jupyter's handler moved to the end, as a priority below -50 would put it
    jupyter = [h for h in handlers if h.__self__ is config.plugins["mkdocs-jupyter"]]
    config.plugins.events["pre_page"] = [h for h in handlers if h not in jupyter] + jupyter
    with pytest.raises(EngineError) as info:
        check_order(config.plugins)
    assert info.value.fields == {"event": "on_pre_page", "first": "mkdocs-jupyter",
                                 "then": "anatomia:_keep_conversion"}


def test_the_plugins_extension_listed_by_name_in_mkdocs_yml_stops_the_build():
    config = load_config(str(ROOT / "mkdocs.yml"))
    config.markdown_extensions.append("anatomia_engine.markdown")
    with pytest.raises(EngineError) as info:
        AnatomiaPlugin().on_config(config)
    assert (info.value.id, info.value.fields) == ("extension_by_name", {"name": "anatomia_engine.markdown"})


def test_each_build_registers_its_own_extension():
    plugin = AnatomiaPlugin()
    first = plugin.on_config(load_config(str(ROOT / "mkdocs.yml")))
    second = plugin.on_config(load_config(str(ROOT / "mkdocs.yml")))
    [one] = [e for e in first.markdown_extensions if isinstance(e, amd.PlaceholderExtension)]
    [two] = [e for e in second.markdown_extensions if isinstance(e, amd.PlaceholderExtension)]
    assert one.pages is not two.pages


def test_the_extension_typesets_math_before_the_output_check_reads_the_page():
    """The processors plugin.on_config names, in the order they run."""
    md = pymd.Markdown(extensions=["pymdownx.arithmatex", BuildState().extension()])
    assert "anatomia_placeholders" in md.preprocessors
    assert "anatomia_figures" in md.parser.blockprocessors
    assert "anatomia_placeholders" in md.treeprocessors
    post = md.postprocessors
    assert post.get_index_for_name("anatomia_mathml") < post.get_index_for_name("anatomia_output_check")
