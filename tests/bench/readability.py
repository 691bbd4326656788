"""`make readability`: how the engine's code reads, measured the way the engine review measured it.

For every Python file under the given folders (default: anatomia_engine/), counted over code lines
(non-blank lines that are not whole-line comments; docstrings count as code):

- conditional expressions (`a if c else b`) per 1 000 code lines;
- lambdas per 1 000 code lines;
- packed pair assignments (`a, b = x, y`) per 1 000 code lines;
- whole-line comments as a share of code and comment lines;
- mean length of a code line, its indentation not counted.

The review's aim for the engine, beside each column: at most 15, 3 and 4 per 1 000 lines, at least
8 % comments, at most 45 characters. They describe readable code, not a budget to fill; the command
prints the numbers and marks a miss, it does not fail.

    .venv/bin/python tests/bench/readability.py [folder ...]
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, fields
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# the aims, per column: (limit, True when the number must stay at or below it)
AIMS = {
    "ifexp": (15, True),
    "lambdas": (3, True),
    "pairs": (4, True),
    "comments": (8, False),
    "mean": (45, True),
}


@dataclass
class Counts:
    code: int = 0
    comments: int = 0
    chars: int = 0
    ifexp: int = 0
    lambdas: int = 0
    pairs: int = 0

    def add(self, other: Counts) -> None:
        for field in fields(self):
            setattr(self, field.name, getattr(self, field.name) + getattr(other, field.name))

    def measures(self) -> dict[str, float]:
        per_thousand = 1000 / max(self.code, 1)
        return {
            "ifexp": self.ifexp * per_thousand,
            "lambdas": self.lambdas * per_thousand,
            "pairs": self.pairs * per_thousand,
            "comments": 100 * self.comments / max(self.code + self.comments, 1),
            "mean": self.chars / max(self.code, 1),
        }


def _is_packed_pair(node: ast.AST) -> bool:
    # `a, b = x, y`: a tuple assigned from a tuple written out, two statements on one line
    if not isinstance(node, ast.Assign):
        return False
    return isinstance(node.targets[0], ast.Tuple) and isinstance(node.value, ast.Tuple)


def count(path: Path) -> Counts:
    source = path.read_text(encoding="utf-8")
    counts = Counts()
    for line in source.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            counts.comments += 1
            continue
        counts.code += 1
        counts.chars += len(stripped)
    for node in ast.walk(ast.parse(source)):
        counts.ifexp += isinstance(node, ast.IfExp)
        counts.lambdas += isinstance(node, ast.Lambda)
        counts.pairs += _is_packed_pair(node)
    return counts


def _row(name: str, counts: Counts) -> str:
    cells = []
    for key, value in counts.measures().items():
        limit, at_most = AIMS[key]
        missed = value > limit if at_most else value < limit
        cells.append(f"{value:7.1f}{'!' if missed else ' '}")
    return f"{name:28s} {counts.code:6d} " + " ".join(cells)


def main(folders: list[str]) -> None:
    headings = ["ifexp/k", "lambda/k", "pairs/k", "comm. %", "mean"]
    print(f"{'file':28s} {'lines':>6s} " + " ".join(f"{h:>8s}" for h in headings))
    total = Counts()
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            counts = count(path)
            total.add(counts)
            print(_row(str(path.relative_to(ROOT)), counts))
    print(_row("all", total))
    print("aims: ifexp/k <= 15, lambda/k <= 3, pairs/k <= 4, comments >= 8 %, mean <= 45 (! marks a miss)")


if __name__ == "__main__":
    main(sys.argv[1:] or ["anatomia_engine"])
