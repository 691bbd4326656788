"""The benchmarks (tests/bench) use the test helpers outside pytest, where no session build exists."""

from helpers import SESSION_ENV, wait_session_site


def test_outside_a_test_session_there_is_no_session_build_to_wait_for(monkeypatch):
    monkeypatch.delenv(SESSION_ENV, raising=False)
    assert wait_session_site() is None
