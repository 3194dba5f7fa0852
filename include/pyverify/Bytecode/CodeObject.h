//===- CodeObject.h - A CPython 3.11 code object ----------------*- C++ -*-===//
//
// Contract: CodeObject holds exactly the 16 fields marshal stores for a 3.11
// code object (Python/marshal.c, w_object TYPE_CODE), unvalidated beyond their
// types: the reader guarantees the fields have the right Python types, and
// nothing else. Bytecode semantics (instruction stream, tables) are checked by
// the decoders that take a CodeObject, so a broken code object can always be
// loaded, listed and diagnosed.
//
// The derived CPython attributes (co_varnames, co_cellvars, co_freevars,
// co_nlocals) are computed from localspluskinds, as CPython does.
//
// A CodeObject does not own its bytes: co_code, the tables and the names are
// views (ByteView) of memory someone else keeps. A reader states whose:
// readMarshal() and readPyc() view their input, kept alive by the owner
// their caller hands them (InputOwner, Marshal.h), or copied once when none
// is given, in a CodeStorage that every code object of the read shares
// (Storage), so their results stand alone; the live-code reader of `import
// pyverify` views the code object's own buffers, valid while that object lives.
// Code built by hand views what its builder keeps (string literals, a buffer of
// the test) or copies it in with own(). A ByteView cannot be made from a
// temporary std::string, so a view of a string about to die does not compile.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_CODEOBJECT_H
#define PYVERIFY_BYTECODE_CODEOBJECT_H

#include "pyverify/Bytecode/PythonVersion.h"

#include "pyverify/Bytecode/Value.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace pyverify {

/// co_flags bits (Include/cpython/code.h).
enum CodeFlags : uint32_t {
  CoOptimized = 0x1,
  CoNewLocals = 0x2,
  CoVarArgs = 0x4,
  CoVarKeywords = 0x8,
  CoNested = 0x10,
  CoGenerator = 0x20,
  CoNoFree = 0x40,
  CoCoroutine = 0x80,
  CoIterableCoroutine = 0x100,
  CoAsyncGenerator = 0x200,
};

/// localspluskinds bits (Include/internal/pycore_code.h).
enum LocalKind : uint8_t {
  CoFastLocal = 0x20,
  CoFastCell = 0x40,
  CoFastFree = 0x80,
};

/// A view of bytes a CodeObject holds: an llvm::StringRef that cannot be
/// made from (or assigned) a temporary std::string.
class ByteView : public llvm::StringRef {
public:
  using llvm::StringRef::StringRef;
  ByteView() = default;
  ByteView(llvm::StringRef S) : llvm::StringRef(S) {}
  ByteView(const std::string &S) : llvm::StringRef(S) {}
  ByteView(std::string &&) = delete;
};

/// Memory code objects view: an arena shared (through CodeObject::Storage)
/// by every code object of one read, and by their copies; and the input
/// they view, when its owner was handed to the reader (Input).
class CodeStorage {
public:
  std::shared_ptr<const void> Input;

  /// A copy of \p S that lives as long as this storage.
  llvm::StringRef copy(llvm::StringRef S) {
    if (S.empty())
      return llvm::StringRef();
    char *P = Arena.Allocate<char>(S.size());
    std::memcpy(P, S.data(), S.size());
    return llvm::StringRef(P, S.size());
  }

private:
  llvm::BumpPtrAllocator Arena;
};

struct CodeObject {
  int32_t ArgCount = 0;
  int32_t PosOnlyArgCount = 0;
  int32_t KwOnlyArgCount = 0;
  int32_t StackSize = 0;
  int32_t Flags = 0;
  ByteView Code; ///< co_code: de-specialised bytes.
  std::vector<Value> Consts;
  std::vector<ByteView> Names;
  std::vector<ByteView> LocalsPlusNames;
  ByteView LocalsPlusKinds; ///< One kind byte per localsplus name.
  ByteView Filename;
  ByteView Name;
  ByteView QualName;
  int32_t FirstLineNo = 0;
  ByteView LineTable;
  ByteView ExceptionTable;
  /// Which CPython's bytecode co_code is (a .pyc's magic, or the reader's
  /// caller: --python-version); nested code objects share it.
  PythonVersion Version = defaultPythonVersion();
  /// What the views above point into when it is not their reader's
  /// caller's: shared by the code objects of one read and by copies.
  std::shared_ptr<CodeStorage> Storage;

  /// A copy of \p S in Storage (made on first use), for a field. Not
  /// synchronised: the code objects of one read share their storage.
  ByteView own(llvm::StringRef S) {
    if (!Storage)
      Storage = std::make_shared<CodeStorage>();
    return Storage->copy(S);
  }

  /// Code objects in co_consts, in order (the children `dis` recurses into).
  std::vector<const CodeObject *> children() const;

  /// True for generator, coroutine and async generator code (which CPython
  /// starts at stack depth 1, see RETURN_GENERATOR).
  bool isGeneratorLike() const {
    return Flags & (CoGenerator | CoCoroutine | CoAsyncGenerator);
  }

  unsigned getNumLocals() const;                ///< co_nlocals
  std::vector<std::string> getVarNames() const; ///< co_varnames
  std::vector<std::string> getCellVars() const; ///< co_cellvars
  std::vector<std::string> getFreeVars() const; ///< co_freevars
  /// Local \p L as a message names it: co_localsplusnames[L], or "#L" when
  /// the code has no such slot (malformed code's findings name it so).
  std::string describeLocal(uint32_t L) const;
};

/// Visits \p Root and every nested code object in pre-order (co_consts order),
/// the order `dis` lists them in, each distinct object once (marshal
/// back-references can share one between several parents). \p Visit gets the
/// nesting depth (0 = root).
void forEachCodeObject(
    const CodeObject &Root,
    llvm::function_ref<void(const CodeObject &, unsigned Depth)> Visit);

/// forEachCodeObject over several roots of one file (a marshal stream's
/// list of code objects), each distinct code object once over all of them:
/// a root, or a child, already visited from an earlier root is not visited
/// again. Without it, roots that share one chain through back-references
/// are walked once each, a cost quadratic in the input.
class CodeObjectWalk {
public:
  void
  visit(const CodeObject &Root,
        llvm::function_ref<void(const CodeObject &, unsigned Depth)> Visit);
  /// The code objects visited so far (for walks of their own, such as
  /// writeCodeTreeJSON's, that share this one's memory of them).
  llvm::SmallPtrSetImpl<const CodeObject *> &seen() { return Seen; }

private:
  llvm::SmallPtrSet<const CodeObject *, 16> Seen;
};

} // namespace pyverify

#endif
