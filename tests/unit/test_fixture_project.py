"""The fixture project of the site tier (tests/site/fixture) runs the engine the real site runs:
every plugin and Markdown extension of this project that its mkdocs.yml names is one the
real mkdocs.yml names too, so an engine change that renames or replaces one fails here first."""

from __future__ import annotations

import tomllib

from mkdocs.utils.yaml import yaml_load

from helpers import FIXTURE, REPO


def own_entries(path) -> set[str]:
    """The plugins and Markdown extensions of a config that this project provides."""
    config = yaml_load(path.read_text(encoding="utf-8"))
    names = set()
    for key in ("plugins", "markdown_extensions"):
        for entry in config.get(key, []):
            names |= set(entry) if isinstance(entry, dict) else {entry}
    packages = {p.name for p in REPO.iterdir() if (p / "__init__.py").exists()}
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    plugins = set(project.get("entry-points", {}).get("mkdocs.plugins", {}))
    return {n for n in names if n in plugins or n.split("/")[0].split(".")[0] in packages}


def test_the_fixture_runs_the_engine_of_the_real_site():
    fixture, real = own_entries(FIXTURE / "mkdocs.yml"), own_entries(REPO / "mkdocs.yml")
    assert fixture, "the fixture project names none of the project's plugins or extensions"
    assert fixture <= real, f"the fixture names what the real site does not: {sorted(fixture - real)}"
