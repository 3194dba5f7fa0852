"""pyverify as a TorchDynamo bytecode hook.

    import pyverify.dynamo
    pyverify.dynamo.install(mode="raise")     # every code object Dynamo emits
    ...
    pyverify.dynamo.uninstall()

The contract (torch._dynamo.convert_frame, not torch itself, is what this
module depends on): ``register_bytecode_hook(hook)`` returns a handle with
``remove()``; Dynamo calls ``hook(code, out_code)`` for each code object it
emits, ``code`` the frame's code and ``out_code`` the rewritten one, and a
hook returning None keeps ``out_code``. Dynamo calls the hooks from
``_compile(code, globals, ...)``; the hook finds the frame's globals there
(a caller whose locals hold this ``code`` as ``code`` and a dict as
``globals``), or through ``install(globals_of=...)``.

Each call verifies ``out_code`` with every nested code object. When the
frame loads resume functions (``__resume_at_<offset>_<n>`` globals) and the
globals give their code, the original, the frame and the resume functions
are checked as one bundle (``pyverify.verify_bundle``; with ``prove=True``
also ``pyverify.prove_bundle``). The bundle's claims are derived from the
code (``ResumePairing.h``): the break is the instruction before the resume
offset and the contexts are the original's there, so the claims check is
what the original says, not what Dynamo believed. A frame that uses the
torch-function mode stack is not paired (which contexts are modes is not in
the code): its code objects are verified one by one. docs/python.md has the
details and a worked example.
"""

import collections
import logging
import sys
import warnings

import pyverify
from ._pyverify import _pair_resumes, _resume_globals

__all__ = ["DynamoNotAvailable", "EmittedCodeError", "HookEvent", "Hook",
           "install", "uninstall", "installed"]

log = logging.getLogger("pyverify.dynamo")

MODES = ("raise", "warn", "log")

_installed = None


class DynamoNotAvailable(ImportError):
    """torch._dynamo.convert_frame cannot be imported (or has no
    register_bytecode_hook)."""


class EmittedCodeError(pyverify.VerificationError):
    """A code object Dynamo emitted has an error (mode="raise").
    ``err.event`` is the HookEvent; ``err.report`` its first failing
    Report."""

    def __init__(self, event):
        reports = [r for _, r in event.reports if not r.ok]
        pyverify.VerificationError.__init__(
            self, reports[0] if reports else event.reports[0][1])
        self.args = (event.text(),)
        self.event = event


class HookEvent:
    """What one hook call found.

    code, out_code: the hook's arguments.
    reports: [(label, Report)] -- ("bundle", ...) when paired, otherwise
             ("frame", ...) and one ("resume <global>", ...) per resume
             function the globals give.
    bundle:  the bundle dict checked (verify_bundle's fields), or None.
    unpaired: why no bundle was built (None when paired, or when the frame
             loads no resume function).
    proof:   prove_bundle's result when install(prove=True) and paired.
    """

    def __init__(self, code, out_code):
        self.code = code
        self.out_code = out_code
        self.reports = []
        self.bundle = None
        self.unpaired = None
        self.proof = None

    @property
    def refuted(self):
        """The prover's refuted results (each a dict of prove_bundle)."""
        if not self.proof:
            return []
        return [r for r in self.proof["results"] if r["verdict"] == "refuted"]

    @property
    def ok(self):
        return all(r.ok for _, r in self.reports) and not self.refuted

    def text(self):
        c = self.code
        head = "pyverify: %s (%s:%d)" % (
            getattr(c, "co_qualname", c.co_name), c.co_filename,
            c.co_firstlineno)
        lines = []
        for label, report in self.reports:
            if not report.ok or len(report):
                lines.append("%s [%s]: %s" % (head, label,
                                               "errors" if not report.ok
                                               else "findings"))
                lines.append(str(report).rstrip("\n"))
        for r in self.refuted:
            lines.append("%s [prove %s]: refuted (%s): %s" % (
                head, r["target"], r["property"], r["reason"]))
        if self.unpaired:
            lines.append("%s: not checked as a bundle: %s"
                         % (head, self.unpaired))
        if not lines:
            lines.append("%s: clean" % head)
        return "\n".join(lines)

    def __repr__(self):
        return "<HookEvent %s %s%s>" % (
            self.code.co_name, "ok" if self.ok else "failed",
            "" if self.bundle is None else " bundle")


def _globals_from_callers(code, start):
    """Dynamo's _compile(code, globals, ...) is on the stack when it calls
    the hooks: the globals of the frame whose code is ``code``."""
    f = start
    for _ in range(64):
        if f is None:
            return None
        loc = f.f_locals
        g = loc.get("globals")
        if loc.get("code") is code and isinstance(g, dict):
            return g
        f = f.f_back
    return None


class Hook:
    """The installed hook: ``hook(code, out_code)`` as Dynamo calls it.
    ``events`` holds the latest HookEvents (at most ``max_events``)."""

    def __init__(self, mode, checks, prove, globals_of, max_events):
        self.mode = mode
        self.checks = checks
        self.prove = prove
        self.globals_of = globals_of
        self.events = collections.deque(maxlen=max_events)
        self.handle = None
        self.calls = 0
        self.failures = 0

    def __call__(self, code, out_code):
        self.calls += 1
        if self.globals_of is not None:
            g = self.globals_of(code)
        else:
            g = _globals_from_callers(code, sys._getframe(1))
        event = self.check(code, out_code, g)
        self.events.append(event)
        if event.ok:
            log.debug("%s", event.text())
            return None
        self.failures += 1
        if self.mode == "raise":
            raise EmittedCodeError(event)
        if self.mode == "warn":
            warnings.warn(event.text(), pyverify.VerificationWarning,
                          stacklevel=2)
        else:
            log.error("%s", event.text())
        return None

    def check(self, code, out_code, frame_globals):
        """The HookEvent of one (code, out_code) pair; ``frame_globals`` the
        frame's globals or None."""
        event = HookEvent(code, out_code)
        # The resume functions first (a scan of co_names); the original is
        # analysed for the claims only when every one of them is found.
        resume_codes = {}
        for name in _resume_globals(out_code):
            if frame_globals is None:
                event.unpaired = "the frame's globals were not found"
                break
            rcode = getattr(frame_globals.get(name), "__code__", None)
            if rcode is None:
                event.unpaired = ("%s is not a function in the frame's "
                                  "globals" % name)
                break
            resume_codes[name] = rcode
        if resume_codes and event.unpaired is None:
            try:
                paired = _pair_resumes(code, out_code)
            except ValueError as e:
                event.unpaired = str(e)
            else:
                event.bundle = {
                    "original": code, "frame": out_code,
                    "break_offset": paired["break_offset"],
                    "resumes": [{"code": resume_codes[r["global"]],
                                 "original_offset": r["original_offset"],
                                 "contexts": r["contexts"]}
                                for r in paired["resumes"]]}
        if event.bundle is not None:
            event.reports.append(("bundle", pyverify.verify_bundle(
                event.bundle, checks=self.checks)))
            if self.prove:
                event.proof = pyverify.prove_bundle(event.bundle)
            return event
        event.reports.append(("frame", pyverify.verify(
            out_code, checks=self.checks)))
        # Unpaired: the resume functions the globals give, one by one.
        for name, rcode in resume_codes.items():
            event.reports.append(("resume " + name, pyverify.verify(
                rcode, checks=self.checks)))
        return event


def _dynamo_registry():
    try:
        from torch._dynamo import convert_frame
    except Exception as e:
        raise DynamoNotAvailable(
            "pyverify.dynamo: TorchDynamo is not importable "
            "(torch._dynamo.convert_frame: %s: %s); pass registry= an object "
            "with register_bytecode_hook(hook) to hook another rewriter"
            % (type(e).__name__, e)) from e
    return convert_frame


def install(mode="raise", checks=None, *, prove=False, registry=None,
            globals_of=None, max_events=1000):
    """Registers a hook that verifies every code object Dynamo emits.

    mode: "raise" (EmittedCodeError out of the hook: Dynamo does not install
          the code), "warn" (pyverify.VerificationWarning) or "log" (an
          error on the "pyverify.dynamo" logger).
    checks: as pyverify.verify's.
    prove: also prove each paired bundle (pyverify.prove_bundle); a refuted
          property fails the event, unknown does not (it is in
          event.proof).
    registry: what has register_bytecode_hook (default
          torch._dynamo.convert_frame; DynamoNotAvailable when torch is not
          importable).
    globals_of: callable(code) -> the frame's globals dict or None, instead
          of finding them on the caller's stack.
    Replaces a hook installed before. Returns the Hook (its ``events``
    list the latest results)."""
    global _installed
    if mode not in MODES:
        raise ValueError("mode must be one of %s, not %r"
                         % (", ".join(repr(m) for m in MODES), mode))
    if globals_of is not None and not callable(globals_of):
        raise TypeError("globals_of must be callable, not %s"
                        % type(globals_of).__name__)
    # A bad checks spec is an error now, not at the first compiled frame.
    pyverify.verify(install.__code__, checks=checks, recursive=False)
    if registry is None:
        registry = _dynamo_registry()
    register = getattr(registry, "register_bytecode_hook", None)
    if register is None:
        raise DynamoNotAvailable("pyverify.dynamo: %r has no "
                                 "register_bytecode_hook" % (registry,))
    uninstall()
    hook = Hook(mode, checks, bool(prove), globals_of, int(max_events))
    hook.handle = register(hook)
    if not hasattr(hook.handle, "remove"):
        raise TypeError("register_bytecode_hook returned %r, which has no "
                        "remove()" % (hook.handle,))
    _installed = hook
    return hook


def uninstall():
    """Removes the installed hook. Returns whether one was installed."""
    global _installed
    hook, _installed = _installed, None
    if hook is None:
        return False
    hook.handle.remove()
    return True


def installed():
    """The installed Hook, or None."""
    return _installed
