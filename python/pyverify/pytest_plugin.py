"""pytest plugin: pyverify as a test oracle.

    pytest -p pyverify.pytest_plugin --pyverify-modules=pkg.a,pkg.b

verifies every code object of the named modules (imported by the plugin at
the end of the session) and fails the session with the findings. The
fixture ``assert_verified(code_or_function, checks=None)`` fails the test
with the CLI's text when the code has an error-severity finding.
"""

import importlib
import sys
import types

import pytest

import pyverify


def pytest_addoption(parser):
    group = parser.getgroup("pyverify")
    group.addoption(
        "--pyverify-modules", default="", metavar="MODS",
        help="comma-separated modules whose code objects are verified after "
             "the tests ran (the session fails on any error)")
    group.addoption(
        "--pyverify-checks", default=None, metavar="SPEC",
        help="check spec for --pyverify-modules, like the CLI's --checks")


def module_code_objects(module):
    """The top-level code objects of a module's functions and classes
    (verify() recurses into nested ones), deduplicated, in a stable order."""
    seen = set()
    out = []

    def add(code, where):
        if id(code) not in seen:
            seen.add(id(code))
            out.append((where, code))

    def visit(obj, where, depth):
        if depth > 20:
            return
        if isinstance(obj, types.FunctionType):
            add(obj.__code__, where)
        elif isinstance(obj, (staticmethod, classmethod)):
            visit(obj.__func__, where, depth + 1)
        elif isinstance(obj, property):
            for f in (obj.fget, obj.fset, obj.fdel):
                if f is not None:
                    visit(f, where, depth + 1)
        elif isinstance(obj, type) and obj.__module__ == module.__name__:
            if id(obj) in seen:
                return
            seen.add(id(obj))
            for name, member in sorted(vars(obj).items()):
                visit(member, where + "." + name, depth + 1)

    for name, obj in sorted(vars(module).items()):
        if getattr(obj, "__module__", module.__name__) == module.__name__:
            visit(obj, module.__name__ + "." + name, 0)
    return out


class _ModuleVerifier:
    def __init__(self, modules, checks):
        self.modules = modules
        self.checks = checks
        self.failures = []  # (module, where, report)
        self.verified = 0

    def run(self):
        for name in self.modules:
            try:
                module = sys.modules.get(name) or importlib.import_module(name)
            except Exception as e:  # report, do not crash the session
                self.failures.append((name, "import", "cannot import %s: %r"
                                      % (name, e)))
                continue
            for where, code in module_code_objects(module):
                report = pyverify.verify(code, checks=self.checks)
                self.verified += report.code_objects
                if not report.ok:
                    self.failures.append((name, where, str(report)))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session, exitstatus):
        self.run()
        if self.failures:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter):
        tr = terminalreporter
        if self.failures:
            # The final summary line says the plugin failed the session
            # ("3 passed, 1 failed pyverify in 0.12s"): every key of
            # tr.stats is counted there.
            tr.stats.setdefault(SUMMARY_KEY, []).extend(self.failures)
        tr.section("pyverify")
        if not self.failures:
            tr.write_line("pyverify: %d code object(s) of %s verified clean"
                          % (self.verified, ", ".join(self.modules)))
            return
        for module, where, text in self.failures:
            tr.write_line("pyverify: %s (%s):" % (where, module), red=True)
            tr.write_line(text.rstrip("\n"))
        tr.write_line("pyverify: %d failing code object tree(s) in %s"
                      % (len(self.failures), ", ".join(self.modules)),
                      red=True)


SUMMARY_KEY = "failed pyverify"


def pytest_configure(config):
    mods = [m.strip() for m in
            config.getoption("--pyverify-modules").split(",") if m.strip()]
    checks = config.getoption("--pyverify-checks")
    if checks is not None:
        # A bad spec is a usage error now, before any test runs.
        try:
            pyverify.verify(pytest_configure.__code__, checks=checks,
                            recursive=False)
        except (TypeError, ValueError) as e:
            raise pytest.UsageError("--pyverify-checks=%s: %s"
                                    % (checks, e)) from None
    if mods:
        config.pluginmanager.register(_ModuleVerifier(mods, checks),
                                      "pyverify-modules")


@pytest.fixture
def assert_verified():
    """assert_verified(code_or_function, checks=None) -> Report; fails the
    test with the findings when any is an error."""

    def check(code, checks=None):
        report = pyverify.verify(code, checks=checks)
        if not report.ok:
            pytest.fail("pyverify found errors:\n" + str(report),
                        pytrace=False)
        return report

    return check
