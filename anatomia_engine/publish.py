"""`make docs`: build the site into a fresh folder and swap it in only when the build succeeds.

    python -m anatomia_engine.publish [--site-dir site] [mkdocs build options ...]

- One build of a checkout at a time: an exclusive POSIX lock (`lockf`) on `.site.lock` in the
  project root, held for the whole build. The kernel drops it when the process ends, however
  it ends (even by SIGKILL), so a dead build never blocks the next one; unlike `flock`, the
  lock is not inherited by forked children, so a worker that outlives the build holds nothing.
  A second `make docs` waits, saying for which process, then builds after it (the
  computation cache is warm by then).
- Each build writes into its own folder, `.site.tmp.<pid>.<random>`, next to `site/` (same
  file system, so the swap is a rename). MkDocs runs in this process, so killing the build
  also stops the writing: nothing outlives it but its folder.
- Ctrl-C, SIGTERM and SIGHUP unwind the build and remove its folder at once. Folders of
  builds that died harder (SIGKILL, power loss: `.site.tmp.*`, `.site.old.*`) are removed by
  the next build, once it holds the lock: then no other build of this checkout can be running.
- The swap: the new folder must contain `index.html`; then `site/` and the new folder are
  exchanged in one atomic step (Linux `renameat2(RENAME_EXCHANGE)`), so `site/` is never
  missing, not even for a moment, and the old site is removed. Where that call does not exist,
  two checked renames (`site` -> `.site.old.*`, new -> `site`), the first undone if the second
  fails. Whatever fails, the last good `site/` stays and the exit status is not 0.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

LOCK_NAME = ".site.lock"
TMP_PREFIX = ".site.tmp."
OLD_PREFIX = ".site.old."
LEGACY = {".site.tmp", ".site.old"}   # the fixed names earlier versions of `make docs` used


class PublishError(Exception):
    """A step of the swap failed; the message says which and what state site/ is in."""


@contextlib.contextmanager
def build_lock(root: Path, say=print) -> Iterator[None]:
    """Hold the checkout's build lock (blocking); tell the user when another build has it."""
    path = root / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EACCES, errno.EAGAIN):
                raise
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            say(f"another build of this checkout is running (process {holder}); waiting for it "
                f"to finish ({LOCK_NAME})")
            fcntl.lockf(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)   # closing the descriptor releases the lock


def remove_stale(root: Path, say=print) -> list[str]:
    """Remove the temporary folders of builds that died (call only while holding the lock)."""
    removed = []
    for entry in sorted(root.iterdir()):
        stale = entry.name.startswith((TMP_PREFIX, OLD_PREFIX)) or entry.name in LEGACY
        if stale and not entry.is_symlink():
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            removed.append(entry.name)
    if removed:
        say(f"removed {len(removed)} folder(s) left by an interrupted build: {', '.join(removed)}")
    return removed


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically exchange two paths (Linux renameat2); False when the system cannot."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):   # no such call, or not on this file system
        return False
    raise PublishError(f"swapping {a.name} and {b.name} failed: {os.strerror(err)}; "
                       f"{b.name}/ was left as it was")


def swap_in(new: Path, site: Path) -> None:
    """Make `new` the site; the previous site/ stays in place if any step fails."""
    if not (new / "index.html").is_file():
        raise PublishError(f"the build wrote no index.html into {new.name}; {site.name}/ was left as it was")
    if site.is_symlink() or (site.exists() and not site.is_dir()):
        raise PublishError(f"{site} is not a folder; remove it, then build again")
    if not site.exists():
        os.rename(new, site)   # raises if something appeared meanwhile; site/ then stays as it is
        return
    if _exchange(new, site):
        shutil.rmtree(new)     # `new` now holds the previous site
        return
    old = Path(tempfile.mkdtemp(prefix=OLD_PREFIX, dir=site.parent))
    os.rmdir(old)
    os.rename(site, old)
    try:
        os.rename(new, site)
    except OSError as exc:
        os.rename(old, site)
        raise PublishError(f"moving the new build into {site.name}/ failed ({exc}); "
                           f"{site.name}/ was left as it was") from None
    shutil.rmtree(old)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def run_mkdocs(args: list[str]) -> int:
    """`mkdocs build ARGS` in this process; its exit status."""
    from mkdocs.__main__ import cli

    try:
        cli.main(args=["build", *args], prog_name="mkdocs", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


class Stopped(BaseException):
    """SIGTERM or SIGHUP arrived: unwind (cleaning up) like Ctrl-C does."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by signal {signum}")
        self.status = 128 + signum


def _stop_on_signal(signum, frame):
    raise Stopped(signum)


def publish(root: Path, site_name: str, mkdocs_args: list[str], say=print, err=None) -> int:
    err = err or (lambda text: print(text, file=sys.stderr))
    site = root / site_name
    with build_lock(root, say):
        remove_stale(root, say)
        tmp = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{os.getpid()}.", dir=root))
        os.chmod(tmp, 0o777 & ~_umask())   # mkdtemp makes it private; site/ is for everyone
        try:
            status = run_mkdocs(["--site-dir", str(tmp), *mkdocs_args])
            if status != 0:
                err(f"build failed; {site_name}/ was left as it was")
                return status
            swap_in(tmp, site)
        except PublishError as exc:
            err(str(exc))
            return 1
        except BaseException:
            err(f"build stopped; {site_name}/ was left as it was")
            raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    say(f"site built: {site_name}/index.html")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m anatomia_engine.publish", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site-dir", default="site", help="the published folder (default: site)")
    options, mkdocs_args = parser.parse_known_args(argv)   # the rest goes to `mkdocs build`
    if Path(options.site_dir).name != options.site_dir:
        parser.error("--site-dir is a folder name in the project root, e.g. site")
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _stop_on_signal)   # clean up like Ctrl-C does
    try:
        return publish(Path.cwd(), options.site_dir, mkdocs_args)
    except Stopped as exc:
        return exc.status


if __name__ == "__main__":
    sys.exit(main())
