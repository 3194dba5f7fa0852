"""A stand-in for torch._dynamo.convert_frame's bytecode-hook contract.

torch cannot be installed on the test machines; this module has the shape
pyverify.dynamo depends on, and nothing else of Dynamo:

* ``register_bytecode_hook(hook)`` returns a handle whose ``remove()``
  unregisters the hook;
* ``_compile(code, globals, transform)`` -- as Dynamo's _compile -- makes
  the rewritten code, then calls every hook as ``hook(code, out_code)``; a
  hook's non-None result replaces ``out_code``, an exception propagates.

The code comes from pyverify_rewriter (a miniature Dynamo-style rewriter):
``compile_break`` compiles a function split at a graph break, installing the
compiled graph and the resume function in the globals as Dynamo does
(``__compiled_fn_*``, ``__resume_at_<offset>_<n>``) before the hooks run;
``compile_resume`` is Dynamo compiling that resume function when it is
first called (here: its code unchanged).
"""

import itertools

import pyverify_rewriter

_bytecode_hooks = {}
_ids = itertools.count()


class RemovableHandle:
    def __init__(self, hooks, key):
        self._hooks = hooks
        self._key = key

    def remove(self):
        self._hooks.pop(self._key, None)


def register_bytecode_hook(hook):
    key = next(_ids)
    _bytecode_hooks[key] = hook
    return RemovableHandle(_bytecode_hooks, key)


def _compile(code, globals, transform):
    out_code = transform(code, globals)
    for hook in list(_bytecode_hooks.values()):
        hook_output = hook(code, out_code)
        if hook_output is not None:
            out_code = hook_output
    return out_code


def compile_break(func, break_offset, globals, *, variant="correct",
                  modes=()):
    """Rewrites ``func`` at ``break_offset`` (pyverify_rewriter.rewrite);
    installs its globals into ``globals``; runs the hooks. Returns
    (rewrite, the out_code the hooks left)."""
    r = pyverify_rewriter.rewrite(func, break_offset, modes=modes,
                                  variant=variant)

    def transform(code, g):
        g.update(r.globals)
        return r.frame

    return r, _compile(func.__code__, globals, transform)


def compile_resume(resume_fn, globals):
    return _compile(resume_fn.__code__, globals, lambda code, g: code)
