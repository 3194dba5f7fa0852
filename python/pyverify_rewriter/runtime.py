"""Run-time support for rewritten code.

The stand-in "compiled graph" is the original function's own bytecode with
the unsupported instruction replaced by a *capture* sequence (see
``rewriter.build_graph_helper``): the prefix runs eagerly, then at the break
the capture

1. stores every live stack value (NULLs are consumed, not stored),
2. exits every active *ordinary* context innermost first with
   ``__exit__(None, None, None)`` -- Dynamo's graph ends with the global state
   restored (emitted-code section 2.3); TF modes are not exited,
3. returns ``_Captured((stack values..., live locals..., extras...))`` where
   each ordinary ``__exit__`` slot is replaced by the class it is re-created
   from; a TF mode's slot is left out (the frame loads
   ``modestack.NoEnterMode`` itself, as Dynamo's reconstruct_type loads
   ``NoEnterTorchFunctionMode`` from its polyfills module; the buggy variant
   mode-class-handed returns ``exit_factory``'s type(mode) there).

``GraphFunction`` wraps that helper.  For TF modes it treats the mode-stack
mutations of the prefix as *traced*: the stack is restored to its state at
graph entry and the traced stack is returned, so the rewritten frame replays
it (``set_stack``), as Dynamo's side-effect replay does: as one list, or
(list replay, Dynamo's ``set_torch_function_mode_stack([...])`` shape) as
separate output elements the frame subscripts and puts in a ``BUILD_LIST``.

If the prefix finishes without reaching the break (returns), Dynamo would not
have used this compiled frame at all (its guards/trace would differ); the
graph raises ``GraphBreakNotReached(value)`` and ``Rewrite.make_function``'s
wrapper returns ``value``: the whole call already ran eagerly inside the
graph, so nothing is run twice.
"""

from . import modestack

_PREFIX = "__pyverify_"


class GraphBreakNotReached(Exception):
    """The stand-in graph ran to completion without reaching the break."""

    def __init__(self, value):
        super().__init__(value)
        self.value = value


class _Captured:
    __slots__ = ("values",)

    def __init__(self, values):
        self.values = values


def capture(values):
    return _Captured(values)


def pop_null():
    """Called with the NULL under it as the 'self' slot: consumes a NULL
    (``POP_TOP`` of a NULL would crash 3.11)."""
    return None


class ContextClass:
    """A class-like factory: ``ContextClass(cls, args, kwargs)()`` builds a
    fresh manager.  Used when the ``with`` expression's constructor arguments
    are not compile-time constants (Dynamo would bake the traced values into
    ``LOAD_CONST``s; this rewriter is static, so the graph returns the class
    with its arguments bound and the code calls it with ``CALL 0``)."""

    def __init__(self, cls, args=(), kwargs=None):
        self.cls = cls
        self.args = tuple(args)
        self.kwargs = dict(kwargs or {})

    def __call__(self):
        return self.cls(*self.args, **self.kwargs)

    def __repr__(self):
        return "ContextClass(%s, %r)" % (self.cls.__name__, self.args)


def _manager(bound_exit):
    mgr = getattr(bound_exit, "__self__", None)
    if mgr is None:
        raise TypeError("cannot find the context manager of %r" % (bound_exit,))
    return mgr


def exit_class(bound_exit):
    """reconstruct_type for a ``with G(const, ...)`` site: the class itself;
    the code re-supplies the constant arguments."""
    return type(_manager(bound_exit))


def exit_factory(bound_exit):
    """reconstruct_type for any other ``with`` site.  A manager may describe
    how to re-create itself with ``pv_ctor_args`` (a tuple) and optionally
    ``pv_ctor_kwargs``; otherwise its class is called with no arguments."""
    mgr = _manager(bound_exit)
    args = getattr(mgr, "pv_ctor_args", None)
    if args is None:
        return type(mgr)
    return ContextClass(type(mgr), args, getattr(mgr, "pv_ctor_kwargs", None))


def mode_placeholder(bound_exit):
    """TF modes are rebuilt as the no-enter polyfill class.  No longer called
    by the graph helper (the frame loads ``NoEnterMode`` from the mode-stack
    module); kept installed for bundles written before."""
    mgr = _manager(bound_exit)
    if not isinstance(mgr, modestack.Mode):
        raise TypeError("context %r was declared a torch-function mode but is "
                        "not a pyverify_rewriter.modestack.Mode" % (mgr,))
    return modestack.NoEnterMode


class GraphFunction:
    """The stand-in compiled graph (see module docstring)."""

    def __init__(self, helper, modes, list_replay=False):
        self.helper = helper
        self.modes = int(modes)         # the TF modes active at the break
        self.has_modes = bool(modes)
        # list replay (Dynamo's set_torch_function_mode_stack([...])): the
        # traced modes are returned as separate output elements, as many as
        # the frame's BUILD_LIST was built for
        self.list_replay = list_replay

    def __call__(self, *args):
        before = modestack.get_stack()
        result = self.helper(*args)
        if type(result) is not _Captured:
            raise GraphBreakNotReached(result)
        values = tuple(result.values)
        if self.has_modes:
            traced = modestack.get_stack()
            modestack._stack[:] = before       # the graph itself is pure
            if len(traced) < len(before) + self.modes:
                raise TypeError(
                    "%d context(s) were declared torch-function modes, but "
                    "the prefix pushed %d pyverify_rewriter.modestack modes"
                    % (self.modes, len(traced) - len(before)))
            if not self.list_replay:
                values = values + (traced,)
            elif len(traced) != self.modes:
                # a guard: the frame's BUILD_LIST was traced for this depth
                raise RuntimeError(
                    "the torch-function mode stack at the break holds %d "
                    "mode(s); the list replay was built for %d"
                    % (len(traced), self.modes))
            else:
                values = values + tuple(traced)
        return values

    def __repr__(self):
        return "<GraphFunction %s>" % self.helper.__qualname__


RUNTIME_GLOBALS = {
    _PREFIX + "capture": capture,
    _PREFIX + "pop_null": pop_null,
    _PREFIX + "iter": iter,         # the graph helper's loops (3.15)
    _PREFIX + "exit_class": exit_class,
    _PREFIX + "exit_factory": exit_factory,
    _PREFIX + "mode_placeholder": mode_placeholder,
    "__import_pyverify_rewriter_dot_modestack": modestack,
}
