//===- LiveCode.h - Reading a live CPython code object ----------*- C++ -*-===//
//
// Contract: readLiveCode() converts a live 3.11 code object into a
// pyverify::CodeObject by reading its fields through the CPython API -- no
// marshal round trip. It must be called with the GIL held; the result owns
// copies of everything and can be analysed with the GIL released.
//
// The fields are the 16 marshal stores; co_code is the de-specialised
// bytecode (PyCode_GetCode), exactly what marshal would write. Constants map
// to pyverify::Value; a constant marshal cannot hold (any object of another
// type, a subclass of a marshallable type) becomes an OpaqueValue with its
// type name and repr(). Nested code objects and containers that appear more
// than once are converted once and shared, so a DAG of constants stays
// linear. Nesting deeper than MaxDepth is an error (a live tuple can be
// nested arbitrarily deep; marshal refuses the same at 2000).
//
// On failure it returns false with a Python exception set.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_PYTHON_LIVECODE_H
#define PYVERIFY_PYTHON_LIVECODE_H

#include <Python.h>

#include "pyverify/Bytecode/CodeObject.h"

#include <memory>

namespace pyverify::python {

constexpr unsigned MaxConstDepth = 2000;

/// Converts \p Code (must satisfy PyCode_Check). With \p Recursive false,
/// nested code objects among the constants are not converted field by field:
/// they become OpaqueValues (their repr), since only the root is checked.
std::shared_ptr<const CodeObject> readLiveCode(PyObject *Code, bool Recursive);

} // namespace pyverify::python

#endif
