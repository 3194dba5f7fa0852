"""verify_bundle / dump_bundle against the CLI on the rewriter's output, and
the pytest plugin and fixture on planted modules."""
import os
import subprocess
import sys
import textwrap

import pytest

import pyverify

pyverify_rewriter = pytest.importorskip("pyverify_rewriter")


def nested(cm1, cm2, f, g):
    with cm1:
        a = f(1)
        with cm2 as y:
            b = g(a, y)
            f(b)
        g(b)
    return a


def bundles():
    """Every eligible break point of nested(), every variant."""
    out = []
    for bp in pyverify_rewriter.break_points(nested):
        if bp.reason is not None:
            continue
        for variant in pyverify_rewriter.VARIANTS:
            try:
                rw = pyverify_rewriter.rewrite(nested, bp.offset,
                                               variant=variant)
            except pyverify_rewriter.VariantNotApplicable:
                continue
            out.append(("%d-%s" % (bp.offset, variant), rw.to_bundle_dict()))
    return out


BUNDLES = bundles()


def test_there_are_bundles():
    variants = {name.split("-", 1)[1] for name, _ in BUNDLES}
    assert "correct" in variants and len(variants) >= 5


@pytest.mark.parametrize("name,bundle", BUNDLES, ids=[b[0] for b in BUNDLES])
def test_verify_bundle_matches_expectation_and_cli(name, bundle, cli,
                                                   tmp_path):
    report = pyverify.verify_bundle(bundle)
    expect = bundle["expect"]
    ids = {d.check for d in report.errors}
    if expect == "ok" or expect.startswith("smt:"):
        assert report.ok, str(report)
    else:
        assert expect in ids, str(report)
    # keyword form == dict form
    kw = {k: bundle[k] for k in ("original", "frame", "break_offset",
                                 "resumes")}
    assert str(pyverify.verify_bundle(**kw)) == str(report)
    # dump_bundle writes what the CLI reads; same diagnostics
    path = tmp_path / "b.pvb"
    assert pyverify.dump_bundle(str(path), bundle) > 0
    out = subprocess.run([cli, "check", str(path)], capture_output=True,
                         text=True)
    assert out.returncode == (0 if report.ok else 1), out.stderr
    # The CLI names the source (co_filename, which exists) with the .pvb as
    # the artifact; the module's report names co_filename, with no artifact.
    suffix = ", read from " + str(path)
    cli_lines = [l[:-len(suffix)] if l.endswith(suffix) else l
                 for l in out.stdout.splitlines()[:-1]]
    assert all(str(path) not in l for l in cli_lines), cli_lines
    assert str(report).splitlines()[:-1] == cli_lines


def test_verify_bundle_errors():
    _, bundle = BUNDLES[0]
    with pytest.raises(TypeError, match="original"):
        pyverify.verify_bundle(frame=bundle["frame"])
    bad = dict(bundle, resumes=[{"code": bundle["resumes"][0]["code"]}])
    with pytest.raises(ValueError, match=r"resumes\[0\]"):
        pyverify.verify_bundle(bad)
    bad = dict(bundle, break_offset=-2)
    with pytest.raises(ValueError, match="break_offset"):
        pyverify.verify_bundle(bad)
    r = pyverify.verify_bundle(dict(bundle, break_offset=1))
    assert "bundle-offset-invalid" in {d.check for d in r.errors}


PLANTED = '''
def victim(a, b):
    return a + b * 2

def fine(x):
    with x:
        return x

class Holder:
    def method(self, a):
        return [a for _ in range(3)]

# A rewriter bug: co_stacksize computed too small.
victim.__code__ = victim.__code__.replace(co_stacksize=1)
'''

CLEAN = '''
def fine(x):
    with x:
        return x

class Holder:
    @staticmethod
    def method(a):
        return [a for _ in range(3)]
'''

TESTS = '''
def test_nothing():
    pass
'''

FIXTURE_TESTS = '''
def good(a):
    return a + 1

def test_good(assert_verified):
    assert assert_verified(good).ok

def test_bad(assert_verified):
    assert_verified(good.__code__.replace(co_stacksize=0))
'''


def run_pytest(tmp_path, *args):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tmp_path), os.path.dirname(os.path.dirname(pyverify.__file__))])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
         "-p", "pyverify.pytest_plugin", *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_plugin_fails_session_on_planted_module(tmp_path):
    (tmp_path / "planted_broken.py").write_text(PLANTED)
    (tmp_path / "clean_mod.py").write_text(CLEAN)
    (tmp_path / "test_x.py").write_text(TESTS)
    bad = run_pytest(tmp_path, "--pyverify-modules=clean_mod,planted_broken",
                     "test_x.py")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "[stacksize-too-small]" in bad.stdout
    assert "planted_broken.victim" in bad.stdout
    # the final summary line says the plugin failed the session
    last = bad.stdout.strip().splitlines()[-1]
    assert "1 passed, 1 failed pyverify" in last, last
    good = run_pytest(tmp_path, "--pyverify-modules=clean_mod", "test_x.py")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "code object(s) of clean_mod verified clean" in good.stdout
    missing = run_pytest(tmp_path, "--pyverify-modules=no_such_mod",
                         "test_x.py")
    assert missing.returncode == 1 and "cannot import" in missing.stdout


def test_plugin_bad_checks_is_a_usage_error(tmp_path):
    """A bad --pyverify-checks stops pytest before any test runs."""
    (tmp_path / "test_x.py").write_text(
        "def test_marker():\n    open('ran', 'w').close()\n")
    r = run_pytest(tmp_path, "--pyverify-modules=test_x",
                   "--pyverify-checks=no-such-check", "test_x.py")
    assert r.returncode == pytest.ExitCode.USAGE_ERROR, r.stdout + r.stderr
    assert "--pyverify-checks=no-such-check" in r.stderr
    assert "no-such-check" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "ran").exists()
    ok = run_pytest(tmp_path, "--pyverify-modules=test_x",
                    "--pyverify-checks=stack-*", "test_x.py")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert (tmp_path / "ran").exists()


def test_assert_verified_fixture(tmp_path):
    (tmp_path / "test_fx.py").write_text(FIXTURE_TESTS)
    r = run_pytest(tmp_path, "test_fx.py")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "1 failed, 1 passed" in r.stdout
    assert "pyverify found errors" in r.stdout
    assert "[stacksize-too-small]" in r.stdout


def test_prove_bundle_matches_cli(cli, tmp_path):
    # prove_bundle gives the CLI's JSON results (file and time aside), and
    # the verdicts the rewriter's variants call for.
    by_variant = {}
    for name, bundle in BUNDLES:
        variant = name.split("-", 1)[1]
        if variant in by_variant:
            continue
        by_variant[variant] = bundle
        res = pyverify.prove_bundle(bundle)
        assert res["summary"]["bundles"] == 1
        path = tmp_path / (variant + ".pvb")
        pyverify.dump_bundle(str(path), bundle)
        out = subprocess.run([cli, "prove", "--format=json", str(path)],
                             capture_output=True, text=True)
        cli_json = __import__("json").loads(out.stdout)

        def strip(rs):
            return [{k: v for k, v in r.items()
                     if k not in ("file", "seconds")} for r in rs]

        assert strip(res["results"]) == strip(cli_json["results"])
        verdicts = {r["verdict"] for r in res["results"]}
        if variant == "correct":
            assert verdicts == {"proved"}, res
        elif variant in ("exit-missing-on-exception",
                         "uncovered-body-instruction",
                         "stacksize-no-exc-edges"):
            assert "refuted" in verdicts, res
            assert all(r["property"] for r in res["results"]
                       if r["verdict"] == "refuted")
    assert "correct" in by_variant


def test_prove_bundle_budget():
    # max_steps / max_states: the CLI's --max-steps / --max-states (one
    # budget per result); over either, the result is unknown and says which.
    bundle = dict(BUNDLES)[next(n for n, _ in BUNDLES
                                if n.endswith("-correct"))]
    full = pyverify.prove_bundle(bundle)["results"]
    assert all(r["steps"] > 10 and r["states"] >= 1 for r in full), full
    tight = pyverify.prove_bundle(bundle, max_steps=10)["results"]
    for r in tight:
        assert r["verdict"] == "unknown", r
        assert r["reason"].startswith("budget: over --max-steps=10 "), r
        # It stops at the instruction that crosses the budget; one that
        # pushes k values counts k steps (docs/prove-cli.md), so a result may
        # end a few steps past it, never at a later instruction.
        assert 10 < r["steps"] <= 10 + 8, r
    for bad in ({"max_steps": -1}, {"max_states": -1}):
        with pytest.raises(ValueError):
            pyverify.prove_bundle(bundle, **bad)


def test_prove_bundle_raise_tiers():
    # The raise tiers (docs/prove.md): a resume function whose redirected
    # body entries are dropped over instructions that cannot raise by
    # themselves is refuted by a trace function's raise there; tracing=False
    # (the CLI's --no-assume=tracing) narrows the tiers, and the result says
    # which assumption it then rests on.
    dropped = [b for n, b in BUNDLES if n.endswith("-body-entries-dropped")]
    assert dropped, [n for n, _ in BUNDLES]
    for bundle in dropped:
        res = pyverify.prove_bundle(bundle)["results"]
        resume = [r for r in res if r["target"].startswith("resume")]
        assert resume and all(r["verdict"] == "refuted" for r in resume), res
        assert any("a trace function" in (s.get("event") or "")
                   for r in resume for s in r["counterexample"]["emitted"])
        narrow = pyverify.prove_bundle(bundle, tracing=False)["results"]
        for r in narrow:
            assert "no trace function raises (--no-assume=tracing)" in \
                r["assumptions"], r
