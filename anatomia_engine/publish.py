"""`make docs`: build the site into a fresh folder and swap it in only when the build succeeds.

    python -m anatomia_engine.publish [--site-dir site] [mkdocs build options ...]

One build of a checkout at a time (a `lockf` lock on `.site.lock`: released however the process ends,
not inherited by forked children). The swap exchanges `.site.tmp.<pid>` with `site/` in one step (Linux
`renameat2`), elsewhere by two checked renames. Whatever fails, the last good `site/` stays.
"""

import argparse
import contextlib
import ctypes
import errno
import fcntl
import os
import shutil
import signal
import sys
from pathlib import Path

from anatomia_engine import messages as M

LOCK_NAME = ".site.lock"
TMP_PREFIX = ".site.tmp."
OLD_PREFIX = ".site.old."


class PublishError(Exception):
    """A step of the swap failed; the message says which and what state site/ is in."""


@contextlib.contextmanager
def build_lock(root: Path, say=print):
    """Hold the checkout's build lock (blocking); tell the user when another build has it."""
    try:
        fd = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:   # a read-only checkout: the first thing a build writes is its lock
        raise unwritable(root / LOCK_NAME, exc) from None
    try:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            say(M.text("build_waits", pid=holder, lock=LOCK_NAME))
            fcntl.lockf(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)   # releases the lock


def unwritable(path: Path, exc: OSError, site_name: str = "site") -> PublishError:
    """The error for a checkout the build cannot write, naming the path and what the build writes."""
    return PublishError(M.text("checkout_unwritable", path=path, problem=exc.strerror or exc, site=site_name))


def remove_stale(root: Path, say=print) -> list[str]:
    """Remove the temporary folders of builds that died (call only while holding the lock)."""
    removed = [p.name for p in sorted(root.iterdir())
               if p.name.startswith((TMP_PREFIX, OLD_PREFIX)) and p.is_dir() and not p.is_symlink()]
    for name in removed:
        shutil.rmtree(root / name)
    if removed:
        say(M.text("removed_leftovers", count=len(removed), folders=", ".join(removed)))
    return removed


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths (renameat2 with RENAME_EXCHANGE); False where the system cannot."""
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    at_cwd, exchange = -100, 2
    if renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), exchange) == 0:
        return True
    if ctypes.get_errno() in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise PublishError(M.text("swap_failed", a=a.name, b=b.name, problem=os.strerror(ctypes.get_errno()),
                              site=b.name))


def swap_in(new: Path, site: Path) -> None:
    """Make `new` the site; the previous site/ stays in place if any step fails."""
    if not (new / "index.html").is_file():
        raise PublishError(M.text("no_index", folder=new.name, site=site.name))
    if site.is_symlink() or (site.exists() and not site.is_dir()):
        raise PublishError(M.text("site_not_folder", site=site))
    if not site.exists():
        os.rename(new, site)
    elif _exchange(new, site):
        shutil.rmtree(new)     # `new` now holds the previous site
    else:
        old = site.parent / f"{OLD_PREFIX}{os.getpid()}"
        os.rename(site, old)
        try:
            os.rename(new, site)
        except OSError as exc:
            os.rename(old, site)
            raise PublishError(M.text("move_failed", site=site.name, problem=exc)) from None
        shutil.rmtree(old)


def run_mkdocs(args: list[str]) -> int:
    """`properdocs build ARGS` in this process; its exit status (click ends every run with SystemExit).
    ProperDocs, the maintained continuation of MkDocs 1.x, builds the site (README: the core)."""
    from properdocs.__main__ import cli

    try:
        cli.main(args=["build", "--config-file", "mkdocs.yml", *args], prog_name="properdocs")
    except SystemExit as exc:
        return exc.code
    return 0


class Stopped(BaseException):
    """SIGTERM or SIGHUP arrived: unwind (cleaning up) as Ctrl-C does."""


def _stop_on_signal(signum, frame):
    raise Stopped(128 + signum)


def publish(root: Path, site_name: str, mkdocs_args: list[str]) -> int:
    with build_lock(root):
        remove_stale(root)
        tmp = root / f"{TMP_PREFIX}{os.getpid()}"   # unique: the lock is held, leftovers are gone
        try:
            tmp.mkdir()   # with the umask's mode, as site/ should have (mkdtemp would make it private)
        except OSError as exc:
            raise unwritable(tmp, exc, site_name) from None
        try:
            status = run_mkdocs(["--site-dir", str(tmp), *mkdocs_args])
            if status != 0:
                print(M.text("build_failed", site=site_name), file=sys.stderr)
                return status
            swap_in(tmp, root / site_name)
        except PublishError as exc:
            print(exc, file=sys.stderr)
            return 1
        except BaseException:
            print(M.text("build_stopped", site=site_name), file=sys.stderr)
            raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"site built: {site_name}/index.html")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m anatomia_engine.publish", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site-dir", default="site", help="the published folder (default: site)")
    options, mkdocs_args = parser.parse_known_args(argv)   # the rest goes to `mkdocs build`
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _stop_on_signal)
    try:
        return publish(Path.cwd(), options.site_dir, mkdocs_args)
    except Stopped as exc:
        return exc.args[0]
    except PublishError as exc:   # before the build started: the checkout cannot be written
        print(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
