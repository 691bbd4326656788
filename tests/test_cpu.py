"""The cold-build CPU breakdown (anatomia_engine/cpu.py, hooks/cpu_report.py, `make bench-docs`):
each part is measured where it runs, the report is written only when asked, and the bench's
table accounts for the whole measured total."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from anatomia_engine import cpu
from helpers import REPO

BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3:\n    pass\n"


def burn(seconds: float) -> None:
    started = time.thread_time()
    while time.thread_time() - started < seconds:
        pass


@pytest.fixture(autouse=True)
def fresh():
    cpu.reset()
    yield
    cpu.reset()


def test_a_thread_part_counts_its_own_thread_only():
    """A thread that sleeps while another one burns CPU is charged for its sleep, not the burn."""
    other = threading.Thread(target=burn, args=(0.3,))
    with cpu.thread_part("sleeper"):
        other.start()
        other.join()
    with cpu.thread_part("burner"):
        burn(0.3)
    assert cpu.parts["burner"]["cpu"] >= 0.3
    assert cpu.parts["sleeper"]["cpu"] < cpu.parts["burner"]["cpu"] / 3
    assert cpu.parts["sleeper"]["seconds"] > cpu.parts["sleeper"]["cpu"]


def test_children_waited_for_in_a_part_are_charged_to_the_named_part():
    with cpu.thread_part("parent", children="child"):
        subprocess.run([sys.executable, "-c", BURN], check=True)
    assert cpu.parts["child"]["cpu"] >= 0.3
    assert cpu.parts["parent"]["cpu"] < cpu.parts["child"]["cpu"]


def test_the_cpu_of_a_running_process_is_read_from_proc():
    if not Path("/proc/self/stat").exists():
        pytest.skip("no /proc")
    proc = subprocess.Popen([sys.executable, "-c", BURN + "import sys\nsys.stdin.read()\n"],
                            stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while (cpu.process_cpu(proc.pid) or 0) < 0.3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert cpu.process_cpu(proc.pid) >= 0.3
    finally:
        proc.stdin.close()
        proc.wait()
    assert cpu.process_cpu(proc.pid) is None   # reaped: nothing to read


def test_the_report_is_written_only_when_asked(tmp_path, monkeypatch):
    import hooks.cpu_report as hook

    monkeypatch.delenv(cpu.REPORT_ENV, raising=False)
    hook.on_config({})
    cpu.add("figures_src/x.py", 1.5, 2.0)
    hook.on_post_build({})
    assert list(tmp_path.iterdir()) == []
    target = tmp_path / "report.json"
    monkeypatch.setenv(cpu.REPORT_ENV, str(target))
    hook.on_post_build({})
    record = json.loads(target.read_text())
    assert record["parts"]["figures_src/x.py"] == {"cpu": 1.5, "seconds": 2.0}
    assert record["self"] > 0 and {"config", "built"} <= set(record["marks"])
    hook.on_config({})                       # the next build (mkdocs serve) starts a new record
    assert cpu.parts == {}


def _bench():
    spec = importlib.util.spec_from_file_location("bench_docs", REPO / "tests" / "bench" / "docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bench_table_accounts_for_the_whole_total():
    """In- and out-of-process parts, the rest of the build process, and what is left over add
    up to the measured total; the rest is the process's CPU minus its own measured parts."""
    launched = 1000.0
    record = {"parts": {"figures_src/a.py": {"cpu": 3.0, "seconds": 4.0},
                        "figures_src/b.py": {"cpu": 1.0, "seconds": 1.5},
                        "notebook: kernel (start-up and cells)": {"cpu": 1.25, "seconds": 0.0},
                        "search: simplemma's Polish dictionary (background thread)": {"cpu": 2.0,
                                                                                       "seconds": 3.0},
                        "purge_css: node (PurgeCSS)": {"cpu": 0.5, "seconds": 0.0}},
              "marks": {"config": launched + 1, "figures_src started": launched + 1.5,
                        "figures_src done": launched + 6, "files collected": launched + 6,
                        "pages converted": launched + 8, "built": launched + 9},
              "self": 6.0, "node": 0.25, "total": 12.0, "launched": launched, "wall": 9.5}
    bench = _bench()
    rows = {name: v["cpu"] for name, v in bench.cpu_parts(record).items()}
    assert rows["MkDocs and the rest of the build process"] == pytest.approx(6.0 - 2.0)
    assert rows["KaTeX: node process"] == 0.25
    assert rows["not attributed"] == pytest.approx(12.0 - (3 + 1 + 1.25 + 2 + 0.5 + 0.25 + 4.0))
    assert sum(rows.values()) == pytest.approx(12.0)
    lines = bench.cpu_breakdown(record)
    assert any("longest module: figures_src/a.py 4.00 s wall" in line for line in lines)
    assert any(line.split()[:3] == ["1.50", "->", "6.00"] for line in lines)
