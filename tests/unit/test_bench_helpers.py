"""The benchmarks (tests/bench): they use the test helpers outside pytest, where no session build
exists, the audit runs Chromium with the flags its docstring explains, and the weight gate
judges what the reader downloads."""

import importlib.util

from helpers import REPO, SESSION_ENV, wait_session_site


def test_outside_a_test_session_there_is_no_session_build_to_wait_for(monkeypatch):
    monkeypatch.delenv(SESSION_ENV, raising=False)
    assert wait_session_site() is None


def bench_script(monkeypatch, name):
    monkeypatch.syspath_prepend(REPO / "tests" / "bench")   # where the script finds its neighbours
    spec = importlib.util.spec_from_file_location(name, REPO / "tests" / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_weight_gate_counts_the_gzip_bytes_of_every_response_and_not_the_raw_ones(monkeypatch):
    weight = bench_script(monkeypatch, "weight")
    kib = 1024
    heavy_raw = [("a.css", 300 * kib, 40 * kib), ("index.html", 300 * kib, 60 * kib)]
    assert weight.within_budget(heavy_raw)
    over = [*heavy_raw, ("bundle.js", 100 * kib, 50 * kib + 1)]
    assert not weight.within_budget(over)


def test_the_audit_runs_chromium_without_the_begin_frame_throttle_of_headless_runs(monkeypatch):
    """tests/bench/audit.py's Chromium flags keep the one that removes viz's one-second BeginFrame
    throttle (GoogleChrome/lighthouse#17148), and run headless without a GPU."""
    audit = bench_script(monkeypatch, "audit")
    wanted = {"--headless=new", "--disable-gpu", "--disable-frame-rate-limit"}
    assert set(audit.CHROME_FLAGS.split()) >= wanted


def test_serve_rebuild_times_are_read_per_build_and_a_dropped_line_is_no_other_builds(monkeypatch):
    """MkDocs' DuplicateFilter drops a "Documentation built in" line its build logged before: that
    build's time is unknown, and the next builds keep their own."""
    docs = bench_script(monkeypatch, "docs")
    log = ("INFO - config note\n"
           "INFO - Building documentation...\nINFO - Documentation built in 3.85 seconds\n"
           "INFO - Building documentation...\nINFO - Documentation built in 0.41 seconds\n"
           "INFO - [22:28:39] Reloading browsers\n"
           "INFO - Building documentation...\nINFO - rendering 1 of 9 page(s) again\n"
           "INFO - [22:28:41] Reloading browsers\n"
           "INFO - Building documentation...\nINFO - Documentation built in 0.35 seconds\n")
    assert docs.rebuild_seconds(log) == [3.85, 0.41, None, 0.35]


def test_the_cold_goal_keeps_its_ratio_to_the_plain_build_of_the_same_run(monkeypatch):
    docs = bench_script(monkeypatch, "docs")
    # 20 s where the plain site builds as on the host the goal was set on
    assert docs.cold_goal(docs.GOAL_HOST_PLAIN) == 20.0
    # a host half as fast takes twice the CPU for both builds
    assert docs.cold_goal(2 * docs.GOAL_HOST_PLAIN) == 40.0
    assert docs.cold_goal(docs.GOAL_HOST_PLAIN / 2) == 10.0


def test_the_plain_pages_take_a_less_than_sign_in_prose_for_no_tag(monkeypatch):
    """A number after `a < b` in a sentence is written as the prose's span, as ours is; one in an
    attribute's value as plain text."""
    plain = bench_script(monkeypatch, "plain_pages")
    prose = "gdy `a < b`: TOKEN i dalej"
    assert not plain.in_html_tag(prose, prose.index("TOKEN"))
    attribute = 'zob. <abbr title="TOKEN">'
    assert plain.in_html_tag(attribute, attribute.index("TOKEN"))
    # a tag closed before the token leaves it in the prose
    closed = '<code>dec(2)</code> z TOKEN'
    assert not plain.in_html_tag(closed, closed.index("TOKEN"))
