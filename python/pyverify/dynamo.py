"""pyverify as a TorchDynamo bytecode hook.

    import pyverify.dynamo
    pyverify.dynamo.install(mode="raise")     # every code object Dynamo emits
    ...
    pyverify.dynamo.uninstall()

or, without editing the program, ``PYVERIFY_DYNAMO=raise|warn|log`` (the
installed package's ``pyverify_dynamo.pth``, pyverify/_autoload.py).

What torch calls (docs/python.md, "TorchDynamo"):

* ``torch._dynamo.convert_frame.register_bytecode_hook(hook)`` returns a
  handle with ``remove()``; ``_compile(code, globals, ...)`` calls
  ``hook(code, out_code)`` for each code object it emits (the frame's
  ``code``, the rewritten ``out_code``). The hook finds the frame's globals
  on the caller's stack (``install(globals_of=...)`` otherwise).
* ``torch._dynamo.resume_execution.ContinueExecutionCache.generate`` (when
  importable) is wrapped: for every resume function Dynamo generates, the
  hook records Dynamo's claims -- the original code, the resume offset, per
  block the handler offset (``setup_fn_target_offsets``) and the slot
  (``ReenterWith.stack_index``), and which blocks are torch-function modes
  (the calling InstructionTranslator's ``block_stack``, a
  ``TorchFunctionModeVariable`` entry) -- and verifies the resume function
  against them at once (also one that is never traced).

A frame whose resume functions were all seen by ``generate`` is checked as
one bundle with those claims (``verify_bundle``; ``prove_bundle`` with
``install(prove=True)``); the claims are checked against the code, never
taken as true. Other frames are paired from the code alone (ResumePairing.h;
not one that uses the torch-function mode stack), else verified one code
object at a time.

A failure raises EmittedCodeError (mode="raise"), which Dynamo's _compile
re-raises as ``InternalTorchDynamoError("EmittedCodeError: pyverify: ...")
from None``: the HookEvent is ``hook.events[-1]`` and
``err.__context__.event``.
"""

import collections
import importlib
import inspect
import logging
import os
import re
import sys
import warnings
import weakref

import pyverify
from ._pyverify import _pair_resume_offsets, _pair_resumes, _resume_globals

__all__ = ["DynamoNotAvailable", "EmittedCodeError", "HookEvent", "Hook",
           "ProveNotAvailable", "install", "uninstall", "installed"]

log = logging.getLogger("pyverify.dynamo")

MODES = ("raise", "warn", "log")
DUMP_DIR_ENV = "PYVERIFY_DUMP_DIR"

_installed = None


class DynamoNotAvailable(ImportError):
    """torch._dynamo.convert_frame cannot be imported (or has no
    register_bytecode_hook)."""


class ProveNotAvailable(ImportError):
    """install(prove=True) where the prover cannot be loaded for the
    running interpreter."""


class EmittedCodeError(pyverify.VerificationError):
    """A code object Dynamo emitted has an error (mode="raise").
    ``err.event`` is the HookEvent; ``err.report`` its first failing
    Report. Its message starts "pyverify: <check ids> in <function>"."""

    def __init__(self, event):
        reports = [r for _, r in event.reports if not r.ok]
        pyverify.VerificationError.__init__(
            self, reports[0] if reports else event.reports[0][1])
        self.args = (event.summary() + "\n" + event.text(),)
        self.event = event


def _qualname(code):
    return getattr(code, "co_qualname", code.co_name)


class HookEvent:
    """What one check found.

    source:  "bytecode_hook" (Dynamo's hook call: code the frame's original,
             out_code the rewritten frame) or "generate" (a resume function
             ContinueExecutionCache.generate made: code the original,
             out_code the resume function).
    reports: [(label, Report)] -- ("bundle", ...) when paired, otherwise
             ("frame", ...) and one ("resume <global>", ...) per resume
             function the globals give.
    bundle:  the bundle dict checked (verify_bundle's fields), or None.
    claims:  where the bundle's claims come from: "generate" (Dynamo's
             record), "code" (derived from the code), or None.
    unpaired: why no bundle was built (None when paired, or when the frame
             loads no resume function).
    proof:   prove_bundle's result when install(prove=True) and paired.
    dumped:  the .pvb file written (PYVERIFY_DUMP_DIR), or None.
    """

    def __init__(self, code, out_code, source="bytecode_hook"):
        self.code = code
        self.out_code = out_code
        self.source = source
        self.reports = []
        self.bundle = None
        self.claims = None
        self.unpaired = None
        self.proof = None
        self.dumped = None

    @property
    def refuted(self):
        """The prover's refuted results (each a dict of prove_bundle)."""
        if not self.proof:
            return []
        return [r for r in self.proof["results"] if r["verdict"] == "refuted"]

    @property
    def ok(self):
        return all(r.ok for _, r in self.reports) and not self.refuted

    @property
    def check_ids(self):
        """The ids of the errors, and "prove:<property>" per refutation."""
        ids = {d.check for _, r in self.reports for d in r
               if d.severity == "error"}
        ids.update("prove:" + r["property"] for r in self.refuted)
        return sorted(ids)

    def summary(self):
        """One line: pyverify, the check ids, the function, where."""
        c = self.code
        what = "the resume function TorchDynamo generated" \
            if self.source == "generate" else \
            "the code TorchDynamo emitted"
        line = "pyverify: %s in %s for %s (%s:%d)" % (
            ", ".join(self.check_ids) or "errors", what, _qualname(c),
            c.co_filename, c.co_firstlineno)
        if self.dumped:
            line += "; bundle written to %s (pyverify check %s)" % (
                self.dumped, self.dumped)
        return line

    def text(self):
        c = self.code
        head = "pyverify: %s (%s:%d)" % (_qualname(c), c.co_filename,
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
        return "<HookEvent %s %s %s%s>" % (
            self.source, self.code.co_name, "ok" if self.ok else "failed",
            "" if self.bundle is None else " bundle")


def _globals_from_callers(code, start):
    """Dynamo's _compile(code, globals, ...) is on the stack when it calls
    the hooks: the globals of the frame whose code is ``code``."""
    f = start
    for _ in range(64):
        if f is None:
            return None
        names = f.f_code.co_varnames
        if "code" in names and "globals" in names:  # f_locals only then
            loc = f.f_locals
            g = loc.get("globals")
            if loc.get("code") is code and isinstance(g, dict):
                return g
        f = f.f_back
    return None


def _block_stack_kinds(setup_fns, mode_class, start):
    """Which of generate's ``setup_fns`` are torch-function modes: the
    InstructionTranslator calling it (a caller whose ``self`` has a
    ``block_stack`` giving exactly these ReenterWith objects, as
    create_call_resume_at passes them) says so by its entries'
    ``with_context``. None when no such caller is found."""
    f = start
    for _ in range(16):
        if f is None:
            return None
        c = f.f_code
        tx = f.f_locals.get("self") if c.co_argcount and \
            c.co_varnames[0] == "self" else None  # a method's frame only
        stack = getattr(tx, "block_stack", None)
        if isinstance(stack, list) and len(stack) == len(setup_fns):
            try:
                same = all(b.resume_fn() == fn
                           for b, fn in zip(stack, setup_fns))
            except Exception:
                same = False
            if same:
                return ["mode" if mode_class is not None and
                        isinstance(b.with_context, mode_class) else "with"
                        for b in stack]
        f = f.f_back
    return None


class _Claim:
    """Dynamo's record of one resume function (generate's arguments)."""

    def __init__(self, original, offset, handlers, setup_fns, kinds):
        self._original = weakref.ref(original)  # Dynamo's cache is weak too
        self.offset = offset
        self.kinds_known = kinds is not None
        kinds = kinds or ["with"] * len(setup_fns)
        self.contexts = [{"kind": k, "handler": int(h),
                          "stack_index": int(fn.stack_index)}
                         for k, h, fn in zip(kinds, handlers, setup_fns)]

    @property
    def original(self):
        return self._original()


class _GenerateTap:
    """ContinueExecutionCache.generate wrapped (install(); removed by
    uninstall()). Binds the arguments by name, so that every signature
    from torch 2.1 on (offset / resume_offset, setup_fn_target_offsets,
    setup_fns, ...) is read the same way."""

    def __init__(self, hook, cache_cls, mode_class):
        self.hook = hook
        self.cls = cache_cls
        self.mode_class = mode_class
        self.saved = cache_cls.__dict__.get("generate")
        func = getattr(cache_cls.generate, "__func__", cache_cls.generate)
        self.signature = inspect.signature(func)
        # id(resume code) -> (weak reference to it, [_Claim]); an entry
        # goes with its code object
        self.claims = {}
        tap = self

        def generate(cls, *args, **kwargs):
            new_code = func(cls, *args, **kwargs)
            tap.seen(cls, new_code, args, kwargs, sys._getframe(1))
            return new_code
        generate.__wrapped__ = func
        cache_cls.generate = classmethod(generate)

    def remove(self):
        if self.saved is not None:
            self.cls.generate = self.saved
        else:
            del self.cls.generate

    def claim(self, args, kwargs, caller):
        try:
            a = self.signature.bind(None, *args, **kwargs).arguments
        except TypeError as e:  # not generate's arguments: no claims
            log.debug("ContinueExecutionCache.generate: %s", e)
            return None
        offset = a.get("resume_offset", a.get("offset"))
        handlers = a.get("setup_fn_target_offsets")
        setup_fns = tuple(a.get("setup_fns") or ())
        if offset is None or handlers is None or \
                len(handlers) != len(setup_fns):
            return None
        kinds = _block_stack_kinds(setup_fns, self.mode_class, caller)
        return _Claim(a["code"], int(offset), handlers, setup_fns, kinds)

    def seen(self, cls, new_code, args, kwargs, caller):
        claim = self.claim(args, kwargs, caller)
        if claim is None:
            return
        key = id(new_code)
        entry = self.claims.get(key)
        if entry is None or entry[0]() is not new_code:
            entry = self.claims[key] = (weakref.ref(
                new_code, lambda _, k=key: self.claims.pop(k, None)), [])
        first = not entry[1]
        if all(c.original is not claim.original for c in entry[1]):
            entry[1].append(claim)
        if first:  # the innermost call: the original is Dynamo's original
            self.hook.generated(claim, new_code)

    def lookup(self, code, original):
        """The claim of resume function ``code`` against ``original``."""
        entry = self.claims.get(id(code))
        if entry is None or entry[0]() is not code:
            return None
        return next((c for c in entry[1] if c.original is original), None)


def _safe_name(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._") or "code"


class Hook:
    """The installed hook: ``hook(code, out_code)`` as Dynamo calls it.
    ``events`` holds the latest HookEvents (at most ``max_events``)."""

    def __init__(self, mode, checks, prove, globals_of, max_events,
                 dump_dir=None):
        self.mode = mode
        self.checks = checks
        self.prove = prove
        self.globals_of = globals_of
        self.dump_dir = dump_dir
        self.events = collections.deque(maxlen=max_events)
        self.handle = None
        self.tap = None
        self.calls = 0
        self.failures = 0

    def __call__(self, code, out_code):
        self.calls += 1
        if self.globals_of is not None:
            g = self.globals_of(code)
        else:
            g = _globals_from_callers(code, sys._getframe(1))
        self.report(self.check(code, out_code, g))
        return None

    def report(self, event):
        """Records ``event``; on a failure dumps it and raises, warns or
        logs as the mode says."""
        self.events.append(event)
        if event.ok:
            log.debug("%s", event.text())
            return
        self.failures += 1
        if self.dump_dir:
            self.dump(event)
        if self.mode == "raise":
            raise EmittedCodeError(event)
        text = event.summary() + "\n" + event.text()
        if self.mode == "warn":
            warnings.warn(text, pyverify.VerificationWarning, stacklevel=3)
        else:
            log.error("%s", text)

    def dump(self, event):
        """Writes the event's bundle to the dump directory as
        <qualname>-<break offset>.pvb (-resume for a generate event; -2,
        -3, ... rather than overwrite). Not paired: nothing written."""
        if event.bundle is None:
            return None
        stem = "%s-%d%s" % (_safe_name(_qualname(event.code)),
                            event.bundle["break_offset"],
                            "-resume" if event.source == "generate" else "")
        os.makedirs(self.dump_dir, exist_ok=True)
        for n in range(1, 10000):
            path = os.path.join(self.dump_dir, stem + (
                "" if n == 1 else "-%d" % n) + ".pvb")
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                continue
            pyverify.dump_bundle(path, event.bundle)
            event.dumped = path
            return path
        return None

    def generated(self, claim, resume_code):
        """A resume function generate made: verified against the claims
        at once, with the original (a bundle without a frame)."""
        event = HookEvent(claim.original, resume_code, source="generate")
        try:
            # Claims whose kinds are guessed ("with" for every block) are
            # not checked as Dynamo's, as in bundle_from_claims.
            if not claim.kinds_known:
                raise ValueError("which of its contexts are torch-function "
                                 "modes is not known (no block stack found "
                                 "in generate's callers)")
            paired = _pair_resume_offsets(claim.original, [claim.offset])
        except ValueError as e:
            event.unpaired = str(e)
            event.reports.append(("resume", pyverify.verify(
                resume_code, checks=self.checks)))
        else:
            event.claims = "generate"
            event.bundle = {
                "original": claim.original, "frame": None,
                "break_offset": paired["break_offset"],
                "resumes": [{"code": resume_code,
                             "original_offset": claim.offset,
                             "contexts": claim.contexts}]}
            event.reports.append(("bundle", pyverify.verify_bundle(
                event.bundle, checks=self.checks)))
        self.report(event)

    def bundle_from_claims(self, code, out_code, resume_codes):
        """The frame's bundle with generate's claims, or None when one of
        its resume functions has none (or not whose modes are known)."""
        if self.tap is None or not resume_codes:
            return None
        claims = [self.tap.lookup(c, code) for c in resume_codes.values()]
        if any(c is None or not c.kinds_known for c in claims):
            return None
        paired = _pair_resume_offsets(code, [c.offset for c in claims])
        return {"original": code, "frame": out_code,
                "break_offset": paired["break_offset"],
                "resumes": [{"code": rcode, "original_offset": c.offset,
                             "contexts": c.contexts}
                            for rcode, c in zip(resume_codes.values(),
                                                claims)]}

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
                event.bundle = self.bundle_from_claims(code, out_code,
                                                       resume_codes)
                if event.bundle is not None:
                    event.claims = "generate"
                else:
                    event.bundle = self.bundle_from_code(code, out_code,
                                                         resume_codes)
                    event.claims = "code"
            except ValueError as e:
                event.unpaired = str(e)
                if self.tap is None:
                    event.unpaired += " (ContinueExecutionCache.generate " \
                        "is not hooked)"
        if event.bundle is not None:
            event.reports.append(("bundle", pyverify.verify_bundle(
                event.bundle, checks=self.checks)))
            if self.prove:
                event.proof = pyverify.prove_bundle(event.bundle)
            return event
        event.claims = None
        event.reports.append(("frame", pyverify.verify(
            out_code, checks=self.checks)))
        # Unpaired: the resume functions the globals give, one by one.
        for name, rcode in resume_codes.items():
            event.reports.append(("resume " + name, pyverify.verify(
                rcode, checks=self.checks)))
        return event

    @staticmethod
    def bundle_from_code(code, out_code, resume_codes):
        paired = _pair_resumes(code, out_code)
        return {"original": code, "frame": out_code,
                "break_offset": paired["break_offset"],
                "resumes": [{"code": resume_codes[r["global"]],
                             "original_offset": r["original_offset"],
                             "contexts": r["contexts"]}
                            for r in paired["resumes"]]}


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


def _import(name):
    try:
        return importlib.import_module(name)
    except Exception:
        return None


def _mode_class(resume_execution):
    """TorchFunctionModeVariable beside the resume_execution module
    (torch/_dynamo/variables/torch_function.py), or None (a torch without
    it has no modes on its block stack)."""
    cls = getattr(resume_execution, "TorchFunctionModeVariable", None)
    if cls is None:
        package = getattr(resume_execution, "__name__", "").rpartition(".")[0]
        module = _import(package + ".variables.torch_function") \
            if package else None
        cls = getattr(module, "TorchFunctionModeVariable", None)
    return cls if isinstance(cls, type) else None


def _check_prover():
    try:
        import pyverify._pyverify_prove  # noqa: F401
    except ImportError as e:
        raise ProveNotAvailable(
            "pyverify.dynamo.install(prove=True): the prover is not available "
            "for Python %d.%d (pyverify._pyverify_prove: %s); "
            "install(prove=False) verifies without proving"
            % (sys.version_info[:2] + (e,))) from e


def install(mode="raise", checks=None, *, prove=False, registry=None,
            resume_execution=None, globals_of=None, max_events=1000,
            dump_dir=None):
    """Registers a hook that verifies every code object Dynamo emits.

    mode: "raise" (EmittedCodeError out of the hook: Dynamo does not install
          the code; _compile re-raises it as InternalTorchDynamoError),
          "warn" (pyverify.VerificationWarning) or "log" (an error on the
          "pyverify.dynamo" logger).
    checks: as pyverify.verify's.
    prove: also prove each paired bundle (pyverify.prove_bundle); a refuted
          property fails the event, unknown does not (it is in
          event.proof). ProveNotAvailable now when the prover cannot be
          loaded for this interpreter.
    registry: what has register_bytecode_hook (default
          torch._dynamo.convert_frame; DynamoNotAvailable when torch is not
          importable).
    resume_execution: what has ContinueExecutionCache, whose generate is
          wrapped for the claims (default, with the default registry:
          torch._dynamo.resume_execution when importable; with another
          registry: none).
    globals_of: callable(code) -> the frame's globals dict or None, instead
          of finding them on the caller's stack.
    dump_dir: a directory for a .pvb per failing paired check (default
          $PYVERIFY_DUMP_DIR; "" for none).
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
    if prove:
        _check_prover()
    if registry is None:
        registry = _dynamo_registry()
        if resume_execution is None:
            resume_execution = _import("torch._dynamo.resume_execution")
    register = getattr(registry, "register_bytecode_hook", None)
    if register is None:
        raise DynamoNotAvailable("pyverify.dynamo: %r has no "
                                 "register_bytecode_hook" % (registry,))
    cache_cls = getattr(resume_execution, "ContinueExecutionCache", None)
    if resume_execution is not None and cache_cls is None:
        raise DynamoNotAvailable("pyverify.dynamo: %r has no "
                                 "ContinueExecutionCache" % (resume_execution,))
    if dump_dir is None:
        dump_dir = os.environ.get(DUMP_DIR_ENV) or None
    uninstall()
    hook = Hook(mode, checks, bool(prove), globals_of, int(max_events),
                dump_dir or None)
    hook.handle = register(hook)
    if not hasattr(hook.handle, "remove"):
        raise TypeError("register_bytecode_hook returned %r, which has no "
                        "remove()" % (hook.handle,))
    if cache_cls is not None:
        hook.tap = _GenerateTap(hook, cache_cls,
                                _mode_class(resume_execution))
    _installed = hook
    return hook


def uninstall():
    """Removes the installed hook (and the generate wrapper). Returns
    whether one was installed."""
    global _installed
    hook, _installed = _installed, None
    if hook is None:
        return False
    hook.handle.remove()
    if hook.tap is not None:
        hook.tap.remove()
    return True


def installed():
    """The installed Hook, or None."""
    return _installed
