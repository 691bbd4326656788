"""Fail loudly when requirements.lock was not compiled from the current pyproject.toml: its header
records a hash of the dependency lists (`make lock` writes it). Standard library only (runs before the venv).
"""

import hashlib
import json
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
MARK = "# inputs-sha256: "


def inputs_hash() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    deps = {"dependencies": project.get("dependencies", []),
            "optional": project.get("optional-dependencies", {})}
    return hashlib.sha256(json.dumps(deps, sort_keys=True).encode()).hexdigest()


def main() -> int:
    lines = LOCK.read_text().splitlines()
    if "--write" in sys.argv:
        kept = [line for line in lines if not line.startswith(MARK)]
        LOCK.write_text("\n".join([MARK + inputs_hash(), *kept]) + "\n")
    elif MARK + inputs_hash() not in lines:
        print("requirements.lock is stale: pyproject.toml's dependencies changed since it was "
              "compiled. Run 'make lock' and commit the new lock.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
