"""A stand-in for the parts of TorchDynamo that pyverify.dynamo depends on.

torch cannot be installed on the test machines. This module copies the
signatures and the behaviour pyverify.dynamo relies on, each piece from the
torch file its docstring names (PyTorch's torch/_dynamo, 2.6's signatures;
where versions differ the docstring says how). Nothing else of Dynamo is
here: the rewrite itself is pyverify_rewriter's (a miniature Dynamo-style
rewriter), standing in for InstructionTranslator's tracing and codegen.

``fake_torch(dir)`` lays out a ``torch/_dynamo`` package in ``dir`` whose
modules are these objects, so that ``import torch._dynamo`` (and
``pyverify.dynamo.install()`` with its defaults) finds the stand-in as it
would find torch.

The flow of one graph break (``convert_frame`` -> ``_compile``):

* ``_compile`` calls the transform (here ``InstructionTranslator.run``),
  which builds the block stack from the rewrite's contexts (a
  TorchFunctionModeVariable for a mode, a ContextWrappingVariable for an
  ordinary with) and calls ``create_call_resume_at``; that calls
  ``ContinueExecutionCache.lookup`` -> ``generate`` with the real arguments
  (the handler offsets, ``ReenterWith(stack_index)`` per block) and installs
  the resume function as the global ``__resume_at_<offset>_<n>``;
* then ``_compile`` calls every bytecode hook as ``hook(code, out_code)``;
  an exception from a hook (or from the transform) is re-raised as
  ``InternalTorchDynamoError(f"{type(e).__qualname__}: {e}") from None``;
* ``convert_frame`` falls back to eager (returns None) when
  ``config.suppress_errors`` is set, and re-raises otherwise.
"""

import dataclasses
import itertools
import logging
import os
import types
from typing import Any, Optional, Tuple

import pyverify_rewriter

log = logging.getLogger("dynamo_contract")


# --- torch/_dynamo/exc.py -------------------------------------------------

class TorchDynamoException(RuntimeError):
    """torch/_dynamo/exc.py TorchDynamoException."""


class InternalTorchDynamoError(TorchDynamoException):
    """torch/_dynamo/exc.py InternalTorchDynamoError: what _compile raises
    for any exception that is not one of Dynamo's own kinds."""


class Unsupported(TorchDynamoException):
    """torch/_dynamo/exc.py Unsupported: a graph break; _compile re-raises
    it as it is."""


# --- torch/_dynamo/config.py ----------------------------------------------

config = types.SimpleNamespace(
    # torch/_dynamo/config.py suppress_errors: convert_frame falls back to
    # eager instead of raising (also TORCHDYNAMO_SUPPRESS_ERRORS=1).
    suppress_errors=bool(os.environ.get("TORCHDYNAMO_SUPPRESS_ERRORS",
                                        False)))


# --- torch/utils/hooks.py, torch/_dynamo/convert_frame.py ----------------

_bytecode_hooks = {}
_ids = itertools.count()


class RemovableHandle:
    """torch/utils/hooks.py RemovableHandle: remove() unregisters."""

    def __init__(self, hooks, key):
        self._hooks = hooks
        self._key = key

    def remove(self):
        self._hooks.pop(self._key, None)


def register_bytecode_hook(hook):
    """torch/_dynamo/convert_frame.py register_bytecode_hook: ``hook(code,
    out_code)`` is called for every code object _compile emits; returns a
    RemovableHandle."""
    key = next(_ids)
    _bytecode_hooks[key] = hook
    return RemovableHandle(_bytecode_hooks, key)


_RERAISED = (Unsupported, AssertionError)


def _compile(code, globals, transform):
    """torch/_dynamo/convert_frame.py _compile (2.1 onwards): the transform
    (transform_code_object(code, transform) there), then every bytecode
    hook; a hook's non-None result replaces out_code. Any exception but
    Dynamo's own kinds (Unsupported, AssertionError, ... here the first two)
    is re-raised as InternalTorchDynamoError(f"{type(e).__qualname__}:
    {str(e)}") from None: ``__cause__`` is None and the context suppressed
    in the traceback, but ``err.__context__`` is the original exception."""
    try:
        out_code = transform(code, globals)
        for hook in list(_bytecode_hooks.values()):
            hook_output = hook(code, out_code)
            if hook_output is not None:
                out_code = hook_output
        return out_code
    except _RERAISED:
        raise
    except Exception as e:
        raise InternalTorchDynamoError(
            f"{type(e).__qualname__}: {str(e)}").with_traceback(
                e.__traceback__) from None


def convert_frame(code, globals, transform):
    """torch/_dynamo/convert_frame.py ConvertFrame.__call__: _compile, and
    on an exception either re-raise it or, with config.suppress_errors,
    log it and return None (the frame runs eagerly)."""
    try:
        return _compile(code, globals, transform)
    except Exception as e:
        if not config.suppress_errors and not isinstance(e, Unsupported):
            raise
        log.warning("WON'T CONVERT %s: %s", code.co_name, e)
        return None


# --- torch/_dynamo/resume_execution.py ------------------------------------

@dataclasses.dataclass(frozen=True)
class ReenterWith:
    """torch/_dynamo/resume_execution.py ReenterWith: the stack slot of a
    context the resume function re-enters, and its constructor arguments.
    (Its codegen, __call__ / try_finally / try_except_torch_function_mode,
    is the rewriter's here.)"""
    stack_index: int
    target_values: Optional[Tuple[Any, ...]] = None


@dataclasses.dataclass
class ResumeFunctionMetadata:
    """torch/_dynamo/resume_execution.py ResumeFunctionMetadata."""
    code: types.CodeType


# (code, resume offset) -> the resume code object the rewriter made for it:
# what generate's transform_code_object would build.
_emitted = {}


class ContinueExecutionCache:
    """torch/_dynamo/resume_execution.py ContinueExecutionCache."""
    cache = {}
    generated_code_metadata = {}

    @classmethod
    def lookup(cls, code, lineno, *key):
        """ContinueExecutionCache.lookup (2.1-2.6; later versions name the
        third argument init_offset): one generate per (code, key)."""
        if code not in cls.cache:
            cls.cache[code] = dict()
        key = tuple(key)
        if key not in cls.cache[code]:
            cls.cache[code][key] = cls.generate(code, lineno, *key)
        return cls.cache[code][key]

    @classmethod
    def generate(cls, code, lineno, offset: int,
                 setup_fn_target_offsets: Tuple[int, ...], nstack: int,
                 argnames: Tuple[str, ...], argnames_null: Tuple[str, ...],
                 setup_fns: Tuple[ReenterWith, ...],
                 stack_ctx_vars: Tuple[Tuple[int, Tuple[Any, ...]], ...],
                 argnames_ctx_vars: Tuple[Tuple[str, Tuple[Any, ...]], ...],
                 null_idxes: Tuple[int, ...]):
        """ContinueExecutionCache.generate, 2.6's signature: ``offset``
        where the resume function continues ``code``;
        ``setup_fn_target_offsets`` the original's handler offset of each
        block (3.11+); ``setup_fns`` a ReenterWith per block, outermost
        first. (2.1: no argnames_null, stack_ctx_vars, argnames_ctx_vars;
        2.7+: init_offset, resume_offset instead of offset, and
        nested_code_objs after null_idxes.) The code it returns is the
        rewriter's resume function for (code, offset)."""
        assert offset is not None
        assert code.co_flags & 0x1  # CO_OPTIMIZED
        assert len(setup_fn_target_offsets) == len(setup_fns)
        new_code = _emitted[(code, offset)]
        cls.generated_code_metadata[new_code] = ResumeFunctionMetadata(code)
        return new_code


# --- torch/_dynamo/variables/ctx_manager.py, torch_function.py -----------

class ContextWrappingVariable:
    """torch/_dynamo/variables/ctx_manager.py ContextWrappingVariable: an
    ordinary context on the block stack."""

    def __init__(self, target_values=None):
        self.target_values = target_values


class TorchFunctionModeVariable(ContextWrappingVariable):
    """torch/_dynamo/variables/torch_function.py TorchFunctionModeVariable:
    a torch-function mode on the block stack (create_call_resume_at hands
    it to the resume function as NoEnterTorchFunctionMode)."""


# --- torch/_dynamo/symbolic_convert.py ------------------------------------

@dataclasses.dataclass
class _Inst:
    offset: int


@dataclasses.dataclass
class BlockStackEntry:
    """torch/_dynamo/symbolic_convert.py BlockStackEntry (2.6): target is
    the block's handler instruction; stack_index the stack depth after
    BEFORE_WITH pushed the bound __exit__, so resume_fn's ReenterWith names
    that slot (stack_index - 1)."""
    inst: Optional[_Inst]
    target: _Inst
    stack_index: int
    with_context: Optional[ContextWrappingVariable] = None

    def can_restore(self):
        return self.with_context is not None

    def resume_fn(self):
        assert self.stack_index is not None
        if self.with_context and self.with_context.target_values:
            return ReenterWith(self.stack_index - 1,
                               tuple(self.with_context.target_values))
        return ReenterWith(self.stack_index - 1)


class InstructionTranslator:
    """torch/_dynamo/symbolic_convert.py InstructionTranslator, the part
    that matters at a graph break: the block stack and
    create_call_resume_at. ``claims`` (a callable on the list of context
    dicts) lets a test make Dynamo's record differ from the code."""

    def __init__(self, code, f_globals, rewrite, claims=None):
        self.f_code = code
        self.f_globals = f_globals
        self.rewrite = rewrite
        self.lineno = code.co_firstlineno
        contexts = [dict(c) for c in rewrite.contexts]
        if claims is not None:
            contexts = claims(contexts)
        self.block_stack = [
            BlockStackEntry(None, _Inst(c["handler"]), c["stack_index"] + 1,
                            TorchFunctionModeVariable()
                            if c["kind"] == "mode"
                            else ContextWrappingVariable())
            for c in contexts]

    def run(self):
        """The transform: the rewriter's frame, its globals installed (as
        OutputGraph.install_global does), the resume function generated
        through ContinueExecutionCache."""
        r = self.rewrite
        g = dict(r.globals)
        g.pop(r.resume_name)
        self.f_globals.update(g)
        _emitted[(self.f_code, r.resume_offset)] = r.resume
        self.create_call_resume_at(_Inst(r.resume_offset))
        return r.frame

    def create_call_resume_at(self, inst):
        """InstructionTranslator.create_call_resume_at (2.6): the lookup
        with the block stack's handler offsets and ReenterWith objects, the
        resume function installed as a global."""
        r = self.rewrite
        new_code = ContinueExecutionCache.lookup(
            self.f_code, self.lineno, inst.offset,
            tuple(b.target.offset for b in self.block_stack),
            len(self.block_stack), tuple(r.resume.co_varnames[
                len(self.block_stack):r.resume.co_argcount]), (),
            tuple(b.resume_fn() for b in self.block_stack), (), (), ())
        self.f_globals[r.resume_name] = types.FunctionType(
            new_code, r.func.__globals__, r.resume_name, None,
            r.func.__closure__)
        return new_code


# --- the tests' entry points ----------------------------------------------

def compile_break(func, break_offset, globals, *, variant="correct",
                  modes=(), claims=None):
    """Dynamo compiling ``func`` with a graph break at ``break_offset``
    (pyverify_rewriter.rewrite's ``variant`` of it): convert_frame ->
    _compile -> InstructionTranslator -> the hooks. Returns (rewrite, the
    out_code the hooks left, or None when suppress_errors fell back to
    eager). Each call is a new program for the cache."""
    r = pyverify_rewriter.rewrite(func, break_offset, modes=modes,
                                  variant=variant)
    ContinueExecutionCache.cache.clear()

    def transform(code, g):
        return InstructionTranslator(code, g, r, claims).run()

    return r, convert_frame(func.__code__, globals, transform)


def compile_resume(resume_fn, globals):
    """Dynamo compiling a resume function when it is first called (here:
    its code unchanged). A leaf resume function without a graph is never
    compiled (SkipFrame): do not call this for it."""
    return _compile(resume_fn.__code__, globals, lambda code, g: code)


_PACKAGE = {
    "torch/__init__.py": "",
    "torch/_dynamo/__init__.py":
        "from . import config, convert_frame, exc, resume_execution\n"
        "from . import symbolic_convert\n"
        "from .variables import torch_function\n",
    "torch/_dynamo/exc.py":
        "from dynamo_contract import (InternalTorchDynamoError,\n"
        "    TorchDynamoException, Unsupported)\n",
    "torch/_dynamo/config.py":
        "import dynamo_contract\n"
        "def __getattr__(name):\n"
        "    return getattr(dynamo_contract.config, name)\n",
    "torch/_dynamo/convert_frame.py":
        "from dynamo_contract import (_bytecode_hooks, _compile,\n"
        "    convert_frame, register_bytecode_hook)\n",
    "torch/_dynamo/resume_execution.py":
        "from dynamo_contract import (ContinueExecutionCache, ReenterWith,\n"
        "    ResumeFunctionMetadata)\n",
    "torch/_dynamo/symbolic_convert.py":
        "from dynamo_contract import BlockStackEntry, InstructionTranslator\n",
    "torch/_dynamo/variables/__init__.py": "",
    "torch/_dynamo/variables/torch_function.py":
        "from dynamo_contract import TorchFunctionModeVariable\n",
}


def fake_torch(root):
    """Writes the ``torch/_dynamo`` package (these objects under torch's
    module names) into ``root``; put ``root`` and this file's directory on
    sys.path to import it. Returns ``root``."""
    for rel, text in _PACKAGE.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return root
