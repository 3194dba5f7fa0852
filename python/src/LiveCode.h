//===- LiveCode.h - Reading a live CPython code object ----------*- C++ -*-===//
//
// Contract: readLiveCode() converts a live 3.11 code object into a
// pyverify::CodeObject by reading its fields through the CPython API -- no
// marshal round trip. It must be called with the GIL held; the result owns
// copies of everything (in its CodeStorage) and can be analysed with the
// GIL released, and kept.
//
// The fields are the 16 marshal stores; co_code is the de-specialised
// bytecode (PyCode_GetCode), exactly what marshal would write. Constants map
// to pyverify::Value; a constant marshal cannot hold (any object of another
// type, a subclass of a marshallable type) becomes an OpaqueValue with its
// type name and repr(). Nested code objects and containers that appear more
// than once are converted once and shared, so a DAG of constants stays
// linear. Nesting deeper than MaxConstDepth is an error (a live tuple can be
// nested arbitrarily deep; marshal refuses the same at 2000). Containers and
// code objects being read are an explicit stack, so the C stack used is the
// same at any depth (verify() runs on the caller's thread, whose stack can be
// 32 KiB: threading.stack_size).
//
// On failure it returns false (or null) with a Python exception set.
//
// LiveCodeReader reads one code object after another into the same
// buffers: verify() keeps one per thread, so that reading a typical function
// allocates only for its constant tuples. It copies no field: co_code, the
// tables and the names of what it reads are views of the live objects' own
// buffers (CodeObject.h), valid until clear() -- the caller keeps the code
// object alive until then, and the reader holds a reference to each
// co_code, which CPython caches and may drop.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_PYTHON_LIVECODE_H
#define PYVERIFY_PYTHON_LIVECODE_H

#include <Python.h>

#include "pyverify/Bytecode/CodeObject.h"

#include <memory>
#include <string>
#include <vector>

namespace pyverify::python {

constexpr unsigned MaxConstDepth = 2000;

/// Converts \p Code (must satisfy PyCode_Check). With \p Recursive false,
/// nested code objects among the constants are not converted field by field:
/// they become OpaqueValues (their repr), since only the root is checked.
std::shared_ptr<const CodeObject> readLiveCode(PyObject *Code, bool Recursive);

/// Reads live code objects one after another into buffers kept from read
/// to read: the root CodeObject, whose strings and vectors keep their
/// capacity, and the str, bytes and repr payloads of the last read's
/// constants that nothing else holds, refilled in place. Not synchronised:
/// one thread at a time.
class LiveCodeReader {
public:
  /// Reads \p Code (must satisfy PyCode_Check) into root(), every field, as
  /// readLiveCode does. False with a Python exception set on failure
  /// (root() is then partial).
  bool read(PyObject *Code, bool Recursive);
  /// The last read, and its nested code objects (read with Recursive):
  /// their views are valid until clear().
  const CodeObject &root() const { return Root; }
  /// Ends a read (with the GIL held): drops the constants, keeping
  /// unshared payloads to refill, the views, and the references behind
  /// them.
  void clear();

  static constexpr size_t MaxSpare = 256;
  static constexpr size_t MaxSpareBytes = 1024;

private:
  CodeObject Root;
  std::vector<std::shared_ptr<std::string>> Spare;
  /// The co_code bytes objects the views of this read point into.
  std::vector<PyObject *> Held;
};

} // namespace pyverify::python

#endif
