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
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_CODEOBJECT_H
#define PYVERIFY_BYTECODE_CODEOBJECT_H

#include "pyverify/Bytecode/PythonVersion.h"

#include "pyverify/Bytecode/Value.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cstdint>
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

struct CodeObject {
  int32_t ArgCount = 0;
  int32_t PosOnlyArgCount = 0;
  int32_t KwOnlyArgCount = 0;
  int32_t StackSize = 0;
  int32_t Flags = 0;
  std::string Code; ///< co_code: de-specialised bytes.
  std::vector<Value> Consts;
  std::vector<std::string> Names;
  std::vector<std::string> LocalsPlusNames;
  std::string LocalsPlusKinds; ///< One kind byte per localsplus name.
  std::string Filename;
  std::string Name;
  std::string QualName;
  int32_t FirstLineNo = 0;
  std::string LineTable;
  std::string ExceptionTable;
  /// Which CPython's bytecode co_code is (a .pyc's magic, or the reader's
  /// caller: --python-version); nested code objects share it.
  PythonVersion Version = defaultPythonVersion();

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
