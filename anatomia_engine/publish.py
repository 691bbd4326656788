"""`make docs`: build the site into a fresh folder and swap it in only when the build succeeds.

    python -m anatomia_engine.publish [--site-dir site] [mkdocs build options ...]

One build of a checkout at a time (a `lockf` lock on `.site.lock`: released however the process ends,
not inherited by forked children). The swap exchanges `.site.tmp.<pid>` with `site/` in one step (Linux
`renameat2`), elsewhere by two checked renames. Whatever fails, the last good `site/` stays.
A step that fails raises an EngineError (`checkout_unwritable`, `swap_failed`, …): `main` prints it
and exits 1, like a failed build.
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
from anatomia_engine.errors import EngineError

LOCK_NAME = ".site.lock"
# The folders a build works in, beside site/: a build killed before its end leaves them, and the
# next build (holding the lock, so no other build is using them) removes them.
TMP_PREFIX = ".site.tmp."
OLD_PREFIX = ".site.old."
# renameat2's arguments: paths relative to the working folder, and exchange the two
AT_FDCWD = -100
RENAME_EXCHANGE = 2

@contextlib.contextmanager
def build_lock(root: Path, say=print):
    """Hold the checkout's build lock (blocking); tell the user when another build has it."""
    try:
        fd = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        # a read-only checkout: the first thing a build writes is its lock
        raise unwritable(root / LOCK_NAME, exc) from None
    try:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            # the holder wrote its process id into the lock file: say who we wait for
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            say(M.text("build_waits", pid=holder, lock=LOCK_NAME))
            fcntl.lockf(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)   # releases the lock


def unwritable(path: Path, exc: OSError, site_name: str = "site") -> EngineError:
    """The error for a checkout the build cannot write, naming the path and what the build writes."""
    problem = exc.strerror or exc
    return EngineError("checkout_unwritable", path=path, problem=problem, site=site_name)


def remove_stale(root: Path, say=print) -> list[str]:
    """Remove the temporary folders of builds that died (call only while holding the lock)."""
    removed = []
    for path in sorted(root.iterdir()):
        # a link named like one is no build's folder: removing through it would remove its target
        if path.name.startswith((TMP_PREFIX, OLD_PREFIX)) and path.is_dir() and not path.is_symlink():
            removed.append(path.name)
    for name in removed:
        shutil.rmtree(root / name)
    if removed:
        say(M.text("removed_leftovers", count=len(removed), folders=", ".join(removed)))
    return removed


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths (renameat2 with RENAME_EXCHANGE); False where the system cannot."""
    # glibc 2.28 and later have it; older C libraries, other systems do not
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    if renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    # the kernel or the file system cannot exchange: the caller renames twice instead
    if ctypes.get_errno() in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    problem = os.strerror(ctypes.get_errno())
    raise EngineError("swap_failed", a=a.name, b=b.name, problem=problem, site=b.name)


def swap_in(new: Path, site: Path) -> None:
    """Make `new` the site; the previous site/ stays in place if any step fails."""
    # a build that wrote no home page failed, whatever its exit status said
    if not (new / "index.html").is_file():
        raise EngineError("no_index", folder=new.name, site=site.name)
    if site.is_symlink() or (site.exists() and not site.is_dir()):
        raise EngineError("site_not_folder", site=site)
    if not site.exists():
        os.rename(new, site)
    elif _exchange(new, site):
        # `new` now holds the previous site
        shutil.rmtree(new)
    else:
        old = site.parent / f"{OLD_PREFIX}{os.getpid()}"
        os.rename(site, old)
        try:
            os.rename(new, site)
        except OSError as exc:
            # put the previous site back before saying so
            os.rename(old, site)
            raise EngineError("move_failed", site=site.name, problem=exc) from None
        shutil.rmtree(old)


def run_mkdocs(args: list[str]) -> int:
    """`properdocs build ARGS` in this process; its exit status (click ends every run with SystemExit).
    ProperDocs, the maintained continuation of MkDocs 1.x, builds the site (README: the core)."""
    from properdocs.__main__ import cli

    try:
        cli.main(args=["build", "--config-file", "mkdocs.yml", *args], prog_name="properdocs")
    except SystemExit as exc:
        # click ends every run, a good one too, with SystemExit
        return exc.code
    return 0


class Stopped(BaseException):
    """SIGTERM or SIGHUP arrived: unwind (cleaning up) as Ctrl-C does."""


def _stop_on_signal(signum, frame):
    raise Stopped(128 + signum)


def publish(root: Path, site_name: str, mkdocs_args: list[str]) -> int:
    with build_lock(root):
        remove_stale(root)
        # unique: the lock is held, leftovers are gone
        tmp = root / f"{TMP_PREFIX}{os.getpid()}"
        try:
            # with the umask's mode, as site/ should have (mkdtemp would make it private)
            tmp.mkdir()
        except OSError as exc:
            raise unwritable(tmp, exc, site_name) from None
        try:
            status = run_mkdocs(["--site-dir", str(tmp), *mkdocs_args])
            if status != 0:
                print(M.text("build_failed", site=site_name), file=sys.stderr)
                return status
            swap_in(tmp, root / site_name)
        except EngineError as exc:
            print(exc, file=sys.stderr)
            return 1
        except BaseException:
            # Ctrl-C, a signal (Stopped): say what became of site/, then go on unwinding
            print(M.text("build_stopped", site=site_name), file=sys.stderr)
            raise
        finally:
            # after a swap it holds the previous site; after a failure, the half-built one
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"site built: {site_name}/index.html")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m anatomia_engine.publish", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site-dir", default="site", help="the published folder (default: site)")
    # the rest goes to `mkdocs build`
    options, mkdocs_args = parser.parse_known_args(argv)
    # a closed terminal or `kill` unwinds like Ctrl-C: the temporary folder is removed, site/ stays
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _stop_on_signal)
    try:
        return publish(Path.cwd(), options.site_dir, mkdocs_args)
    except Stopped as exc:
        return exc.args[0]
    except EngineError as exc:
        # before the build started: the checkout cannot be written
        print(exc, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
