"""PYVERIFY_DYNAMO=raise|warn|log: pyverify.dynamo installed when
torch._dynamo is first imported, without editing the program.

The wheel's ``pyverify_dynamo.pth`` runs, at interpreter start-up::

    import os; os.environ.get('PYVERIFY_DYNAMO') and __import__('pyverify._autoload')

so nothing of pyverify is imported while the variable is unset or empty.
Imported, this module checks the value (a bad one is a RuntimeWarning naming
the accepted values, and nothing is installed), then puts a finder first on
``sys.meta_path`` that answers for ``torch._dynamo`` alone: it lets the
other finders find the package and wraps the loader so that, once the
package has run, ``pyverify.dynamo.install(mode)`` registers the hook (with
``PYVERIFY_DUMP_DIR`` for the dumps). The finder removes itself then. When
``torch._dynamo`` is already imported, the hook is installed at once.
A failure to install is a RuntimeWarning; the import of torch goes on.
"""

import importlib.abc
import os
import sys
import warnings

ENV = "PYVERIFY_DYNAMO"
TARGET = "torch._dynamo"
MODES = ("raise", "warn", "log")


def _install(mode):
    try:
        import pyverify.dynamo as pd
        pd.install(mode=mode)
    except Exception as e:  # the program goes on without the hook
        warnings.warn("%s=%s: pyverify.dynamo was not installed: %s: %s"
                      % (ENV, mode, type(e).__name__, e), RuntimeWarning,
                      stacklevel=2)


class _Loader(importlib.abc.Loader):
    """The package's own loader, then the install."""

    def __init__(self, loader, mode):
        self._loader = loader
        self._mode = mode

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        # While the package runs, its spec's loader is this one; afterwards
        # the module says the original loader (inspect, linecache read it).
        module.__loader__ = self._loader
        module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        _install(self._mode)

    def __getattr__(self, name):  # get_source, get_filename, is_package...
        return getattr(self._loader, name)


class DynamoFinder(importlib.abc.MetaPathFinder):
    """On sys.meta_path until torch._dynamo is found."""

    def __init__(self, mode):
        self.mode = mode

    def find_spec(self, fullname, path=None, target=None):
        if fullname != TARGET:
            return None
        self.remove()
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find else None
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            warnings.warn("%s=%s: pyverify.dynamo was not installed: %s's "
                          "loader %r cannot be wrapped"
                          % (ENV, self.mode, TARGET, spec.loader),
                          RuntimeWarning, stacklevel=2)
            return spec
        spec.loader = _Loader(spec.loader, self.mode)
        return spec

    def remove(self):
        if self in sys.meta_path:
            sys.meta_path.remove(self)


def mode_from_environment(value):
    """The mode PYVERIFY_DYNAMO names, or None (a RuntimeWarning says why)."""
    mode = value.strip().lower()
    if mode in MODES:
        return mode
    warnings.warn("%s=%r is not one of %s: pyverify.dynamo is not installed"
                  % (ENV, value, ", ".join(MODES)), RuntimeWarning,
                  stacklevel=3)
    return None


def activate(value):
    """What importing this module does with PYVERIFY_DYNAMO's value: the
    finder installed (returned), the hook installed now when torch._dynamo
    is already imported (None returned), or a warning (None)."""
    mode = mode_from_environment(value)
    if mode is None:
        return None
    if TARGET in sys.modules:
        _install(mode)
        return None
    finder = DynamoFinder(mode)
    sys.meta_path.insert(0, finder)
    return finder


if os.environ.get(ENV):
    activate(os.environ[ENV])
