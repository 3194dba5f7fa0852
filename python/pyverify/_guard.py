"""pyverify.guard(): check every assignment to a function's ``__code__``.

For any rewriter that installs code by assigning ``func.__code__``::

    with pyverify.guard():            # every function, inside the block
        func.__code__ = new_code      # VerificationError: func keeps its code

    g = pyverify.guard(func)          # only func, until g.close()

CPython 3.11 raises the audit event ``object.__setattr__`` (obj, "__code__",
value) before it assigns a function's code (funcobject.c, func_set_code);
an exception raised by an audit hook aborts the assignment. The guard adds
one audit hook to the process (audit hooks cannot be removed: it does
nothing while no guard is active) and checks each assignment made while a
guard is active, in any thread.
"""

import sys
import threading
import types
import warnings

import pyverify

__all__ = ["Guard", "guard"]

_lock = threading.Lock()
_active = []          # the active Guards, oldest first
_hook_added = False
_local = threading.local()


def _audit(event, args):
    if event != "object.__setattr__" or not _active:
        return
    obj, name, value = args
    if name != "__code__" or not isinstance(obj, types.FunctionType):
        return
    if getattr(_local, "busy", False):  # verify() itself assigns nothing,
        return                          # but a check must not re-enter
    for g in list(_active):
        if g._applies(obj):
            _local.busy = True
            try:
                g._check(obj, value)
            finally:
                _local.busy = False


class Guard:
    """An active guard: a context manager, or close() it."""

    def __init__(self, funcs, checks, mode):
        self.funcs = funcs        # None: every function
        self.checks = checks
        self.mode = mode
        self.checked = 0          # assignments checked
        self.failures = []        # (function, Report) of failing ones
        self.closed = False

    def _applies(self, func):
        return self.funcs is None or any(func is f for f in self.funcs)

    def _check(self, func, code):
        self.checked += 1
        if not isinstance(code, types.CodeType):
            return  # CPython raises its own TypeError
        report = pyverify.verify(code, checks=self.checks)
        if report.ok:
            return
        self.failures.append((func, report))
        msg = "%s.__code__ = <code %s>: %s" % (
            func.__qualname__, code.co_name, str(report).rstrip("\n"))
        if self.mode == "raise":
            err = pyverify.VerificationError(report)
            err.args = (msg,)
            raise err
        warnings.warn(msg, pyverify.VerificationWarning, stacklevel=3)

    def close(self):
        """Stops checking (idempotent)."""
        with _lock:
            if not self.closed:
                self.closed = True
                _active.remove(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return "<pyverify.Guard %s, %d checked, %d failed%s>" % (
            "every function" if self.funcs is None else
            ", ".join(f.__qualname__ for f in self.funcs),
            self.checked, len(self.failures), ", closed" if self.closed else "")


def guard(*funcs, checks=None, mode="raise"):
    """Starts checking assignments to ``__code__``: of ``funcs`` (functions)
    or, with none given, of every function. Each new code object is verified
    with its nested code (``checks`` as pyverify.verify's); on an error,
    mode="raise" raises VerificationError and the function keeps its code,
    mode="warn" warns (pyverify.VerificationWarning) and lets it through.
    Active from the call until close() or the end of its ``with`` block."""
    global _hook_added
    if mode not in ("raise", "warn"):
        raise ValueError("mode must be 'raise' or 'warn', not %r" % (mode,))
    for i, f in enumerate(funcs):
        if not isinstance(f, types.FunctionType):
            raise TypeError("guard: argument %d must be a function, not %s"
                            % (i, type(f).__name__))
    # A bad spec fails here, not at the first assignment.
    pyverify.verify(guard.__code__, checks=checks, recursive=False)
    g = Guard(tuple(funcs) or None, checks, mode)
    with _lock:
        if not _hook_added:
            sys.addaudithook(_audit)
            _hook_added = True
        _active.append(g)
    return g
