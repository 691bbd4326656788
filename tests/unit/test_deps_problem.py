"""deps.problem over several records: one pass reads a file they share once, and still sees a change."""

import hashlib
import os
import sys

from anatomia_engine import deps


def _record(root, *names: str) -> dict:
    files = {}
    for name in names:
        files[name] = hashlib.sha256((root / name).read_bytes()).hexdigest()
    return {"python": sys.version, "files": files, "folders": {}, "absent": [], "present": [],
            "env": {}}


def test_a_pass_reads_a_shared_file_once_and_sees_a_change(tmp_path):
    (tmp_path / "shared.py").write_text("x = 1\n")
    (tmp_path / "own.py").write_text("y = 2\n")
    first = _record(tmp_path, "shared.py", "own.py")
    second = _record(tmp_path, "shared.py")
    digests: dict = {}
    assert deps.problem(first, tmp_path, os.environ, digests) is None
    # the pass found the shared file's digest: the next record of the pass takes it from there
    shared = str(tmp_path / "shared.py")
    assert digests[shared] == first["files"]["shared.py"]
    digests[shared] = "0" * 64
    assert deps.problem(second, tmp_path, os.environ, digests) == "shared.py changed"
    # a new pass reads the file again
    assert deps.problem(second, tmp_path, os.environ, {}) is None
    (tmp_path / "shared.py").write_text("x = 3\n")
    assert deps.problem(second, tmp_path, os.environ, {}) == "shared.py changed"
    (tmp_path / "shared.py").unlink()
    assert deps.problem(second, tmp_path, os.environ, {}) == "shared.py is gone"
