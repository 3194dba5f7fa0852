"""Static verification of CPython 3.11, 3.12 and 3.13 code objects.

The pre-install check of a bytecode-rewriting compiler::

    import pyverify
    report = pyverify.verify(new_code)      # every check, nested code too
    if not report.ok:
        print(report)                       # clang-style text, like the CLI
    pyverify.install(func, new_code)        # check, then func.__code__ = ...

    with pyverify.guard():                  # any rewriter: every assignment
        func.__code__ = new_code            # to __code__ in the block checked

    import pyverify.dynamo                  # TorchDynamo's bytecode hook
    pyverify.dynamo.install(mode="raise")

verify() reads a live code object as the running interpreter's bytecode
(the module is built for 3.11, and for 3.12 / 3.13 where those interpreters
are found). Bundles (verify_bundle, prove_bundle, dump_bundle) are the
running interpreter's too, and the prover proves them as that version's
bytecode.

See docs/python.md.
"""

import marshal as _marshal
import sys as _sys
import types as _types



def _no_module_message():
    """Why this pyverify has no _pyverify for the running interpreter, and
    what to do: the source tree's python/ first on sys.path, or a build for
    another interpreter (its modules' names say which)."""
    import os
    import re
    import sysconfig
    here = os.path.dirname(os.path.abspath(__file__))
    running = "CPython %d.%d" % _sys.version_info[:2]
    built = sorted(n for n in os.listdir(here)
                   if re.match(r"_pyverify\..*\.(so|pyd)$", n))
    if built:
        tags = sorted({"CPython %s.%s" % m.groups() for n in built
                       for m in [re.search(r"cpython-(\d)(\d+)", n)] if m})
        what = ("the pyverify imported from %s was built for %s (%s), not "
                "for this interpreter (%s, %s: it needs _pyverify%s)"
                % (here, " and ".join(tags) or "another interpreter",
                   ", ".join(built), running, _sys.executable,
                   sysconfig.get_config_var("EXT_SUFFIX")))
    elif os.path.isfile(os.path.join(os.path.dirname(here), "CMakeLists.txt")):
        what = ("the pyverify imported from %s is the source tree, which "
                "has no compiled module: PYTHONPATH (or the current "
                "directory) puts the source's python/ before the built "
                "package" % here)
    else:
        what = "the pyverify imported from %s has no compiled module" % here
    return (
        "pyverify: %s.\nTo import pyverify under %s: put the CMake build's "
        "package for it first on PYTHONPATH (<build>/python when the build's "
        "Python3_EXECUTABLE is this interpreter, <build>/python-%d.%d when "
        "it is another), or install it for this interpreter: "
        "`%s -m pip install <pyverify source>` (docs/python.md, "
        "\"Installing\")."
        % (what, running, *_sys.version_info[:2],
           os.path.basename(_sys.executable)))


try:
    from ._pyverify import Diagnostic, Note, Report, verify
    from ._pyverify import _check_ids, _verify_bundle
except ModuleNotFoundError as _e:
    if _e.name != __name__ + "._pyverify":
        raise
    raise ImportError(_no_module_message(), name=_e.name,
                      path=__file__) from _e

__all__ = [
    "Diagnostic", "Note", "Report", "VerificationError",
    "VerificationWarning", "check", "check_ids", "dump_bundle", "guard",
    "install", "prove_bundle", "verify", "verify_bundle",
]

__version__ = "0.1.0"

BUNDLE_FORMAT = "pyverify-bundle"
BUNDLE_VERSION = 1

# Bundles pair a frame with its resume functions, on every version the
# module is built for: a bundle's code objects are the running
# interpreter's, and dump_bundle() writes its version ("python_version");
# prove_bundle() proves them as that version's bytecode (docs/versions.md).
BUNDLES_SUPPORTED = True


class VerificationError(Exception):
    """A code object has error-severity findings.

    ``str(err)`` is the CLI's text output; ``err.report`` is the Report.
    """

    def __init__(self, report):
        super().__init__(str(report).rstrip("\n"))
        self.report = report

    @property
    def errors(self):
        return self.report.errors


class VerificationWarning(UserWarning):
    """Findings let through by a hook or guard in "warn" mode."""


def check_ids():
    """Every check: a list of (id, default severity, enabled by default,
    summary), in the order of docs/checks.md."""
    return list(_check_ids())


def check(code, *, checks=None, recursive=True):
    """Verifies ``code``; raises VerificationError on any error-severity
    finding. Returns the Report (warnings and remarks included) otherwise."""
    report = verify(code, checks=checks, recursive=recursive)
    if not report.ok:
        raise VerificationError(report)
    return report


def install(func, code, *, checks=None):
    """Checks ``code`` then assigns ``func.__code__ = code``. ``func`` keeps
    its old code when the check fails (VerificationError)."""
    if not isinstance(func, _types.FunctionType):
        raise TypeError("install: func must be a function, not %s"
                        % type(func).__name__)
    if not isinstance(code, _types.CodeType):
        raise TypeError("install: code must be a code object, not %s"
                        % type(code).__name__)
    check(code, checks=checks)
    func.__code__ = code
    return func


def _get(obj, key):
    if isinstance(obj, dict):
        return obj[key]
    return getattr(obj, key)


def _iterable(value, what):
    if isinstance(value, (str, bytes, dict)) or \
            not hasattr(value, "__iter__"):
        raise TypeError("%s must be a list, not %s"
                        % (what, type(value).__name__))
    return value


def _normalise_resumes(resumes):
    out = []
    for i, r in enumerate(_iterable(resumes, "resumes")):
        try:
            code = _get(r, "code")
            offset = _get(r, "original_offset")
            contexts = _get(r, "contexts")
        except (KeyError, AttributeError) as e:
            raise ValueError("resumes[%d]: missing %s" % (i, e)) from None
        ctxs = []
        for j, c in enumerate(_iterable(contexts,
                                        "resumes[%d].contexts" % i)):
            try:
                ctxs.append((_get(c, "kind"), _get(c, "handler"),
                             _get(c, "stack_index")))
            except (KeyError, AttributeError) as e:
                raise ValueError("resumes[%d].contexts[%d]: missing %s"
                                 % (i, j, e)) from None
        out.append((code, offset, ctxs))
    return out


def _bundle_fields(bundle, kwargs):
    """A bundle dict (docs/bundle-format.md), an object with
    to_bundle_dict() (pyverify_rewriter's Rewrite), or keyword arguments."""
    if bundle is not None:
        if kwargs:
            raise TypeError("pass a bundle or keyword arguments, not both")
        d = bundle if isinstance(bundle, dict) else bundle.to_bundle_dict()
        if d.get("format", BUNDLE_FORMAT) != BUNDLE_FORMAT or \
                d.get("version", BUNDLE_VERSION) != BUNDLE_VERSION:
            raise ValueError("not a pyverify bundle v%d" % BUNDLE_VERSION)
        kwargs = {k: v for k, v in d.items()
                  if k in ("original", "frame", "break_offset", "resumes",
                           "expect")}
    unknown = set(kwargs) - {"original", "frame", "break_offset", "resumes",
                             "expect"}
    if unknown:
        raise TypeError("unknown bundle field(s): %s"
                        % ", ".join(sorted(unknown)))
    if "original" not in kwargs:
        raise TypeError("a bundle needs 'original'")
    return (kwargs["original"], kwargs.get("frame"),
            kwargs.get("break_offset", 0),
            list(_iterable(kwargs.get("resumes", ()), "resumes")),
            kwargs.get("expect"))


def verify_bundle(bundle=None, *, checks=None, **fields):
    """Checks a rewriter's output at one graph break, as ``pyverify check``
    does for a .pvb file: every code object, and the resume functions'
    claimed contexts against the original.

    verify_bundle(original=code, frame=code, break_offset=int,
                  resumes=[{"code": code, "original_offset": int,
                            "contexts": [{"kind": "with"|"mode",
                                          "handler": int,
                                          "stack_index": int}]}])
    or verify_bundle(bundle_dict). Returns a Report whose diagnostics carry
    a target ("original", "frame", "resume:<i>")."""
    original, frame, break_offset, resumes, _ = _bundle_fields(bundle, fields)
    return _verify_bundle(original, frame, break_offset,
                          _normalise_resumes(resumes), checks)


def prove_bundle(bundle=None, *, unroll=2, rlimit=2_000_000, timeout=5000,
                 assume_suppress=False, max_steps=1_000_000,
                 max_states=20_000, tracing=True, eval_breaker=True,
                 **fields):
    """Proves a rewriter's output at one graph break, as ``pyverify prove
    --format=json`` does for a .pvb file: for the frame and each resume
    function, well-formed, exactly-once and matches-eager (docs/prove.md).

    Same bundle arguments as verify_bundle. unroll: times each loop back
    edge is taken; rlimit: Z3 resource limit per query; timeout: time limit
    per query in milliseconds; assume_suppress=True drops the assumption
    that ``__exit__`` never suppresses an exception (the CLI's
    ``--no-assume=suppress``); max_steps, max_states: the complexity budget
    per result (the CLI's ``--max-steps``, ``--max-states``), beyond which
    the result is unknown; tracing=False, eval_breaker=False narrow the
    raise tiers exactly-once explores in with bodies (a trace function's
    exception at every instruction, the eval breaker's at back edges; the
    CLI's ``--no-assume=tracing,eval-breaker``).

    Returns the CLI's JSON as Python objects::

        {"results": [{"file", "target", "verdict", "reason", "property",
                      "counterexample", "seconds", "rlimit_used",
                      "assumptions", "paths", "queries", "steps",
                      "states"}, ...],
         "summary": {"bundles": 1, "proved": int, "refuted": int,
                     "unknown": int, "seconds": float}}

    "verdict" is "proved", "refuted" or "unknown"; unknown is never proved.
    The GIL is released while the prover runs. The code objects are the
    running interpreter's, proved as that version's bytecode."""
    # The prover is a module of its own (it loads libz3): imported here, on
    # first use, not by `import pyverify`.
    from ._pyverify_prove import _prove_bundle
    original, frame, break_offset, resumes, _ = _bundle_fields(bundle, fields)
    results = _prove_bundle(original, frame, break_offset,
                            _normalise_resumes(resumes), unroll=int(unroll),
                            rlimit=int(rlimit), timeout=int(timeout),
                            assume_no_suppress=not assume_suppress,
                            max_steps=int(max_steps),
                            max_states=int(max_states),
                            tracing=bool(tracing),
                            eval_breaker=bool(eval_breaker))
    summary = {"bundles": 1}
    for verdict in ("proved", "refuted", "unknown"):
        summary[verdict] = sum(1 for r in results if r["verdict"] == verdict)
    summary["seconds"] = sum(r["seconds"] for r in results)
    return {"results": results, "summary": summary}


def _code(obj):
    return obj if hasattr(obj, "co_code") else obj.__code__


def dump_bundle(path, bundle=None, **fields):
    """Writes a .pvb file (docs/bundle-format.md) that ``pyverify check``
    and ``pyverify prove`` read. Same arguments as verify_bundle, plus an
    optional ``expect``. Returns the number of bytes written. The bundle
    says the running interpreter's version (``python_version``); `pyverify`
    reads its code objects as that version's."""
    original, frame, break_offset, resumes, expect = \
        _bundle_fields(bundle, fields)
    d = {
        "format": BUNDLE_FORMAT,
        "version": BUNDLE_VERSION,
        "python_version": "%d.%d" % _sys.version_info[:2],
        "original": _code(original),
        "frame": None if frame is None else _code(frame),
        "break_offset": int(break_offset),
        "resumes": [
            {"code": _code(code), "original_offset": int(offset),
             "contexts": [{"kind": k, "handler": int(h),
                           "stack_index": int(s)} for k, h, s in ctxs]}
            for code, offset, ctxs in _normalise_resumes(resumes)],
    }
    if expect is not None:
        d["expect"] = str(expect)
    data = _marshal.dumps(d)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


# After VerificationError and VerificationWarning: the guard uses both.
from ._guard import Guard, guard  # noqa: E402
