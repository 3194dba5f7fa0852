"""Make the eval breaker raise at a loop's back edge, with or without threads.

check_back_edge.py and check_raise_tiers.py interrupt a loop whose only
eval-breaker check is its back edge. Natively another thread does it
(_thread.interrupt_main(), PyThreadState_SetAsyncExc). Pyodide's CPython (the
3.14 / 3.15 oracles: scripts/pyodide/python.mjs) has no threads, so there
the interrupt comes from Pyodide's interrupt buffer instead: at an
eval-breaker check (the same CHECK_EVAL_BREAKER the back edge runs; every
fiftieth or so, _Py_CHECK_EMSCRIPTEN_SIGNALS_PERIODICALLY) the interpreter
reads a JavaScript Int32Array and, when it holds a signal number, trips
that signal, whose Python handler then runs at that check as any signal
handler does (tier 2: what _thread.interrupt_main() does from a thread).
The handler raises only when the interrupted frame runs \\p code at one of
its backward jumps, and otherwise re-arms the buffer with a subscript store
(no call: a call's own eval-breaker check would run the handler inside
itself) -- so the other checks on the way into the loop (RESUME, the with's
CALLs) do not take the interrupt.
"""
import dis
import signal
import sys

THREADS = sys.platform != "emscripten"


def back_edges(code):
    return {i.offset for i in dis.get_instructions(code)
            if "BACKWARD" in i.opname and "NO_INTERRUPT" not in i.opname}


def interrupt_back_edge(call, code, exc=KeyboardInterrupt):
    """Runs call() with the signal armed; \\p exc is raised by the eval breaker
    at a back edge of \\p code. Returns what call() returned, or raises."""
    import pyodide_js  # noqa: F401  (only inside Pyodide)
    from js import Int32Array
    jumps = back_edges(code)
    buf = Int32Array.new(1)
    pyodide_js.setInterruptBuffer(buf)

    def handler(signum, frame):
        if frame.f_code is code and frame.f_lasti in jumps:
            raise exc
        buf[0] = signal.SIGINT

    old = signal.signal(signal.SIGINT, handler)
    buf[0] = signal.SIGINT
    try:
        return call()
    finally:
        buf[0] = 0
        signal.signal(signal.SIGINT, old)
