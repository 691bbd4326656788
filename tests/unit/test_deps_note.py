"""deps.note under a recording: the file is the computation's input, the folders resolved on the
way to it are not."""

import json
import subprocess
import sys

from helpers import REPO


def test_noting_a_file_records_it_and_not_the_folders_resolved_on_the_way(tmp_path):
    """A notebook's kernel notes every module it imported (~900 files): resolving each one checks
    every folder above it, and those checks are the engine's own, not the computation's."""
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c.txt").write_text("x")
    script = ("import json, sys; from pathlib import Path; from anatomia_engine import deps; "
              "root = Path(sys.argv[1]); deps.start(root); deps.note(root / 'a' / 'b' / 'c.txt'); "
              "print(json.dumps(deps.snapshot(root)))")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=REPO,
                          capture_output=True, text=True, check=True)
    record = json.loads(done.stdout)
    assert "a/b/c.txt" in record["files"]
    assert not {"a", "a/b"} & (set(record["present"]) | set(record["absent"]))
