"""served.EndLikeCtrlC: under `mkdocs serve`, SIGTERM and SIGHUP end the server the way Ctrl-C does
(KeyboardInterrupt, which MkDocs answers by calling on_shutdown), and the handlers are put back."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# Run in a process of its own: a signal sent to the test's own process would end a test worker
# that does not run tests in its main thread.
SCRIPT = textwrap.dedent("""
    import os, signal, sys
    from anatomia_engine.served import EndLikeCtrlC
    number = getattr(signal, sys.argv[1])
    before = signal.getsignal(number)
    ending = EndLikeCtrlC()
    ending.install()
    try:
        os.kill(os.getpid(), number)
        print("not interrupted")
    except KeyboardInterrupt as exc:
        print("interrupted", exc)
    ending.restore()
    print("restored", signal.getsignal(number) == before)
""")


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_the_signal_ends_serving_as_ctrl_c_and_the_handler_is_put_back(name):
    proc = subprocess.run([sys.executable, "-c", SCRIPT, name], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == [f"interrupted {name}", "restored True"]


def test_outside_the_main_thread_nothing_is_installed():
    script = textwrap.dedent("""
        import signal, threading
        from anatomia_engine.served import EndLikeCtrlC
        ending = EndLikeCtrlC()
        thread = threading.Thread(target=ending.install)
        thread.start()
        thread.join()
        print(ending.previous == {}, signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True"]
