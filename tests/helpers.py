"""Helpers for tests that build the site: the repo path, the session build, project copies,
strict builds."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import signal
import socket
import string
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SKIP = {".venv", "site", ".site.tmp", ".site.old", ".git", ".pytest_cache", ".hypothesis",
        "__pycache__", "node_modules", ".ruff_cache"}


FIXTURE = REPO / "tests" / "site" / "fixture"

# The command that builds and serves, as `make docs` and `make serve` run it: ProperDocs, the
# maintained continuation of MkDocs 1.x (it runs the `mkdocs.plugins` entry points and Material).
# The configuration is named, so ProperDocs does not ask for mkdocs.yml to be renamed.
CORE = [sys.executable, "-m", "properdocs"]


def core(command: str, *args: str) -> list[str]:
    """The argument list of `properdocs COMMAND -f mkdocs.yml ARGS` (run it in the project)."""
    return [*CORE, command, "--config-file", "mkdocs.yml", *args]


def fixture_project(dest: Path, lab: bool = False, files: dict[str, str] | None = None) -> Path:
    """A copy of the fixture project (tests/site/fixture) at `dest`: the one builder of the tests'
    small projects. `dest` may exist (empty). `lab`: with the notebook page docs/laby/lab.py as
    well; `files`: text files written over the copy (paths relative to the project), for a test's
    own modules, pages or notebook."""
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns("__pycache__", "extra"),
                    dirs_exist_ok=True)
    shutil.copy(REPO / "requirements.lock", dest / "requirements.lock")
    if lab:
        (dest / "docs" / "laby").mkdir()
        shutil.copy(FIXTURE / "extra" / "lab.py", dest / "docs" / "laby" / "lab.py")
    for name, text in (files or {}).items():
        path = dest / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return dest


def copy_project(dest: Path) -> Path:
    """Copy the project (with its computation cache, without venv/site) to `dest`, once the
    session build is no longer writing into that cache."""
    wait_session_site()
    shutil.copytree(REPO, dest, ignore=lambda d, names: [n for n in names if n in SKIP])
    (dest / "node_modules").symlink_to(REPO / "node_modules")
    return dest


SESSION_ENV = "ANATOMIA_TEST_SESSION"   # the folder of the session build, shared by xdist workers
_session: dict = {}   # this process's start of the session build: "proc", "thread"


def session_folder() -> Path:
    """The folder of the session build of the real site: made by the root conftest of the
    process that runs pytest and inherited by its xdist workers."""
    return Path(os.environ[SESSION_ENV])


def start_session_site() -> None:
    """Start the session's strict build of the real site in the background, once per session:
    the first process (of the xdist workers) to create `claimed` builds, and writes the exit code
    to `rc` when done; the others wait for that file."""
    folder = session_folder()
    try:
        (folder / "claimed").mkdir()
    except FileExistsError:
        return
    if not (REPO / ".cache" / "anatomia").exists():
        (folder / "cold").touch()   # nothing kept from an earlier build: it works everything out
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with open(folder / "site.log", "w") as out:
        proc = subprocess.Popen(
            core("build", "--strict", "--site-dir", str(folder / "site")),
            cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, text=True)

    def record_exit_code():
        code = proc.wait()
        (folder / "rc.tmp").write_text(str(code))
        (folder / "rc.tmp").replace(folder / "rc")

    _session.update(proc=proc, thread=threading.Thread(target=record_exit_code, daemon=True))
    _session["thread"].start()


def wait_session_site() -> bool | None:
    """Wait for the session build if one was started (here or in another worker); whether it
    succeeded, None when none was started (or outside pytest: a benchmark)."""
    if SESSION_ENV not in os.environ:
        return None
    folder = session_folder()
    if not (folder / "claimed").exists():
        return None
    assert wait_for((folder / "rc").exists, timeout=1200), f"the session build in {folder} never ended"
    return (folder / "rc").read_text() == "0"


def stop_session_site(wait: bool) -> None:
    """At the end of the session: wait for a session build this process started (`wait`: other
    workers may still need it) or end it (the session stopped early)."""
    if "proc" not in _session:
        return
    if not wait and _session["proc"].poll() is None:
        _session["proc"].kill()
    _session["thread"].join(timeout=1200)


def session_site_was_cold() -> bool:
    """Whether the session build started with nothing kept from an earlier build (a clean clone)."""
    return (session_folder() / "cold").exists()


def session_site() -> Path:
    """The session's strict build of the real site: the one started once the tests were
    collected, or one started now; once per session, whichever tier or worker asks first."""
    start_session_site()
    folder = session_folder()
    assert wait_session_site(), "mkdocs build failed:\n" + (folder / "site.log").read_text()[-5000:]
    return folder / "site"


def site_pages(site: Path, containing: str = "") -> list[str]:
    """The address path of every page in the build's sitemap.xml ("/", "/krok-po-kroku/", …),
    or only of those whose HTML contains `containing`; never an empty list."""
    locs = re.findall(r"<loc>([^<]+)</loc>", (site / "sitemap.xml").read_text(encoding="utf-8"))
    pages = sorted(urllib.parse.urlparse(loc).path for loc in locs)
    if containing:
        pages = [p for p in pages
                 if containing in (site / p.lstrip("/") / "index.html").read_text(encoding="utf-8")]
    assert pages, f"no page of {site / 'sitemap.xml'} contains {containing!r}"
    return pages


def mkdocs_build(project: Path, site_dir: Path, *extra: str, timeout: int = 600):
    """A strict build of `project` with this venv (`core`); returns the CompletedProcess."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        core("build", "--strict", "--site-dir", str(site_dir), *extra),
        cwd=project, env=env, capture_output=True, text=True, timeout=timeout,
    )


# --- serving ------------------------------------------------------------------------

def free_port() -> int:
    """A TCP port of 127.0.0.1 that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url: str) -> str:
    """The body of `url` as text."""
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode()


def wait_for(predicate, timeout: float = 60.0) -> bool:
    """Poll `predicate` (an OSError counts as not yet) until it holds or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return True
        except OSError:
            pass
        time.sleep(0.3)
    return False


@contextlib.contextmanager
def mkdocs_serve(project: Path, as_make_serve: bool = False, env: dict[str, str] | None = None):
    """`mkdocs serve` of `project` on a free port in its own process group; yields (process, page
    URL, its output lines so far: a thread reads them as they come, so a test waits for a line
    instead of sleeping). Complete once the block is left (the server is stopped with SIGTERM).
    `as_make_serve`: with `make serve`'s --dirty and --strict; `env`: variables set for it."""
    port = free_port()
    options = ["--dirty", "--strict"] if as_make_serve else []
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | (env or {})
    server = subprocess.Popen(
        core("serve", *options, "--dev-addr", f"127.0.0.1:{port}"),
        cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    output: list[str] = []

    def read():
        for line in server.stdout:
            output.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        yield server, f"http://127.0.0.1:{port}/", output
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)
        reader.join(timeout=20)
        server.stdout.close()


# --- the browser tests' plumbing ---------------------------------------------------------

CHROMIUM = Path(shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest's output clean
        pass


@contextlib.contextmanager
def serving(directory: Path, port: int = 0, handler: type = _QuietHandler):
    """Serve `directory` over HTTP on 127.0.0.1 (`port` 0: a free one) with `handler` (a
    SimpleHTTPRequestHandler); yields the base URL."""
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(handler, directory=str(directory)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@contextlib.contextmanager
def chromium():
    """Debian's headless Chromium driven by playwright (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


# --- the engine's messages in text ----------------------------------------------------------

def message_pattern(id: str, **fields) -> re.Pattern:
    """The catalogue message `id` as a pattern over text that shows it (a build's log, an error):
    each field given must show that value, a field not given may show anything on its line. A
    `where` the text does not place itself comes before it, as EngineError writes it.

    A test asserts which message was said, with which values, without typing its English: a
    rewording of messages.yaml keeps the test passing, another message or value fails it."""
    from anatomia_engine import messages

    formatter = string.Formatter()
    pieces = []
    if "where" in fields and "where" not in messages.fields(id):
        pieces.append(re.escape(f"{fields.pop('where')}: "))
    # a field the message does not have is a mistake of the test, not a value to ignore
    unknown = set(fields) - messages.fields(id)
    if unknown:
        raise KeyError(f"{id} has no field {sorted(unknown)}")
    for literal, name, spec, conversion in formatter.parse(messages.CATALOGUE[id].text):
        pieces.append(re.escape(literal))
        if name is None:
            continue
        if name in fields:
            shown = formatter.format_field(formatter.convert_field(fields[name], conversion), spec)
            pieces.append(re.escape(shown))
        else:
            # a value the test does not know (an OS's wording, a path it did not choose)
            pieces.append("[^\\n]*?")
    return re.compile("".join(pieces))


def whole_page(path: Path) -> str:
    """A built page's HTML."""
    return path.read_text(encoding="utf-8")


@functools.cache
def markdown_extensions() -> tuple[tuple, dict]:
    """markdown_extensions of mkdocs.yml, as MkDocs hands them to Python-Markdown."""
    from mkdocs.utils.yaml import yaml_load

    config = yaml_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    names, configs = [], {}
    for item in config["markdown_extensions"]:
        if isinstance(item, dict):
            name, options = next(iter(item.items()))
            configs[name] = options
        else:
            name = item
        names.append(name)
    return tuple(names), configs


def convert_page(body: str, raw: str, results, *, uri: str = "x.md", meta: dict | None = None):
    """(HTML, the Markdown instance) of a page converted as the build converts it: registered in
    a build state of its own, with mkdocs.yml's extensions and the one the plugin registers."""
    import markdown as pymd

    from anatomia_engine import markdown as amd
    from anatomia_engine.state import BuildState

    state = BuildState()
    text = amd.render_page(body, amd.Page(uri, raw), results, state.pages, meta=meta)
    names, configs = markdown_extensions()
    md = pymd.Markdown(extensions=[state.extension(), *names], extension_configs=configs)
    return md.convert(text), md


def process_fields(pid: int | str | None) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (its state first, then its
    parent's pid), or None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def running(pid: int | str | None) -> bool:
    """Whether process `pid` runs (a zombie, dead but not yet reaped, does not)."""
    fields = process_fields(pid)
    return fields is not None and fields[0] != "Z"


def running_kernels() -> list[tuple[int, int, bytes]]:
    """(pid, parent's pid, command line) of every running Jupyter kernel."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        fields = process_fields(entry)
        if b"ipykernel" in command and fields is not None and fields[0] != "Z":
            found.append((int(entry), int(fields[1]), command))
    return found


def worker_processes(parent: int) -> set[int]:
    """The running module workers (anatomia_engine.worker) that process `parent` started."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = process_fields(entry)
        if fields is None or fields[0] == "Z" or fields[1] != str(parent):
            continue
        try:
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if b"worker.serve" in command:
            found.add(int(entry))
    return found


def kernels_in(folder: Path) -> list[int]:
    """The running Jupyter kernels whose connection file is in `folder`."""
    return [pid for pid, _, command in running_kernels() if str(folder).encode() in command]
