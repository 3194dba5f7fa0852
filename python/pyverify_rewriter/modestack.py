"""A simulated torch-function mode stack (emitted-code section 8).

The real one lives in C (``torch._C._push_on_torch_function_stack`` ...);
this module-level list stands in for it so the TF-mode shapes can be run.
Every push/pop is reported to the ``listeners`` (the runtime oracle logs
``("push", name)`` / ``("pop", name)``).  ``get_stack``/``set_stack`` are the
side-effect replay used by the rewritten frame (Dynamo's
``get_torch_function_mode_stack``/``set_torch_function_mode_stack``); they do
not notify: a replay re-installs state whose push was already observed.
"""

_stack = []
listeners = []


def _notify(event, mode):
    for fn in list(listeners):
        fn(event, mode)


def push(mode):
    _stack.append(mode)
    _notify("push", mode)


def pop():
    if not _stack:
        raise RuntimeError("pop from an empty torch-function mode stack")
    mode = _stack.pop()
    _notify("pop", mode)
    return mode


def get_stack():
    return list(_stack)


def set_stack(modes):
    _stack[:] = list(modes)


def depth():
    return len(_stack)


def reset():
    _stack.clear()


class Mode:
    """A torch-function mode: entering pushes it, exiting pops."""

    def __init__(self, name=None):
        self.name = name if name is not None else type(self).__name__

    def __enter__(self):
        push(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        pop()
        return None

    def __repr__(self):
        return "<%s %s>" % (type(self).__name__, self.name)


class NoEnterMode(Mode):
    """Dynamo's ``NoEnterTorchFunctionMode`` polyfill: ``__enter__`` does
    nothing (the push was replayed by the rewritten frame); the inherited
    ``__exit__`` pops."""

    def __init__(self):
        super().__init__("<no-enter>")

    def __enter__(self):
        return self
