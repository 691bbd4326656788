"""The benchmarks (tests/bench): they use the test helpers outside pytest, where no session build
exists, and the audit runs Chromium with the flags its docstring explains."""

import importlib.util

from helpers import REPO, SESSION_ENV, wait_session_site


def test_outside_a_test_session_there_is_no_session_build_to_wait_for(monkeypatch):
    monkeypatch.delenv(SESSION_ENV, raising=False)
    assert wait_session_site() is None


def test_the_audit_runs_chromium_without_the_begin_frame_throttle_of_headless_runs(monkeypatch):
    """tests/bench/audit.py's Chromium flags keep the one that removes viz's one-second BeginFrame
    throttle (GoogleChrome/lighthouse#17148), and run headless without a GPU."""
    monkeypatch.syspath_prepend(REPO / "tests" / "bench")   # where the script finds its neighbours
    spec = importlib.util.spec_from_file_location("audit", REPO / "tests" / "bench" / "audit.py")
    audit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(audit)
    assert set(audit.CHROME_FLAGS.split()) >= {"--headless=new", "--disable-gpu", "--disable-frame-rate-limit"}
