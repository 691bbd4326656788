"""CPU seconds of a command and of every process it starts, Chromium's included.

`python tests/bench/cpu.py .venv/bin/pytest -q tests/browser/test_a11y.py` prints user + system
seconds of the whole process tree. Chromium's processes leave pytest's tree (they are reparented
when their parent exits), so `time` does not count them; this process adopts them as a child
subreaper (Linux prctl) and waits for every one, so their CPU is counted too. On a loaded machine
compare these seconds, not wall time.
"""

import ctypes
import os
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def main(command: list[str]) -> int:
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("prctl(PR_SET_CHILD_SUBREAPER) failed: Linux only")
    start = time.monotonic()
    child = os.fork()
    if child == 0:
        os.execvp(command[0], command)
    code = 1
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
    used = os.times()
    print(f"CPU {used.children_user + used.children_system:.1f} s (user {used.children_user:.1f}, "
          f"system {used.children_system:.1f}), wall {time.monotonic() - start:.1f} s, exit {code}",
          file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if sys.argv[1:] else "usage: cpu.py COMMAND [ARG...]")
