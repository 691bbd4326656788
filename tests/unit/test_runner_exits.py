"""The runner's module processes: a module that hangs, is killed, exits early or leaves state
behind is stopped and named, and nothing is kept for it (split from test_runner.py so the two
files' forked runs go to different test workers)."""

from __future__ import annotations

import pytest

from anatomia_engine import messages, runner
from anatomia_engine.errors import EngineError
from tests.module_runs import HEADER, compute, entries, fresh, module, module_errors


@pytest.mark.parametrize("alarm", ["", "signal.signal(signal.SIGALRM, signal.SIG_IGN)"],
                         ids=["plain", "ignores-alarm"])
def test_a_hanging_module_is_stopped_at_its_time_limit_and_named(mini, alarm):
    module(mini, "slow", f"""
        import signal
        import time
        TIME_LIMIT = 1

        @values
        def wait():
            {alarm}
            time.sleep(600)
            return {{}}
        """)
    # (a worker that fails to stop it gives up later, with another message)
    error, _ = module_errors(mini, ["slow"])["slow"]
    assert error.id == "time_limit", str(error)
    assert error.where == "figures_src/slow.py"
    # what it was running, and how to raise the limit
    assert error.fields == {"limit": 1, "current": "figures_src.slow.wait()", "env": runner.TIME_LIMIT_ENV}
    assert entries(mini / ".cache" / "anatomia" / "computed", "slow") == []


@pytest.mark.parametrize("line", ["TIME_LIMIT: float = 600", "TIME_LIMIT = 10 * 60", "TIME_LIMIT = 0",
                                  "TIME_LIMIT = 1_000"])
def test_a_time_limit_not_written_as_plain_seconds_is_refused_not_ignored(mini, line):
    module(mini, "limited", f"{line}\n\n@values\ndef v():\n    return {{}}\n")
    with pytest.raises(EngineError) as info:
        runner.time_limit("limited", mini)
    assert info.value.id == "bad_module_time_limit", str(info.value)
    assert info.value.where == "figures_src/limited.py" and info.value.fields == {"line": line}


def test_a_time_limit_in_plain_seconds_is_read(mini):
    module(mini, "limited", "TIME_LIMIT = 42.5  # seconds\n\n@values\ndef v():\n    return {}\n")
    assert runner.time_limit("limited", mini) == 42.5


# (the module, the catalogue id of how its run ended, the fields it must have). SIGKILL is what the
# kernel's out-of-memory killer sends: the message says memory, and how much.
DEATHS = [
    ("import os, signal\n\n@values\ndef die():\n    block = np.ones(40 * 2**20)   # 320 MiB\n"
     "    os.kill(os.getpid(), signal.SIGKILL)\n    return {'n': float(block[0])}\n",
     "killed_memory", {"current": "figures_src.quit_0.die()"}),
    ("import sys\nsys.exit(0)\n",
     "module_exit", {"current": "figures_src.quit_1 (import)", "code": 0}),
    ("import os\n\n@values\ndef leave():\n    print('bye')\n    os._exit(0)\n",
     "ended_early", {"current": "figures_src.quit_2.leave()", "status": 0}),
    ("import os, signal\n\n@values\ndef die():\n    os.kill(os.getpid(), signal.SIGTERM)\n    return {}\n",
     "killed", {"current": "figures_src.quit_3.die()", "signal": "SIGTERM", "status": -15}),
]


@pytest.fixture(scope="module")
def deaths(project) -> dict[str, tuple[EngineError, bool]]:
    """One run of a module per case of DEATHS, all in one compute: each error, and whether
    anything was kept."""
    root = fresh(project)
    for i, (body, _, _) in enumerate(DEATHS):
        (root / "figures_src" / f"quit_{i}.py").write_text(HEADER + body)
    return module_errors(root, [f"quit_{i}" for i in range(len(DEATHS))])


@pytest.mark.parametrize("case", range(len(DEATHS)))
def test_death_by_signal_or_early_exit_is_reported_and_nothing_is_cached(deaths, case):
    error, stored = deaths[f"quit_{case}"]
    _, id, fields = DEATHS[case]
    assert error.where == f"figures_src/quit_{case}.py"
    assert messages.text("nothing_cached") in error.detail
    # sys.exit()'s message names the function, not the module: it comes under the module's heading
    if error.id == "module_failed":
        error = error.causes[0]
    assert error.id == id, str(error)
    assert fields.items() <= error.fields.items(), error.fields
    assert not stored


def test_the_memory_a_killed_module_used_is_said(deaths):
    error, _ = deaths["quit_0"]
    assert 300 <= error.fields["peak"] < 1000 and error.fields["total"] > 0


def test_what_a_module_printed_comes_with_its_error(deaths):
    error, _ = deaths["quit_2"]
    assert "bye" in error.detail


def test_modules_do_not_share_state(mini):
    (mini / "figures_src" / "_shared.py").write_text("SEEN = []\n")
    module(mini, "first", """
        import matplotlib
        from . import _shared
        matplotlib.rcParams["font.size"] = 99.0
        _shared.SEEN.append("first")

        @values
        def one():
            return {"seen": len(_shared.SEEN)}
        """)
    module(mini, "second", """
        import sys
        import matplotlib
        from . import _shared

        @values
        def two():
            return {"font_size": float(matplotlib.rcParams["font.size"]), "seen": len(_shared.SEEN),
                    "sees_first": int("figures_src.first" in sys.modules)}
        """)
    first, _ = compute(mini, ["first"])          # one after the other, in the same worker
    second, _ = compute(mini, ["second"])
    assert first["first"].values["seen"] == 1
    assert second["second"].values["font_size"] != 99.0
    assert second["second"].values["seen"] == 0 and second["second"].values["sees_first"] == 0
