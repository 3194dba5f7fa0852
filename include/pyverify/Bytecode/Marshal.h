//===- Marshal.h - Reading .pyc files and marshal streams -------*- C++ -*-===//
//
// Contract: readMarshal() parses one object in CPython's marshal format
// version 4 as python3.11 writes and reads it (Python/marshal.c), and
// readPyc() a .pyc file: the 16-byte PEP 552 header (magic 3495, flags 0,
// 1 or 3) followed by a marshalled code object. Both are total functions over
// arbitrary bytes: malformed input yields an llvm::Error whose message names
// the byte offset and what was expected there, never a crash, a hang, or
// memory beyond a constant factor of the input size.
//
// Back-references follow marshal's pre-order numbering: code objects reserve
// their slot before their fields and are filled after; a reference to a slot
// still under construction is an error (CPython: "NULL object in marshal
// data"), so the result is always acyclic. Nesting is limited to
// MaxMarshalDepth (CPython's MAX_MARSHAL_STACK_DEPTH) objects written inside
// each other; back-references to finished objects nest deeper (about one
// level per two input bytes). Reading uses the same C stack whatever the
// nesting (a heap stack of open containers), so it is safe on a thread with
// a small stack (a Python thread's can be 32 KiB), as are Value's repr() and
// destructor.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_MARSHAL_H
#define PYVERIFY_BYTECODE_MARSHAL_H

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/Value.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace pyverify {

constexpr uint32_t PycMagic311 = 3495;
constexpr unsigned MaxMarshalDepth = 2000;

struct PycHeader {
  uint32_t Magic = 0;
  uint32_t Flags = 0; ///< Bit 0: hash-based; bit 1: check_source.
  uint32_t Word2 = 0; ///< Source mtime, or low half of the SipHash.
  uint32_t Word3 = 0; ///< Source size, or high half of the SipHash.
  bool isHashBased() const { return Flags & 1; }
};

struct PycFile {
  PycHeader Header;
  std::shared_ptr<const CodeObject> Code;
};

/// Who keeps a read's input alive: the code objects read view it
/// (CodeObject.h). Null: the reader copies the input once, into their
/// storage. Otherwise the owner of the memory \p Bytes views, which the
/// code objects' storage then holds, or borrowedInput()'s.
using InputOwner = std::shared_ptr<const void>;

/// An InputOwner that owns nothing: the caller keeps \p Bytes alive, and
/// unchanged, longer than every code object read from them.
inline InputOwner borrowedInput(llvm::StringRef Bytes) {
  // The aliasing constructor with no owner: not null, frees nothing.
  return InputOwner(std::shared_ptr<void>(), Bytes.data() ? Bytes.data() : "");
}

/// Parses exactly one marshalled object filling \p Bytes (trailing bytes are
/// an error). \p BaseOffset is added to every offset in error messages.
/// Its code objects are \p Version's bytecode.
llvm::Expected<Value>
readMarshal(llvm::StringRef Bytes, uint64_t BaseOffset = 0,
            PythonVersion Version = defaultPythonVersion(),
            InputOwner Owner = nullptr);

/// Parses a .pyc file; its payload must be a code object. The magic must be
/// 3.11's, or with \p AnyVersion the magic of any version with opcode
/// tables (PythonVersion.h), whose bytecode the code objects then are.
llvm::Expected<PycFile> readPyc(llvm::StringRef Bytes, bool AnyVersion = false,
                                InputOwner Owner = nullptr);

/// True if \p Bytes starts with the 3.11 .pyc magic.
bool hasPyc311Magic(llvm::StringRef Bytes);

/// The version whose .pyc \p Bytes starts like (magic number, "\r\n"), if
/// it is one with opcode tables (pythonVersionOfPycMagic).
std::optional<PythonVersion> pycVersion(llvm::StringRef Bytes);

/// Collects the top-level code objects of a marshal value: the value itself
/// if it is code, else the code objects directly inside a tuple, list, set,
/// frozenset or dict (keys then value, in stream order).
std::vector<std::shared_ptr<const CodeObject>>
collectTopLevelCode(const Value &V);

} // namespace pyverify

#endif
