"""What a kept result is keyed by: what determines it, not the whole engine. A module run that shows no
message does not depend on the message catalogue (editing one message re-runs no module that shows
none); one that shows the catalogue does."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from anatomia_engine import messages, runner, store


def _mini(root: Path) -> Path:
    (root / "figures_src").mkdir(parents=True)
    (root / "figures_src" / "__init__.py").write_text("")
    (root / "docs").mkdir()
    (root / "requirements.lock").write_text("numpy\n")
    return root


def _recorded_files(root: Path, name: str) -> set[str]:
    kept = store.Store(root / ".cache" / "anatomia" / "computed", ".json")
    body = json.loads(kept.get(runner.entry_name(name, root.resolve())))
    return set(body["deps"]["files"])


def test_only_a_module_that_shows_a_message_depends_on_the_catalogue(tmp_path):
    root = _mini(tmp_path / "mini")
    header = "from anatomia_engine.kit import values\n"
    (root / "figures_src" / "quiet.py").write_text(header + textwrap.dedent("""
        @values
        def quiet():
            return {"n": 3}
        """))
    (root / "figures_src" / "shows.py").write_text(header + textwrap.dedent("""
        from anatomia_engine import messages

        @values
        def shows():
            return {"groups": len(messages.GROUPS)}
        """))
    try:
        results, ran = runner.compute(["quiet", "shows"], root=root)
    finally:
        runner.stop_worker()
    assert sorted(ran) == ["quiet", "shows"] and results["shows"].values["groups"] == len(messages.GROUPS)
    catalogue = str(messages.PATH.resolve())
    assert catalogue not in _recorded_files(root, "quiet")
    assert catalogue in _recorded_files(root, "shows")
    assert str(Path(messages.__file__).resolve()) in _recorded_files(root, "quiet")   # the code is an input
