//===- LowerKind.h - What lowering each opcode takes ------------*- C++ -*-===//
//
// Private to lib/Analysis (MicroOps.cpp, LowerKind.cpp). Each (version,
// opcode byte) gets its LowerKind once, in a table built at start-up from
// the opcode tables (classify(): the one switch over opcode identities),
// with the LowersTo classes each kind's lowering may hold (MicroOps.h's
// mayLowerTo reads them). A lowering is then one load and one switch over
// the dense kinds.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_ANALYSIS_LOWERKIND_H
#define PYVERIFY_LIB_ANALYSIS_LOWERKIND_H

#include "pyverify/Bytecode/PythonVersion.h"

#include <array>
#include <cstdint>

namespace pyverify::lowering {

/// What lowering an opcode takes: its micro-operations' shape.
enum class LowerKind : uint8_t {
  Effect,
  EffectSuspends,
  EffectNamespace,
  CallIntrinsic1, ///< An Effect whose scope its operand says.
  LoadFast,
  LoadFastCheck,
  LoadFastAndClear,
  LoadFastLoadFast,
  LoadFastBorrow,
  LoadFastBorrowPair,
  StoreFast,
  StoreFastLoadFast,
  StoreFastStoreFast,
  DeleteFast,
  PushNull,
  LoadConst,
  MakeCell,
  CopyFreeVars,
  PopExcept,
  LoadGlobal,
  LoadAttr,
  LoadMethod,
  LoadSpecial,
  CallPrepare,
  Call,
  CallKw,
  Copy,
  Swap,
  UnpackSequence,
  Subscript,
  BuildList,
  BuildTuple,
  Branch,
  Nop,
  Return,
  ReturnConst,
  Raise,
  EnterWith,
  EnterAsyncWith,
  ExitCallStart,
  PushExcInfo,
  ExcMatch,
  Not,
  ToBool,
  LoadCell,
  StoreCell,
};

/// Every version's kinds by opcode byte (LowerKind.cpp).
extern const std::array<std::array<LowerKind, 256>, NumPythonVersions>
    &TheKinds;

} // namespace pyverify::lowering

#endif
