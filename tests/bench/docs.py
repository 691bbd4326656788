"""`make bench-docs`: how long builds take, as ratios to a plain build, and what pages weigh.

All builds run in one copy of the project, in this run, so the ratios compare like with like:

- plain:     the same pages as ordinary Markdown (every placeholder written out as the extension
             fills it: numbers as their spans, figures and tables as their Markdown, by
             plain_pages.py; figures as static files, math left as TeX), built by
             mkdocs-material without our plugin — the baseline. Each page of it must hold as
             many figures and tables as ours (`same_content`); the last column of the page
             table compares their computed numbers;
- cold:      our build with an empty computation cache (every figures_src module runs), and
             its CPU time (every process it waited for) spread over all cores;
- warm:      our build again, nothing changed (warm and plain: the median of 5 builds each,
             taken in turn: warm, plain, warm, plain, ...);
- md edit:   `mkdocs serve --dirty` running (as `make serve`); one Markdown page edited;
             seconds until the served page shows the edit (the saves a random part of
             the server's file poll apart, see POLL_SECONDS);
- library edit: `mkdocs serve` running; one attn_core file edited (a file only the
             benchmark's marker module imports: the cache re-runs that module alone, in the
             warm worker kept by serve); seconds until the served page shows the new value, and
             the re-run module's own time from serve's log;
- softmax edit: `mkdocs serve` running; attn_core/stable_softmax.py (softmax) edited: every module
             that uses it runs again; seconds until serve reports the rebuild done (the
             median of SOFTMAX_EDITS saves), each save's limit measured just before it (the
             training's own CPU, as below);
- module edit: one figures_src module edited; our build; which modules re-ran;
- training:  the costliest module alone, figures_src.induction_training (it trains a model),
             run cold by the runner: wall-clock and CPU seconds; and the CPU of its own run,
             as the worker runs it (imports done, then a forked child).

Then the goals, each row in seconds, as a ratio to plain and against its limit: a Markdown edit
under serve <= 1 s; an attn_core edit <= 1 s + its re-run modules' own time; a softmax edit <=
the training's own CPU measured beside it + 1 s; warm <= 1,15 x plain; the cold build's CPU <= 20 s
where the plain build takes 2,97 s (20 s x the plain build's CPU in this run / 2,97 s; the cold
build's CPU against 20 s as such is printed too).

Then the transfer size of each page (HTML + everything it loads) measured in headless
Chromium when it is installed (otherwise a static count of the HTML, CSS, JS and images),
as served here (uncompressed) and as a gzip-compressing web server would send it.
"""

from __future__ import annotations

import base64
import gzip
import importlib.util
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from anatomia_engine.plugin import POLL_SECONDS

HERE = Path(__file__).resolve()

# The cold build's goal, 20 s of CPU, was set on a host that built the plain site in 2,97 s. The
# host these builds run on is a shared one, at times a third slower, at times faster: the goal
# is held at the same ratio to the plain build's CPU measured in this run, as every other goal
# is to something measured beside it.
GOAL_HOST_PLAIN = 2.97


def cold_goal(plain_cpu: float) -> float:
    """The cold build's limit of CPU seconds on a host that builds the plain site with `plain_cpu`
    seconds of CPU: 20 s where that is 2,97 s."""
    return 20.0 * plain_cpu / GOAL_HOST_PLAIN


def _helpers():
    """tests/helpers.py (project copies, the loopback server, Chromium), loaded by its path."""
    spec = importlib.util.spec_from_file_location("helpers", HERE.parents[1] / "helpers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


helpers = _helpers()
CHROMIUM, chromium, serving = helpers.CHROMIUM, helpers.chromium, helpers.serving
copy_project = helpers.copy_project

PAGES = ["/", "/krok-po-kroku/", "/posty/", "/posty/llm-mechanizm-uwagi/",
         "/posty/glowy-indukcyjne/", "/laby/lab-3/", "/llm/anatomia/", "/jak-dodac-wartosc/"]
TRAINING_MODULE = "figures_src.induction_training"
# Python as a contributor runs it: no PYTHONPATH, and bytecode written (a shell that sets
# PYTHONDONTWRITEBYTECODE would make every warm build compile the engine again)
_UNSET = ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
ENV = {k: v for k, v in os.environ.items() if k not in _UNSET} | {"NO_MKDOCS_2_WARNING": "1"}


def build(project: Path, site: Path, config: str = "mkdocs.yml",
          env: dict | None = None) -> tuple[float, str]:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "properdocs", "build", "--strict", "-f", config,
                           "--site-dir", str(site)], cwd=project, env=env or ENV, capture_output=True,
                          text=True)
    elapsed = time.perf_counter() - started
    if proc.returncode:
        raise SystemExit(f"build failed:\n{proc.stderr[-4000:]}")
    return elapsed, proc.stderr


def measured_build(project: Path, site: Path,
                   config: str = "mkdocs.yml") -> tuple[float, str, float]:
    """A build and its total CPU (user + system of the build and every process it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    elapsed, log = build(project, site, config)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, log, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cold_phases(log: str) -> str:
    """The cold build's own timings from its log: the figures_src modules (run in parallel) and
    the lab notebook's execution, e.g. 'figures_src 8.1 s, notebook 4.2 s'."""
    figures = re.search(r"figures_src: ran .*? in ([\d.]+) s", log)
    notebook = re.search(r"executed in ([\d.]+) s", log)
    parts = [f"figures_src {figures[1]} s" if figures else "figures_src: no timing in the log",
             f"notebook {notebook[1]} s" if notebook else "notebook: no timing in the log"]
    return ", ".join(parts)


def median_builds(project: Path, runs: list[tuple[Path, str]],
                  repeat: int = 5) -> list[tuple[float, float]]:
    """The median wall-clock and CPU seconds of each (site, config) build, the builds taken in
    turn `repeat` times (warm, plain, warm, plain, ...), so a host that slows down or speeds up
    meanwhile weighs on both alike."""
    times: list[list[float]] = [[] for _ in runs]
    cpu: list[list[float]] = [[] for _ in runs]
    for _ in range(repeat):
        for i, (site, config) in enumerate(runs):
            elapsed, _, seconds = measured_build(project, site, config)
            times[i].append(elapsed)
            cpu[i].append(seconds)
    return [(statistics.median(t), statistics.median(c)) for t, c in zip(times, cpu, strict=True)]


def make_plain(project: Path, site: Path) -> str:
    """Write docs_plain/: every page with placeholders expanded, figures as files (the math is
    left as TeX: the pages ship no KaTeX assets, only build-time MathML)."""
    plain = project / "docs_plain"
    shutil.copytree(project / "docs", plain)
    shutil.copytree(site / "figures", plain / "figures")
    # The lab as the executed notebook the plugin hands to mkdocs-jupyter (newest entry), its figures
    # beside the page.
    entries = (project / ".cache" / "anatomia" / "notebooks").glob("*.json")
    entry = max(entries, key=lambda p: p.stat().st_mtime)
    executed = json.loads(entry.read_bytes().partition(b"\n")[2])
    (plain / "laby" / "lab-3.py").unlink()
    (plain / "laby" / "lab-3.ipynb").write_text(executed["page"], encoding="utf-8")
    (plain / "laby" / "lab-3").mkdir()
    for name, data in executed["figures"].items():
        (plain / "laby" / "lab-3" / name).write_bytes(base64.b64decode(data))
    for md in plain.rglob("*.md"):
        md.write_text(md.read_text().replace("lab-3.py", "lab-3.ipynb"))
    # Placeholders written out as ordinary Markdown from the store the cold build filled
    # (plain_pages.py); any error stops the benchmark (check=True).
    script = project / "tests" / "bench" / "plain_pages.py"
    proc = subprocess.run([sys.executable, str(script), str(plain)], cwd=project,
                          env=ENV | {"PYTHONPATH": str(project)}, check=True, stdout=subprocess.PIPE,
                          text=True)
    if int(proc.stdout.split()[-1]) < 3:
        raise SystemExit(f"plain_pages wrote only {proc.stdout.strip()} page(s)")
    config = (project / "mkdocs.yml").read_text()
    # our plugins (anatomia, anatomia-route) are not plain Material's
    config, unplugged = re.subn(r"\n  - anatomia(?:-route)?(?=\s)[^\n]*", "", config)
    # (our Markdown extension goes with the anatomia plugin, which registers it)
    if unplugged != 2:
        raise SystemExit("mkdocs.yml no longer lists the anatomia and anatomia-route plugins; update "
                         "make_plain() in tests/bench")
    config = config.replace("\nnav:\n", "\ndocs_dir: docs_plain\nnav:\n")
    config = config.replace("lab-3.py", "lab-3.ipynb")
    config = re.sub(r"(\n      include: )\[[^\]]*\]", r'\1["*.ipynb"]', config)   # mkdocs-jupyter
    (project / "mkdocs-plain.yml").write_text(config)
    return "mkdocs-plain.yml"


# What the plain pages must hold as ours do: a figure, a table, a computed number
_CONTENT = {"figures": "<figure", "tables": "<table", "numbers": 'class="num'}


def same_content(site: Path, plain_site: Path) -> dict[str, tuple[int, int]]:
    """Stop unless every page of the plain site has as many figures and tables as ours (the
    baseline converts the same content, not bare tokens); (ours, plain) computed numbers a page."""
    numbers = {}
    for path in PAGES:
        relative = Path(path.strip("/"), "index.html")
        ours = (site / relative).read_text(encoding="utf-8")
        plain = (plain_site / relative).read_text(encoding="utf-8")
        counts = {what: (ours.count(mark), plain.count(mark)) for what, mark in _CONTENT.items()}
        for what in ("figures", "tables"):
            if counts[what][0] != counts[what][1]:
                raise SystemExit(f"the plain build of {path} has {counts[what][1]} {what}, ours "
                                 f"{counts[what][0]}: update tests/bench/plain_pages.py")
        numbers[path] = counts["numbers"]
    return numbers


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


MARKER_PAGE = "jak-dodac-wartosc"
# The server looks at the watched files every POLL_SECONDS (its PollingObserver, plugin.py). A
# save waits for the next look: from 0 to that period, by where in it the save falls. Saves a
# fixed pause apart fall at nearly the same point of it each time (the period drifts by a few ms
# an edit), so five of them would measure one draw of that wait five times; a pause random within
# one period makes each save's wait a draw of its own, as an author's saves are. Every timed save
# below (Markdown, attn_core, softmax) is placed so.
# Saves of attn_core/stable_softmax.py timed: each waits for the poll, a draw as large as the
# row's margin to its goal, so the row is the median of as many saves as the Markdown row's.
SOFTMAX_EDITS = 5
# Polish words the site does not use, one per Markdown edit of the benchmark
NEW_WORDS = ("ananas", "bursztyn", "cynamon", "daktyl", "estragon")


def add_library_marker(project: Path) -> None:
    """A value that comes straight from attn_core, shown on MARKER_PAGE (set up before timing)."""
    (project / "attn_core" / "_bench_marker.py").write_text("MARKER = 100\n")
    (project / "figures_src" / "bench_marker.py").write_text(
        '"""Benchmark only: one value read from attn_core."""\n'
        "from anatomia_engine.kit import values\nfrom attn_core._bench_marker import MARKER\n\n\n"
        "@values\ndef marker():\n    return {\"bench_marker\": MARKER}\n")
    page = project / "docs" / f"{MARKER_PAGE}.md"
    page.write_text(page.read_text() + "\nZnacznik biblioteki: {{ bench_marker.bench_marker }}.\n")


def serve_edit_seconds(project: Path, repeat: int = 5) -> tuple[list[float], list[float], list, list]:
    """Under `mkdocs serve`: seconds from saving a Markdown edit to the served page showing it,
    the rebuild times serve itself reports for those (the rest: the next poll of the files,
    MkDocs' build delay, loading the config), (seconds from saving an attn_core edit to the page
    showing its new value, the re-run modules' own seconds, their names), and seconds from an edit
    of attn_core/stable_softmax.py (softmax: every module that uses it runs again) to serve's log
    reporting the rebuild done, with how many ran, the seconds serve reports for running them
    (the rest: the poll, MkDocs' build delay, the build before and after the modules) and the
    training's own CPU seconds measured just before that save (its limit)."""
    port = free_port()
    log = project / "serve.log"
    with log.open("w") as out:
        # as `make serve` runs it: --dirty renders again only the pages whose inputs changed
        command = [sys.executable, "-m", "properdocs", "serve", "--dirty", "--dev-addr", f"127.0.0.1:{port}"]
        server = subprocess.Popen(command,
                                  cwd=project, env=ENV, stdout=out, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    url = f"http://127.0.0.1:{port}/{MARKER_PAGE}/"
    times, library, softmax = [], [], []
    # the same pauses in every run of the benchmark
    pauses = random.Random(41)
    try:
        wait_for(url, "Znacznik biblioteki: 100.", 600)
        # an author reads the page before the first edit
        time.sleep(3.0)
        page = project / "docs" / f"{MARKER_PAGE}.md"
        original = page.read_text()
        for i in range(repeat):
            # a word new to the site in each edit, as an author's edit brings: the search's form
            # table is built again (an edited number alone would leave it as it was)
            marker = f"Znacznik pomiaru {i}: {NEW_WORDS[i % len(NEW_WORDS)]}"
            started = time.perf_counter()
            page.write_text(original + f"\n{marker}\n")
            wait_for(url, marker, 120)
            times.append(time.perf_counter() - started)
            time.sleep(1.0 + pauses.uniform(0.0, POLL_SECONDS))
        page.write_text(original)
        time.sleep(3.0)
        for i in range(1, 4):
            before = log.read_text()
            started = time.perf_counter()
            (project / "attn_core" / "_bench_marker.py").write_text(f"MARKER = {100 + i}\n")
            wait_for(url, f"Znacznik biblioteki: {100 + i}.", 300)
            seconds = time.perf_counter() - started
            # the modules that re-ran and their own time, as serve's log reports them
            runs = re.findall(r"figures_src: ran (.*?) in ([0-9.]+) s", log.read_text()[len(before):])
            library.append((seconds, sum(float(s) for _, s in runs), ", ".join(n for n, _ in runs)))
            time.sleep(2.0 + pauses.uniform(0.0, POLL_SECONDS))
        source = project / "attn_core" / "stable_softmax.py"
        original = source.read_text()
        # one save more than SOFTMAX_EDITS: the last puts the file back, as the builds after this
        # expect it
        for i in range(SOFTMAX_EDITS + 1):
            settle(log)
            # The save's limit, measured beside it: this machine's speed drifts by up to 1,6 x
            # within a minute (a fixed loop timed again and again), so the training's CPU taken
            # at another moment of the run would be a limit for another machine.
            training = None
            if i < SOFTMAX_EDITS:
                training = own_cpu_seconds(project, TRAINING_MODULE)
                # (had anything it wrote woken serve, that rebuild ends before the save)
                settle(log, quiet=1.0)
            time.sleep(pauses.uniform(0.0, POLL_SECONDS))
            before = log.read_text()
            started = time.perf_counter()
            source.write_text(original + f"\n_BENCH_EDIT = {i}\n" if i < SOFTMAX_EDITS else original)
            deadline = time.monotonic() + 900
            # the server reloads the browsers once the build has returned: "Documentation built
            # in" may be missing (MkDocs' DuplicateFilter drops a line its build logged before)
            while not re.search(r"figures_src: ran (.*?) in [\s\S]*Reloading browsers",
                                after := log.read_text()[len(before):]):
                if time.monotonic() > deadline:
                    raise SystemExit(f"serve never ran the modules after {source} was edited")
                time.sleep(0.05)
            if "ERROR" in after:
                raise SystemExit(f"the build after {source} was edited failed:\n{after}")
            if i < SOFTMAX_EDITS:
                ran = re.search(r"figures_src: ran (.*?) in ([0-9.]+) s", after)
                seconds = time.perf_counter() - started
                softmax.append((seconds, len(ran[1].split(", ")), float(ran[2]), training))
        settle(log)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    # the first build is the initial one
    return times, rebuild_seconds(log.read_text())[1:1 + repeat], library, softmax


def rebuild_seconds(log: str) -> list[float | None]:
    """The seconds each build of serve's `log` reports, in order; None for a build whose
    "Documentation built in" line MkDocs dropped (its DuplicateFilter drops every line its build
    logged before: two builds of 0,41 s report once)."""
    seconds = []
    # serve says "Building documentation..." as each build starts (what comes before: its start)
    for build in re.split(r"Building documentation\.\.\.", log)[1:]:
        reported = re.search(r"Documentation built in ([0-9.]+) seconds", build)
        seconds.append(float(reported[1]) if reported else None)
    return seconds


def settle(log: Path, quiet: float = 3.0, patience: float = 300.0) -> None:
    """Wait until serve has finished every rebuild it started and started none for `quiet` s (at most
    `patience` s: a rebuild's last line can be lost between the server's two streams)."""
    last, since, deadline = None, time.monotonic(), time.monotonic() + patience
    while time.monotonic() - since < quiet and time.monotonic() < deadline:
        text = log.read_text()
        # a rebuild ends with "Documentation built in" and "Reloading browsers" (the first build: no reload)
        ended = max(text.count("Documentation built in"), text.count("Reloading browsers") + 1)
        failed = text.count("An error happened during the rebuild")
        state = (text.count("Building documentation"), ended + failed)
        if state != last or state[0] > state[1]:
            last, since = state, time.monotonic()
        time.sleep(0.1)


def wait_for(url: str, text: str, timeout: float) -> None:
    """Poll `url` until its text (tags removed) contains `text`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if text in re.sub(r"<[^>]+>", "", r.read().decode()):
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {text!r} at {url}")


# One module run as the worker runs it: NumPy, matplotlib and the engine imported first, then the
# module in a forked child; prints the child's CPU seconds (user + system).
OWN_CPU = """
import os, sys, tempfile
from pathlib import Path
root = Path.cwd()
from anatomia_engine import deps
deps.start(root)
import matplotlib.pyplot
import anatomia_engine.kit, anatomia_engine.plot
from anatomia_engine import worker
deps.snapshot(root)
out = Path(tempfile.mkdtemp()) / "run"
child = os.fork()
if child == 0:
    out.mkdir()
    worker.run_module(sys.argv[1], out, root)
    os._exit(0)
_, status, usage = os.wait4(child, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
print(usage.ru_utime + usage.ru_stime)
"""


def own_cpu_seconds(project: Path, name: str) -> float:
    """CPU seconds of module `name`'s own run, without the worker's start (its imports)."""
    env = ENV | {"PYTHONPATH": str(project), "MPLBACKEND": "Agg", "PYTHONHASHSEED": "0",
                 "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-c", OWN_CPU, name], cwd=project, env=env, check=True,
                          capture_output=True, text=True)
    return float(proc.stdout.split()[-1])


def module_seconds(project: Path, name: str) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one module run cold by the runner."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # the run writes its figures into a new folder of TMPDIR: the copy's own, removed with it
    temporary = project / ".bench-tmp"
    temporary.mkdir(exist_ok=True)
    subprocess.run([sys.executable, "-m", "anatomia_engine.runner", name], cwd=project,
                   env=ENV | {"TMPDIR": str(temporary)}, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def page_weights(site: Path) -> dict[str, int]:
    if CHROMIUM.exists():
        try:
            return browser_weights(site)
        except Exception as exc:  # noqa: BLE001 - fall back to the static count
            print(f"(browser measurement failed: {exc}; static count instead)")
    return static_weights(site)


def browser_weights(site: Path) -> dict[str, tuple[int, int]]:
    """(bytes, gzip bytes) of everything a cold browser loads for each page."""
    out = {}
    with serving(site) as base, chromium() as browser:
        for path in PAGES:
            context = browser.new_context()
            page = context.new_page()
            bodies: list[bytes] = []

            def keep(response, bodies=bodies):
                try:
                    if response.ok:
                        bodies.append(response.body())
                except Exception:  # noqa: BLE001 - a response still arriving when the page closes
                    pass

            page.on("response", keep)
            page.goto(base + path, wait_until="networkidle")
            out[path] = (sum(map(len, bodies)), sum(len(gzip.compress(b, mtime=0)) for b in bodies))
            context.close()
    return out


def static_weights(site: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for path in PAGES:
        html_file = site / path.strip("/") / "index.html" if path != "/" else site / "index.html"
        html = html_file.read_text()
        bodies = [html.encode()]
        for ref in re.findall(r'(?:src|href)="([^"#?]+\.(?:js|css|svg|png|woff2))', html):
            target = (html_file.parent / ref).resolve()
            if target.exists():
                bodies.append(target.read_bytes())
        out[path] = (sum(map(len, bodies)), sum(len(gzip.compress(b, mtime=0)) for b in bodies))
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        project = copy_project(tmp / "proj")
        shutil.rmtree(project / ".cache", ignore_errors=True)
        site = tmp / "site"
        cold, cold_log, cold_cpu = measured_build(project, site)
        plain_config = make_plain(project, site)
        (warm, _), (plain, plain_cpu) = median_builds(
            project, [(site, "mkdocs.yml"), (tmp / "plain-site", plain_config)])
        numbers = same_content(site, tmp / "plain-site")
        add_library_marker(project)
        md_edits, md_rebuilds, library_edits, softmax_edits = serve_edit_seconds(project)
        module = project / "figures_src" / "quadratic_cost.py"
        module.write_text(module.read_text() + "\n# edited by the benchmark\n")
        edit_time, log = build(project, site)
        ran = re.findall(r"figures_src: ran ([^\n]*?) in ", log)
        weights = page_weights(site)
        training_wall, training_cpu = module_seconds(project, TRAINING_MODULE)
        training_own = own_cpu_seconds(project, TRAINING_MODULE)

    print(f"{'build':<34}{'seconds':>9}{'× plain':>10}")
    print(f"{'plain mkdocs-material (baseline)':<34}{plain:>9.2f}{1:>10.2f}")
    print(f"{'  its CPU (median of 5)':<34}{plain_cpu:>9.2f}{plain_cpu / plain:>10.2f}")
    for label, value in [("cold (empty cache)", cold), ("warm (nothing changed)", warm),
                         ("one figures_src module edited", edit_time)]:
        print(f"{label:<34}{value:>9.2f}{value / plain:>10.2f}")
        if label.startswith("cold"):
            print(f"{'  of which':<34}{cold_phases(cold_log)}")
            cores = os.cpu_count() or 1
            floor = cold_cpu / cores
            print(f"{'  its CPU spread over all cores':<34}{floor:>9.2f}{floor / plain:>10.2f}"
                  f"   ({cold_cpu:.1f} s of CPU / {cores} cores: no schedule is faster)")
    md = statistics.median(md_edits)
    print(f"{'Markdown edit under serve (median)':<34}{md:>9.2f}{md / plain:>10.2f}"
          f"   runs: {', '.join(f'{t:.2f}' for t in md_edits)}")
    rebuild = statistics.median(t for t in md_rebuilds if t is not None)
    print(f"{'  of which the rebuild (serve log)':<34}{rebuild:>9.2f}{rebuild / plain:>10.2f}"
          f"   runs: {', '.join('–' if t is None else f'{t:.2f}' for t in md_rebuilds)}")
    lib = statistics.median(t for t, _, _ in library_edits)
    lib_own = statistics.median(own for _, own, _ in library_edits)
    print(f"{'attn_core edit under serve (median)':<34}{lib:>9.2f}{lib / plain:>10.2f}"
          f"   runs: {', '.join(f'{t:.2f} ({names} ran {own:.2f} s)' for t, own, names in library_edits)}")
    edit = statistics.median(t for t, _, _, _ in softmax_edits)
    print(f"{'softmax edit under serve (median)':<34}{edit:>9.2f}{edit / plain:>10.2f}"
          f"   runs: {', '.join(f'{t:.2f} ({n} modules ran)' for t, n, _, _ in softmax_edits)}")
    modules = statistics.median(m for _, _, m, _ in softmax_edits)
    print(f"{'  of which the modules (serve log)':<34}{modules:>9.2f}{modules / plain:>10.2f}"
          f"   runs: {', '.join(f'{m:.1f}' for _, _, m, _ in softmax_edits)}")
    # the limit of the softmax row: the training's own CPU, measured just before each save
    beside = statistics.median(c for _, _, _, c in softmax_edits)
    print(f"{'  the training beside each save':<34}{beside:>9.2f}{beside / plain:>10.2f}"
          f"   runs: {', '.join(f'{c:.2f}' for _, _, _, c in softmax_edits)} s CPU of its own run")
    print(f"modules re-run after editing quadratic_cost.py: {ran[0] if ran else '(none)'}")
    print(f"{TRAINING_MODULE} alone, cold: {training_wall:.2f} s wall-clock, "
          f"{training_cpu:.2f} s CPU with the runner's start, {training_own:.2f} s CPU of its own run "
          "(the training run of /posty/glowy-indukcyjne/)")
    print()
    # the goals of a contributor's loop, each in seconds and as a ratio to plain Material in this run
    done_when = [
        ("Markdown edit under serve (median of 5)", md, 1.0, "1 s"),
        ("narrow attn_core edit under serve", lib, 1.0 + lib_own,
         f"1 s + its re-run modules' {lib_own:.2f} s"),
        (f"softmax edit under serve (median of {SOFTMAX_EDITS})", edit, beside + 1.0,
         f"the training's {beside:.2f} s CPU beside it + 1 s"),
        ("warm build, nothing changed", warm, 1.15 * plain, "1,15 × plain"),
        ("cold build, CPU", cold_cpu, cold_goal(plain_cpu),
         f"20 s × plain's {plain_cpu:.2f} s of CPU / {GOAL_HOST_PLAIN:.2f} s"),
    ]
    print(f"{'goal':<42}{'seconds':>9}{'× plain':>10}{'goal s':>9}  goal")
    for label, value, goal, words in done_when:
        verdict = "met" if value <= goal else "NOT met"
        print(f"{label:<42}{value:>9.2f}{value / plain:>10.2f}{goal:>9.2f}  <= {words}: {verdict}")
    verdict = "met" if cold_cpu <= 20.0 else "NOT met"
    print(f"(the cold build's CPU against 20 s as such, on this host as fast as it is now: {verdict})")
    print()
    print(f"{'page':<32}{'transfer (KiB)':>15}{'gzipped (KiB)':>15}{'numbers ours/plain':>20}")
    for path, (size, packed) in weights.items():
        ours, plain_numbers = numbers[path]
        print(f"{path:<32}{size / 1024:>15.1f}{packed / 1024:>15.1f}{ours:>14}/{plain_numbers}")


if __name__ == "__main__":
    main()
