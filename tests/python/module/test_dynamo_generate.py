"""pyverify.dynamo against the TorchDynamo stand-in laid out as a
``torch._dynamo`` package (dynamo_contract.fake_torch): install() with its
defaults finds it as it would find torch, wraps
ContinueExecutionCache.generate for Dynamo's claims, and pairs the frames
that use the torch-function mode stack.

The oracle for a paired bundle is `pyverify check` (PYVERIFY_CLI) on the
rewriter's bundle of the same rewrite: the hook's check ids must be the
CLI's."""

import gc
import json
import logging
import os
import subprocess
import sys
import warnings
import weakref

import pytest

import pyverify
import pyverify.dynamo as pd

pyverify_rewriter = pytest.importorskip("pyverify_rewriter")
import dynamo_contract as dc  # noqa: E402
from pyverify_rewriter.cli import DEFAULT_CASES, _load_cases  # noqa: E402
from pyverify_rewriter.rewriter import reset_counter  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = _load_cases(DEFAULT_CASES)


def _purge_torch():
    for name in list(sys.modules):
        if name == "torch" or name.startswith("torch."):
            del sys.modules[name]


@pytest.fixture
def torch_stand_in(tmp_path):
    """`import torch._dynamo` finds the stand-in while the test runs."""
    root = dc.fake_torch(str(tmp_path / "site"))
    sys.path.insert(0, root)
    _purge_torch()
    yield root
    pd.uninstall()
    dc._bytecode_hooks.clear()
    dc.config.suppress_errors = False
    sys.path.remove(root)
    _purge_torch()


def mode_fixtures():
    """(case, function, break point) of every eligible break under a mode."""
    out = []
    for name, (fn, _) in CASES.CASES.items():
        for bp in pyverify_rewriter.break_points(fn, CASES.MODE_CLASS_NAMES):
            if bp.eligible and bp.modes:
                out.append((name, fn, bp))
    return out


MODE_FIXTURES = mode_fixtures()


def compile_variant(fn, bp, variant, **kw):
    reset_counter()
    return dc.compile_break(fn, bp.offset, dict(fn.__globals__),
                            variant=variant, modes=bp.modes, **kw)


def errors(reports):
    return sorted({d.check for _, r in reports for d in r
                   if d.severity == "error"})


def cli_errors_by_file(cli, path):
    """`pyverify check --format=json path`: {file: sorted error ids}."""
    out = subprocess.run([cli, "check", "--format=json", path],
                         capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    by_file = {}
    for d in json.loads(out.stdout)["diagnostics"]:
        if d["severity"] == "error":
            by_file.setdefault(d["file"], set()).add(d["check"])
    return {f: sorted(ids) for f, ids in by_file.items()}


def cli_errors(cli, path):
    return cli_errors_by_file(cli, path).get(path, [])


def frame_event(hook):
    return [e for e in hook.events if e.source == "bytecode_hook"][-1]


def test_install_finds_the_stand_in(torch_stand_in):
    import torch._dynamo.resume_execution as re_mod
    original = re_mod.ContinueExecutionCache.__dict__["generate"]
    hook = pd.install(mode="log")
    assert hook.tap is not None
    assert hook.tap.mode_class is dc.TorchFunctionModeVariable
    assert re_mod.ContinueExecutionCache.__dict__["generate"] is not original
    pd.uninstall()
    assert re_mod.ContinueExecutionCache.__dict__["generate"] is original
    assert not dc._bytecode_hooks


def test_mode_frames_paired_with_generate_claims(torch_stand_in, cli,
                                                 tmp_path):
    """Every variant under a mode: paired with Dynamo's claims (the
    rewriter's contexts, modes included), and the hook's errors are
    `pyverify check`'s on the rewriter's bundle."""
    hook = pd.install(mode="log")
    n = caught = 0
    hook_errors = {}
    for name, fn, bp in MODE_FIXTURES:
        for variant in ("correct", "entered-twice",
                        "mode-leaked-on-exception", "list-replay"):
            try:
                r, out = compile_variant(fn, bp, variant)
            except pyverify_rewriter.VariantNotApplicable:
                continue
            where = "%s@%d %s" % (name, bp.offset, variant)
            ev = frame_event(hook)
            assert ev.code is fn.__code__ and ev.out_code is r.frame, where
            assert ev.claims == "generate" and ev.unpaired is None, where
            assert ev.bundle["break_offset"] == r.break_offset, where
            (res,) = ev.bundle["resumes"]
            assert res["code"] is r.resume, where
            assert res["original_offset"] == r.resume_offset, where
            assert res["contexts"] == [dict(c) for c in r.contexts], where
            path = str(tmp_path / ("%d.pvb" % n))
            pyverify.dump_bundle(path, r)
            hook_errors[path] = (where, errors(ev.reports))
            if variant == "entered-twice":
                assert "frame-contexts-mismatch" in ev.check_ids, where
                caught += 1
            n += 1
    by_file = cli_errors_by_file(cli, str(tmp_path))
    assert len(by_file) >= caught  # the CLI names the files as given
    for path, (where, ids) in hook_errors.items():
        assert ids == by_file.get(path, []), where
    print("paired %d mode frames, entered-twice caught %d" % (n, caught))
    assert n > 20 and caught > 5


def test_mode_leak_refuted_through_the_hook(torch_stand_in):
    """prove=True: the mode leaked on an exception is refuted (the frame's
    exactly-once), as `pyverify prove` refutes it; the correct rewrite is
    not."""
    hook = pd.install(mode="log", prove=True)
    tried = 0
    for name, fn, bp in MODE_FIXTURES[:6]:
        r, _ = compile_variant(fn, bp, "mode-leaked-on-exception")
        ev = frame_event(hook)
        assert ev.claims == "generate", name
        assert not ev.ok and "prove:exactly-once" in ev.check_ids, name
        expected = pyverify.prove_bundle(r)
        assert [(x["target"], x["verdict"]) for x in ev.proof["results"]] \
            == [(x["target"], x["verdict"]) for x in expected["results"]]
        compile_variant(fn, bp, "correct")
        assert frame_event(hook).ok, name
        tried += 1
    assert tried == 6


def test_failure_through_compile_reraise(torch_stand_in, caplog):
    """What the user sees: _compile's InternalTorchDynamoError ... from
    None; its message names pyverify and the check id, its __context__ is
    the EmittedCodeError with the event; suppress_errors falls back to
    eager with a warning."""
    hook = pd.install(mode="raise")
    name, fn, bp = MODE_FIXTURES[0]
    with pytest.raises(dc.InternalTorchDynamoError) as e:
        compile_variant(fn, bp, "entered-twice")
    err = e.value
    assert str(err).startswith("EmittedCodeError: pyverify: "
                               "frame-contexts-mismatch in the code "
                               "TorchDynamo emitted for " + fn.__qualname__)
    assert err.__cause__ is None and err.__suppress_context__
    assert isinstance(err.__context__, pd.EmittedCodeError)
    assert err.__context__.event is hook.events[-1]
    assert not isinstance(err, pd.EmittedCodeError)
    dc.config.suppress_errors = True
    with caplog.at_level(logging.WARNING, logger="dynamo_contract"):
        r, out = compile_variant(fn, bp, "entered-twice")
    assert out is None  # eager
    assert "frame-contexts-mismatch" in caplog.text
    r, out = compile_variant(fn, bp, "correct")
    assert out is r.frame


def test_claims_are_checked_not_trusted(torch_stand_in):
    """Dynamo's record is checked against the code: a mode it calls an
    ordinary with is frame-contexts-mismatch; a wrong handler offset is
    resume-contexts-mismatch."""
    hook = pd.install(mode="log")
    name, fn, bp = MODE_FIXTURES[0]

    def as_with(ctxs):
        return [dict(c, kind="with") for c in ctxs]

    def wrong_handler(ctxs):
        return [dict(c, handler=c["handler"] + 2) for c in ctxs]

    compile_variant(fn, bp, "correct", claims=as_with)
    ev = frame_event(hook)
    assert ev.claims == "generate"
    assert "frame-contexts-mismatch" in ev.check_ids, ev.text()
    compile_variant(fn, bp, "correct", claims=wrong_handler)
    ev = frame_event(hook)
    assert "resume-contexts-mismatch" in ev.check_ids, ev.text()
    gen = [e for e in hook.events if e.source == "generate"][-1]
    assert "resume-contexts-mismatch" in gen.check_ids


def test_untraced_resume_function_is_verified(torch_stand_in, cli,
                                              tmp_path):
    """A resume function the bytecode hook never sees (here: the frame's
    globals are not found, and the leaf resume function is never compiled)
    is verified when generate makes it; its bundle (no frame) is dumped as
    <qualname>-<break>-resume.pvb."""
    hook = pd.install(mode="log", globals_of=lambda code: None,
                      dump_dir=str(tmp_path))
    name, fn, bp = MODE_FIXTURES[0]
    r, _ = compile_variant(fn, bp, "handler-reads-first-frame-local")
    frame_ev = frame_event(hook)
    assert frame_ev.unpaired == "the frame's globals were not found"
    assert [label for label, _ in frame_ev.reports] == ["frame"]
    (gen,) = [e for e in hook.events if e.source == "generate"]
    assert gen.code is fn.__code__ and gen.out_code is r.resume
    assert gen.claims == "generate" and gen.bundle["frame"] is None
    assert gen.bundle["resumes"][0]["contexts"] == r.contexts
    assert not gen.ok and "with-handler-mismatch" in gen.check_ids
    assert {d.target for _, rep in gen.reports for d in rep} == {"resume:0"}
    assert gen.dumped == str(tmp_path / ("%s-%d-resume.pvb" % (
        fn.__qualname__, r.break_offset)))
    assert "with-handler-mismatch" in cli_errors(cli, gen.dumped)
    assert gen.summary().startswith(
        "pyverify: context-not-exited, local-unbound, with-handler-mismatch "
        "in the resume function TorchDynamo generated for " +
        fn.__qualname__)
    assert frame_ev.dumped is None  # not paired: nothing written


def _generate_weakly(cls, args):
    """A weak reference to a code object given to generate (the frame that
    made it has returned)."""
    code = compile("pass", "g", "exec")
    cls.generate(code, 1, *args)
    return weakref.ref(code)


def test_generate_signatures_across_torch_versions():
    """The wrapper binds generate's arguments by name: torch 2.1's
    (offset, setup_fn_target_offsets, ...), 2.6's, and 2.7+'s
    (init_offset, resume_offset, ..., nested_code_objs)."""
    def v21(cls, code, lineno, offset, setup_fn_target_offsets, nstack,
            argnames, setup_fns, null_idxes):
        return code

    def v27(cls, code, lineno, init_offset, resume_offset,
            setup_fn_target_offsets, nstack, argnames, argnames_null,
            setup_fns, stack_ctx_vars, argnames_ctx_vars, null_idxes,
            nested_code_objs):
        return code

    def v26(cls, code, lineno, offset, setup_fn_target_offsets, nstack,
            argnames, argnames_null, setup_fns, stack_ctx_vars,
            argnames_ctx_vars, null_idxes):
        return code

    fns = (dc.ReenterWith(0), dc.ReenterWith(2))
    seen = []

    class FakeHook:
        def generated(self, claim, code):
            seen.append(claim)

    for generate, args in (
            (v21, (7, (40, 60), 3, ("x",), fns, ())),
            (v26, (7, (40, 60), 3, ("x",), (), fns, (), (), ())),
            (v27, (5, 7, (40, 60), 3, ("x",), (), fns, (), (), (), ()))):
        cls = type("Cache", (), {"generate": classmethod(generate)})
        tap = pd._GenerateTap(FakeHook(), cls, dc.TorchFunctionModeVariable)
        code = compile("pass", "f", "exec")
        assert cls.generate(code, 1, *args) is code
        claim = seen.pop()
        assert claim.original is code and claim.offset == 7
        assert claim.contexts == [
            {"kind": "with", "handler": 40, "stack_index": 0},
            {"kind": "with", "handler": 60, "stack_index": 2}]
        assert not claim.kinds_known  # no InstructionTranslator calling
        assert tap.lookup(code, code) is claim
        ref = _generate_weakly(cls, args)
        gc.collect()
        assert ref() is None and len(tap.claims) == 1  # held weakly
        seen.pop()
        tap.remove()
        assert cls.__dict__["generate"].__func__ is generate
    assert not seen


def test_dump_dir_writes_bundles_the_cli_reads(torch_stand_in, cli,
                                               tmp_path, monkeypatch):
    """PYVERIFY_DUMP_DIR: a .pvb per failing frame, named after the
    function and the break, never overwritten; `pyverify check` on it
    reports the hook's check id."""
    dump = tmp_path / "dumps"
    monkeypatch.setenv("PYVERIFY_DUMP_DIR", str(dump))
    hook = pd.install(mode="log")
    name, fn, bp = MODE_FIXTURES[0]
    compile_variant(fn, bp, "entered-twice")
    compile_variant(fn, bp, "entered-twice")
    compile_variant(fn, bp, "correct")
    stem = "%s-%d" % (fn.__qualname__.replace("<", "_").replace(">", "_")
                      .strip("._"), bp.offset)
    files = sorted(os.listdir(dump))
    assert files == [stem + "-2.pvb", stem + ".pvb"], files
    ev = frame_event(hook)
    failed = [e for e in hook.events if not e.ok]
    assert [e.dumped for e in failed] == [str(dump / f) for f in
                                          reversed(files)]
    for f in files:
        assert "frame-contexts-mismatch" in cli_errors(cli, str(dump / f))
    assert ev.ok and ev.dumped is None
    assert "bundle written to " + str(dump / files[1]) in failed[0].summary()


def test_prove_unavailable_is_said_at_install(torch_stand_in, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyverify._pyverify_prove", None)
    with pytest.raises(pd.ProveNotAvailable,
                       match=r"prover is not available for Python 3\.\d+"):
        pd.install(mode="log", prove=True)
    assert pd.installed() is None and not dc._bytecode_hooks
    pd.install(mode="log")  # without proving it installs


# --- PYVERIFY_DYNAMO in a fresh process ----------------------------------

PROBE = r"""
import site, sys, warnings
warnings.simplefilter("always")
site.addsitedir(sys.argv[1])
before = "pyverify" in sys.modules
import torch._dynamo
import pyverify.dynamo as pd
h = pd.installed()
print(before, h is not None and h.mode, h is not None and h.tap is not None)
import torch._dynamo.resume_execution as re_mod
print(type(torch._dynamo.__loader__).__name__)
"""


def run_probe(tmp_path, value):
    site_dir = tmp_path / "site"
    dc.fake_torch(str(site_dir))
    src = os.path.join(HERE, "..", "..", "..", "python",
                       "pyverify_dynamo.pth")
    with open(src) as f:
        (site_dir / "pyverify_dynamo.pth").write_text(f.read())
    env = dict(os.environ)
    env.pop("PYVERIFY_DYNAMO", None)
    if value is not None:
        env["PYVERIFY_DYNAMO"] = value
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(os.path.dirname(pyverify.__file__)), HERE,
         os.path.join(HERE, "..", "..", "..", "python")])
    return subprocess.run([sys.executable, "-c", PROBE, str(site_dir)],
                          capture_output=True, text=True, env=env,
                          timeout=60)


def test_env_installs_in_a_fresh_process(tmp_path):
    p = run_probe(tmp_path, "warn")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:2] == ["True warn True", "SourceFileLoader"]


def test_env_unset_imports_nothing(tmp_path):
    p = run_probe(tmp_path, None)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[0] == "False False False"


def test_env_bad_value_warns(tmp_path):
    p = run_probe(tmp_path, "loud")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[0] == "True False False"
    assert "PYVERIFY_DYNAMO='loud' is not one of raise, warn, log" in p.stderr


def test_env_with_torch_already_imported(torch_stand_in, monkeypatch):
    """_autoload.activate: torch._dynamo already imported -> installed at
    once, no finder left; an install that fails is a RuntimeWarning."""
    from pyverify import _autoload
    import torch._dynamo  # noqa: F401
    finders = list(sys.meta_path)
    assert _autoload.activate(" Log ") is None
    assert sys.meta_path == finders
    assert pd.installed().mode == "log" and pd.installed().tap is not None
    pd.uninstall()
    monkeypatch.delattr(sys.modules["torch._dynamo.convert_frame"],
                        "register_bytecode_hook")
    with pytest.warns(RuntimeWarning, match="PYVERIFY_DYNAMO=warn: "
                      "pyverify.dynamo was not installed: "
                      "DynamoNotAvailable"):
        _autoload.activate("warn")
    assert pd.installed() is None


# --- the same under 3.12 and 3.13 ----------------------------------------

VERSION_PROBE = r"""
import sys, tempfile
import dynamo_contract as dc
sys.path.insert(0, dc.fake_torch(tempfile.mkdtemp()))
import pyverify.dynamo as pd, pyverify_rewriter
from pyverify_rewriter.cli import DEFAULT_CASES, _load_cases
cases = _load_cases(DEFAULT_CASES)
fn = cases.CASES["mode_only"][0]
bp = [b for b in pyverify_rewriter.break_points(fn, cases.MODE_CLASS_NAMES)
      if b.eligible and b.modes][0]
hook = pd.install(mode="log", prove=True)
for v in ("correct", "entered-twice", "mode-leaked-on-exception"):
    dc.compile_break(fn, bp.offset, dict(fn.__globals__), variant=v,
                     modes=bp.modes)
    ev = [e for e in hook.events if e.source == "bytecode_hook"][-1]
    print(v, ev.claims, ",".join(ev.check_ids) or "ok")
"""


def _interpreter(build, minor):
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith("PYVERIFY_PYTHON3%d:" % minor):
                    path = line.split("=", 1)[1].strip()
                    return path if os.path.exists(path) else None
    except OSError:
        return None
    return None


@pytest.mark.parametrize("minor", [12, 13])
def test_mode_frames_under_other_versions(minor):
    """The stand-in and the hook under 3.12 / 3.13 (their build of the
    module, <build>/python-3.x): entered twice is frame-contexts-mismatch,
    the leak is refuted."""
    build = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(pyverify.__file__))))
    py = _interpreter(build, minor)
    mod = os.path.join(build, "python-3.%d" % minor)
    if py is None or not os.path.isdir(os.path.join(mod, "pyverify")):
        pytest.skip("no 3.%d build of the module" % minor)
    root = os.path.join(HERE, "..", "..", "..")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [mod, HERE, os.path.join(root, "python")]))
    env.pop("PYVERIFY_DYNAMO", None)
    p = subprocess.run([py, "-c", VERSION_PROBE], capture_output=True,
                       text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        "correct generate ok",
        "entered-twice generate frame-contexts-mismatch,prove:matches-eager",
        "mode-leaked-on-exception generate prove:exactly-once"]


def test_raise_at_generate_stops_the_compile(torch_stand_in):
    """mode="raise": a resume function failing at generate stops Dynamo's
    compile there (before the frame's hook call), through _compile's
    re-raise."""
    hook = pd.install(mode="raise")
    name, fn, bp = MODE_FIXTURES[0]
    with pytest.raises(dc.InternalTorchDynamoError) as e:
        compile_variant(fn, bp, "handler-reads-first-frame-local")
    assert "with-handler-mismatch in the resume function TorchDynamo " \
        "generated for " + fn.__qualname__ in str(e.value)
    assert e.value.__context__.event.source == "generate"
    assert [ev.source for ev in hook.events] == ["generate"]
    assert not dc.ContinueExecutionCache.cache[fn.__code__]  # not cached
