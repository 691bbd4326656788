"""A page's front matter, and the names its placeholders can read.

`front_matter` parses and checks the YAML between a page's `---` lines
(a key given twice, a mapping expected, `computed:` a list of module
names), each error at its line of the file. `page_scope` is what a
page's placeholders can name: every module's values as `module.name`,
and the bare names of the modules its `computed:` lists.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass

import yaml

from anatomia_engine import placeholders, runner
from anatomia_engine.errors import EngineError
from anatomia_engine.placeholders import Entry, FigureRef

FRONT_MATTER = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)

# A front matter that opens with a key but is never closed
UNCLOSED_FRONT_MATTER = re.compile(r"-{3}[ \t]*\n[A-Za-z_][\w-]*[ \t]*:")



@dataclass(frozen=True)
class FrontMatter:
    meta: dict
    # line of the file where the Markdown body (as MkDocs passes it) starts: a tag's line in
    # the body is counted from it, so errors name the line of the file
    first_line: int
    # the modules whose values the page names without `module.`
    computed: list[str]
    # where `computed:` stands, for the errors about the modules it lists
    computed_line: int


class _Duplicate(Exception):
    # raised inside PyYAML's loader, whose own errors do not carry both lines
    def __init__(self, key, first: int, line: int):
        self.key = key
        self.first = first
        self.line = line


class _UniqueKeys(yaml.SafeLoader):
    """SafeLoader refusing a key given twice in one mapping (YAML would keep the last one silently)."""

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _ in getattr(node, "value", []):
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line
            # an unhashable key (a list) is YAML's own error, reported by the base loader
            # the mapping's lines start on the file's second line, after "---": +2
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise _Duplicate(key, seen[key] + 2, line + 2)
            seen[key] = line
        return super().construct_mapping(node, deep)


def _load_front_matter(text: str, where: str) -> dict:
    """The YAML of a front matter (the text between its `---` lines) as a mapping."""
    try:
        # a SafeLoader: the front matter builds no Python objects
        meta = yaml.load(text, Loader=_UniqueKeys) or {}  # noqa: S506
    except _Duplicate as exc:
        raise EngineError("fm_duplicate", where=f"{where}:{exc.line}", key=exc.key,
                          first=exc.first) from None
    except yaml.YAMLError as exc:
        # a scanner error has a mark; one without is put on the front matter's first line
        mark = getattr(exc, "problem_mark", None)
        line = 2 + getattr(mark, "line", 0)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise EngineError("fm_yaml", where=f"{where}:{line}", problem=problem) from None
    if not isinstance(meta, dict):
        raise EngineError("fm_not_mapping", where=f"{where}:2", got=type(meta).__name__)
    return meta


def _computed_line(text: str) -> int:
    """The file's line of the front matter's `computed:` key (the first line if there is none)."""
    for number, line in enumerate(text.splitlines()):
        if line.startswith("computed"):
            return number + 2
    return 2


def front_matter(raw: str, where: str) -> FrontMatter:
    """Parse and check a page's YAML front matter; EngineError at `where:line` if it is wrong."""
    m = FRONT_MATTER.match(raw)
    if not m:
        # unclosed, MkDocs would read the whole page as Markdown and show the keys as text
        if UNCLOSED_FRONT_MATTER.match(raw):
            raise EngineError("fm_not_closed", where=f"{where}:1")
        return FrontMatter({}, 1, [], 1)
    meta = _load_front_matter(m.group(1), where)
    # MkDocs also drops the blank lines after the front matter
    body = raw[m.end():].lstrip("\n")
    first_line = raw.count("\n", 0, len(raw) - len(body)) + 1
    computed = meta.get("computed") or []
    # one module may be written without a list: `computed: masking`
    if isinstance(computed, str):
        computed = [computed]
    line = _computed_line(m.group(1))
    names = isinstance(computed, list) and all(isinstance(c, str) for c in computed)
    if not names:
        raise EngineError("fm_computed", where=f"{where}:{line}", got=repr(computed))
    return FrontMatter(meta, first_line, computed, line)


def _module_scope(module: str, result: runner.ModuleResult) -> dict[str, Entry]:
    """Every value and figure of one module, as `module.name`."""
    scope: dict[str, Entry] = {}
    source = f"{runner.PACKAGE}/{module}.py"
    for key, value in result.values.items():
        # function, what, cite, axes, at, limit
        meta = result.meta.get(key, {})
        function = meta.get("function")
        placeholders.check_value_name(key, source, function)
        # `Value(x, at="step")` ties a measurement to where it was measured: that value must exist
        at = meta.get("at")
        if at is not None and at not in result.values:
            raise EngineError("value_at_unknown", where=source, function=function, name=key, at=at)
        scope[f"{module}.{key}"] = Entry(value, source, **meta)
    for key in result.figures:
        scope[f"{module}.{key}"] = Entry(FigureRef(f"{module}.{key}"), source)
    return scope


def page_scope(results: Mapping[str, runner.ModuleResult], fm: FrontMatter,
               where: str) -> dict[str, Entry]:
    """Every value as `module.name`, plus bare names of the modules the page lists."""
    scope: dict[str, Entry] = {}
    for module, result in results.items():
        scope.update(_module_scope(module, result))
    at = f"{where}:{fm.computed_line}"
    for module in fm.computed:
        if module not in results:
            near = difflib.get_close_matches(module, list(results), n=1)
            hint = ""
            if near:
                hint = f"did you mean '{near[0]}'? "
            raise EngineError("fm_unknown_module", where=at, module=module, hint=hint)
        prefix = module + "."
        for key, entry in list(scope.items()):
            if not key.startswith(prefix):
                continue
            bare = key[len(prefix):]
            # two listed modules with one name: the page must say which it means
            if bare in scope and scope[bare] is not entry:
                raise EngineError("fm_ambiguous", where=at, name=bare)
            scope[bare] = entry
    return scope
