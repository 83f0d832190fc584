"""Library calls that Ctrl-C stops within a step.

The call runs in a thread of its own (ctypes lets the interpreter go);
the caller's thread waits where Python sees the signal and raises the
library's interrupt flag, which every step of a solve or a sweep looks
at; the caller then waits for the call to return before it frees what
the call was using.

The wait is on an Event the worker sets, never on Thread.join: in
Python 3.11 a join interrupted by KeyboardInterrupt marks the thread
stopped while it still runs (bpo-45274's fix releases the thread's own
lock), so a second join returned at once and the caller freed the
analysis under the running solve: a segfault at exit, with the output
lost, in CI (SIGINT 0.4-0.7 s into a 10^5-state exploration: 3 of 3
runs crashed).  The thread is started with _thread, whose start does not
wait, so a Ctrl-C cannot land between starting it and watching it.
"""
import _thread
import threading


def _wait_through_interrupts(done):
    while True:
        try:
            done.wait()
            return
        except KeyboardInterrupt:
            continue        # the flag is up: the call ends within a step


def call(fn, stop):
    """fn() with the interrupt flag stop (a ctypes c_int): its value,
    or the exception it raised, raised here; KeyboardInterrupt raises
    stop, waits for fn to return, and is raised again."""
    out = {}
    done = threading.Event()

    def work():
        try:
            out["value"] = fn()
        except BaseException as e:      # raised in the caller's thread
            out["exc"] = e
        finally:
            done.set()
    _thread.start_new_thread(work, ())
    try:
        while not done.wait(0.05):
            pass
    except KeyboardInterrupt:
        stop.value = 1
        _wait_through_interrupts(done)
        raise
    if "exc" in out:
        raise out["exc"]
    return out["value"]
