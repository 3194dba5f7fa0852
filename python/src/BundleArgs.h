//===- BundleArgs.h - Python arguments to code objects and bundles -*- C++
//-*-===//
//
// Shared by the two extension modules (_pyverify and _pyverify_prove): the
// code object of a Python argument, read through the live reader, and the
// Bundle of a _verify_bundle / _prove_bundle call. Every function here reads
// Python objects, so the GIL must be held; bad arguments raise Python
// exceptions (pybind11 error types), never assert.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_PYTHON_BUNDLEARGS_H
#define PYVERIFY_PYTHON_BUNDLEARGS_H

#include "pyverify/Bytecode/Bundle.h"
#include "pyverify/Bytecode/CodeObject.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <string>

namespace pyverify::python {

/// The code object of \p Obj: a code object, or anything with __code__
/// (functions, methods); TypeError naming \p What otherwise.
pybind11::object codeOf(const pybind11::handle &Obj, const char *What);

/// The live reader's CodeObject tree for \p Code (a code object); the
/// reader's Python exception is raised on bad input.
std::shared_ptr<const CodeObject> readOrThrow(const pybind11::object &Code,
                                              bool Recursive);

/// The Bundle of a _verify_bundle / _prove_bundle call. \p Resumes: a
/// sequence of (code, original_offset, [(kind, handler, stack_index)])
/// tuples; the Python wrapper normalises dicts to this.
Bundle buildBundle(const pybind11::object &Original,
                   const pybind11::object &Frame,
                   const pybind11::object &BreakOffset,
                   const pybind11::list &Resumes);

} // namespace pyverify::python

#endif // PYVERIFY_PYTHON_BUNDLEARGS_H
