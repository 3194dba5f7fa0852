"""pyverify_rewriter: a graph-break rewriter for CPython 3.11 bytecode (and,
run under python3.12 / python3.13 / the 3.14 oracle, that version's bytecode;
each bundle says its python_version).

It reproduces the shapes TorchDynamo emits when it splits a function at an
unsupported CALL inside ``with`` blocks (docs/emitted-code.md): the rewritten
original frame, the resume function and the torch-function-mode variant, plus
deliberately buggy variants for testing pyverify.  Pure Python; no C++ module
needed.  See README.md.
"""

from .rewriter import (EXPECT, VARIANTS, BreakPoint, Rewrite, RewriteError,
                       VariantNotApplicable, break_points, rewrite)
from .bundle import to_bundle_dict, write_bundle
from .runtime import GraphBreakNotReached
from . import modestack

__all__ = [
    "rewrite", "Rewrite", "RewriteError", "VariantNotApplicable", "VARIANTS",
    "EXPECT", "break_points", "BreakPoint", "to_bundle_dict", "write_bundle",
    "GraphBreakNotReached", "modestack",
]
