"""A differential build (`make serve`: `serve --dirty`) publishes byte for byte what a clean build does.

One process keeps the plugin between builds as `properdocs serve` (`make serve`) does and builds the
fixture project with `dirty=True` after each of a sequence of edits in random order (a page's text, a
module's value, a title, a deleted page, a new page; the project has a notebook page too); after each,
a clean build of the same sources must give the same files. ANATOMIA_EDIT_SEED picks another sequence.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers import fixture_project, mkdocs_build

DRIVER = textwrap.dedent("""
    import logging
    import sys
    # as its command line does: the plugins' mkdocs.* imports are ProperDocs' own
    import properdocs.replacement  # noqa: F401
    from properdocs.commands.build import build
    from properdocs.config import load_config

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    first = True
    for line in sys.stdin:
        # loaded again for each build, as serve does (the plugin instance is kept)
        config = load_config(config_file="mkdocs.yml", site_dir=sys.argv[1])
        if first:
            config.plugins.on_startup(command="serve", dirty=True)
            first = False
        try:
            build(config, dirty=True)
            print("built", flush=True)
        except BaseException as exc:   # noqa: BLE001 - reported to the test
            print(f"failed {type(exc).__name__}: {exc}".replace("\\n", " "), flush=True)
""")


def files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*"))
            if p.is_file() and p.name != "sitemap.xml.gz"}


def _edit_page(project: Path, rng: random.Random) -> str:
    pages = sorted((project / "docs").glob("*.md"))
    page = rng.choice([p for p in pages if p.name != "index.md"] or pages)
    page.write_text(page.read_text() + f"\nDopisane zdanie numer {rng.randrange(1000)}.\n")
    return f"text of {page.name}"


def _edit_value(project: Path, rng: random.Random) -> str:
    module = project / "figures_src" / "demo.py"
    first = rng.choice(["0.25", "0.3", "0.35434369377420455"])
    text = module.read_text()
    start = text.index("WEIGHTS = np.array([") + len("WEIGHTS = np.array([")
    end = text.index(",", start)
    module.write_text(text[:start] + first + text[end:])
    return f"demo.py weight {first}"


def _edit_title(project: Path, rng: random.Random) -> str:
    page = rng.choice(sorted((project / "docs").glob("*.md")))
    lines = page.read_text().splitlines()
    number = next(i for i, line in enumerate(lines) if line.startswith("# "))
    lines[number] = f"# Tytuł {rng.randrange(1000)}"
    page.write_text("\n".join(lines) + "\n")
    return f"title of {page.name}"


def _delete_page(project: Path, rng: random.Random) -> str:
    pages = [p for p in sorted((project / "docs").glob("*.md")) if p.name != "index.md"]
    if not pages:
        return _new_page(project, rng)
    page = rng.choice(pages)
    page.unlink()
    return f"deleted {page.name}"


def _new_page(project: Path, rng: random.Random) -> str:
    name = f"nowa-{rng.randrange(1000)}.md"
    text = f"# Nowa strona {name}\n\nTekst, a waga to {{{{ demo.weight | dec(2) }}}}.\n"
    (project / "docs" / name).write_text(text)
    return f"new {name}"


EDITS = [_edit_page, _edit_value, _edit_title, _delete_page, _new_page]   # each once, in a random order


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return fixture_project(tmp_path_factory.mktemp("differential") / "proj", lab=True)


def test_random_edits_built_differentially_publish_what_a_clean_build_does(project, tmp_path):
    seed = int(os.environ.get("ANATOMIA_EDIT_SEED", "41"))
    rng = random.Random(seed)
    edits = EDITS.copy()
    rng.shuffle(edits)
    steps = ["first build", *edits]
    log = tmp_path / "driver.log"
    with log.open("w") as err:   # the child keeps its own copy of the descriptor
        driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(tmp_path / "served")], cwd=project,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True,
                                  env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    done: list[str] = []
    try:
        for number, step in enumerate(steps):
            done.append(step if isinstance(step, str) else step(project, rng))
            driver.stdin.write("build\n")
            driver.stdin.flush()
            status = driver.stdout.readline().strip()
            assert status == "built", f"seed {seed}, after {done}: {status}\n{log.read_text()[-3000:]}"
            clean = mkdocs_build(project, tmp_path / f"clean-{number}")
            assert clean.returncode == 0, clean.stderr[-3000:]
            served, expected = files(tmp_path / "served"), files(tmp_path / f"clean-{number}")
            assert sorted(served) == sorted(expected), f"seed {seed}, after {done}"
            differ = [name for name in expected if served[name] != expected[name]]
            assert not differ, f"seed {seed}, after {done}: these differ from a clean build: {differ}"
    finally:
        driver.stdin.close()
        driver.wait(timeout=60)
        driver.stdout.close()
