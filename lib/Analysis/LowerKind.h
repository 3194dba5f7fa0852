//===- LowerKind.h - What lowering each opcode takes ------------*- C++ -*-===//
//
// Private to lib/Analysis (MicroOps.cpp, LowerKind.cpp, ValueKinds.cpp,
// BorrowedRefs.cpp).
// Each (version, opcode byte) gets its LowerKind once, in a table built at
// start-up from the opcode tables (classify(): the one switch over opcode
// identities), with the LowersTo classes each kind's lowering may hold
// (MicroOps.h's mayLowerTo reads them). A lowering is then one load and one
// switch over the dense kinds: lowerEach(), which hands each
// micro-operation to a callback as its own type. lowerInstruction() is
// lowerEach() collecting them into a MicroOps; a pass that steps every
// instruction (ValueKinds.cpp) visits them straight from lowerEach(),
// inlined -- no call, no list, no variant to dispatch on -- and so sees the
// very micro-operations lowerInstruction() gives.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_ANALYSIS_LOWERKIND_H
#define PYVERIFY_LIB_ANALYSIS_LOWERKIND_H

#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Bytecode/InstructionStream.h"
#include "pyverify/Bytecode/PythonVersion.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include "llvm/Support/Compiler.h"

#include <array>
#include <cassert>
#include <cstdint>
#include <optional>
#include <utility>

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

/// \p I's kind, BINARY_OP's subscript operators apart.
inline LowerKind kindOf(const Instruction &I) {
  LowerKind K = TheKinds[unsigned(I.Ver)][I.OpByte];
  if (K == LowerKind::Effect && I.is(Opcode::BINARY_OP) &&
      isSubscriptOperator(I.Ver, I.Arg))
    return LowerKind::Subscript;
  return K;
}

/// The argument's two 4-bit local indices (3.13's paired local opcodes):
/// the high one first.
inline std::pair<uint32_t, uint32_t> localPair(uint32_t Arg) {
  return {Arg >> 4, Arg & 15};
}

/// The special method LOAD_SPECIAL \p I names (MicroOps.cpp).
uop::SpecialMethod specialMethod(const Instruction &I);

/// Whether the K-th value \p I pops may be NULL (its row's NullIn column).
inline bool nullIn(const OpcodeInfo &Info, uint32_t Arg, unsigned K) {
  return (uint64_t(Info.NullIn.eval(Arg)) >> K) & 1;
}

/// What an Effect of kind \p K with operand \p Arg does beyond its values.
inline uop::EffectScope effectScope(LowerKind K, uint32_t Arg) {
  // CALL_INTRINSIC_1's operands (dis._intrinsic_1_descs, 3.12 and 3.13).
  constexpr uint32_t IntrinsicImportStar = 2, IntrinsicAsyncGenWrap = 4;
  switch (K) {
  case LowerKind::EffectSuspends:
    return uop::EffectScope::Suspends;
  case LowerKind::EffectNamespace:
    return uop::EffectScope::Namespace;
  case LowerKind::CallIntrinsic1:
    return Arg == IntrinsicImportStar     ? uop::EffectScope::Namespace
           : Arg == IntrinsicAsyncGenWrap ? uop::EffectScope::Suspends
                                          : uop::EffectScope::Values;
  default:
    return uop::EffectScope::Values;
  }
}

/// The Effect of \p I on an edge (\p Jump: its jump edge): getStackIO()'s
/// counts but Reads, which an Effect has not (read here alone: most
/// are constants, one test each).
inline uop::Effect effectOf(LowerKind K, const Instruction &I,
                            const OpcodeInfo &Info, bool Jump) {
  const uint32_t A = I.Arg;
  return uop::Effect{(Jump ? Info.JumpPops : Info.Pops).eval(A),
                     (Jump ? Info.JumpPushes : Info.Pushes).eval(A),
                     uint64_t(Info.NullIn.eval(A)),
                     uint64_t(Info.NullOut.eval(A)), effectScope(K, A)};
}

/// The micro-operations of the locals, cells and stack kinds, to \p Emit;
/// false for the other kinds.
template <typename EmitFn>
LLVM_ATTRIBUTE_ALWAYS_INLINE bool
lowerLocalsAndStack(LowerKind K, const Instruction &I, const OpcodeInfo &Info,
                    EmitFn &Emit) {
  const uint32_t A = I.Arg;
  switch (K) {
  case LowerKind::LoadFastCheck:
    Emit(uop::LoadLocal{A, uop::LocalRead::Checked});
    return true;
  case LowerKind::LoadFastAndClear:
    Emit(uop::LoadLocal{A, uop::LocalRead::Saved});
    Emit(uop::DeleteLocal{A});
    return true;
  case LowerKind::LoadFastLoadFast:
    Emit(uop::LoadLocal{localPair(A).first});
    Emit(uop::LoadLocal{localPair(A).second});
    return true;
  // 3.14's borrowing loads do not check either (3.14.2 pushes an unbound
  // local's NULL: tests/lit/check/load-fast-borrow-local.py).
  case LowerKind::LoadFastBorrow:
    Emit(uop::LoadLocal{A, uop::LocalRead::Unchecked, true});
    return true;
  case LowerKind::LoadFastBorrowPair:
    Emit(uop::LoadLocal{localPair(A).first, uop::LocalRead::Unchecked, true});
    Emit(uop::LoadLocal{localPair(A).second, uop::LocalRead::Unchecked, true});
    return true;
  case LowerKind::StoreFast:
    Emit(uop::StoreLocal{A, nullIn(Info, A, 0)});
    return true;
  case LowerKind::StoreFastLoadFast:
    Emit(uop::StoreLocal{localPair(A).first, nullIn(Info, A, 0)});
    Emit(uop::LoadLocal{localPair(A).second});
    return true;
  case LowerKind::StoreFastStoreFast: // the top (popped value 1) first
    Emit(uop::StoreLocal{localPair(A).first, nullIn(Info, A, 1)});
    Emit(uop::StoreLocal{localPair(A).second, nullIn(Info, A, 0)});
    return true;
  case LowerKind::DeleteFast:
    Emit(uop::DeleteLocal{A, /*Checked=*/true});
    return true;
  case LowerKind::MakeCell:
    Emit(uop::MakeCell{A});
    return true;
  case LowerKind::CopyFreeVars:
    Emit(uop::CopyFreeVars{A});
    return true;
  case LowerKind::LoadCell:
    Emit(uop::LoadCell{A});
    return true;
  case LowerKind::StoreCell:
    Emit(uop::StoreCell{A});
    return true;
  case LowerKind::Copy:
    Emit(uop::Copy{A});
    return true;
  case LowerKind::Swap:
    Emit(uop::Swap{A});
    return true;
  case LowerKind::UnpackSequence:
    Emit(uop::UnpackSequence{A});
    return true;
  case LowerKind::BuildList:
  case LowerKind::BuildTuple:
    Emit(uop::BuildSequence{A, K == LowerKind::BuildList});
    return true;
  default:
    return false;
  }
}

/// The micro-operations of control, exception handling and with
/// statements, to \p Emit; false for the other kinds.
template <typename EmitFn>
LLVM_ATTRIBUTE_ALWAYS_INLINE bool
lowerControl(LowerKind K, const Instruction &I, const OpcodeInfo &Info,
             EmitFn &Emit) {
  switch (K) {
  case LowerKind::Branch:
    if (std::optional<uop::Test> T = branchTest(I, false)) {
      Emit(*T);
      if (T->Kind == uop::TestKind::Exhausted)
        Emit(uop::Next{});
      return true;
    }
    return false; // SEND: no test of a value (an Effect)
  case LowerKind::Nop:
    Emit(uop::Nop{});
    return true;
  case LowerKind::Return:
    Emit(uop::Return{});
    return true;
  case LowerKind::ReturnConst:
    Emit(uop::LoadConst{I.Arg});
    Emit(uop::Return{});
    return true;
  case LowerKind::Raise:
    Emit(uop::Raise{Info.Pops.eval(I.Arg)}); // getStackIO's Pops
    return true;
  case LowerKind::EnterWith:
  case LowerKind::EnterAsyncWith:
    Emit(uop::EnterWith{K == LowerKind::EnterAsyncWith});
    return true;
  case LowerKind::ExitCallStart:
    // The bound __exit__ is the deepest slot it reads (its row's Reads).
    Emit(uop::ExitCallStart{uint32_t(Info.Reads.eval(I.Arg))});
    return true;
  case LowerKind::PushExcInfo:
    Emit(uop::PushExcInfo{});
    return true;
  case LowerKind::ExcMatch:
    Emit(uop::ExcMatch{});
    return true;
  case LowerKind::Not:
    Emit(uop::Not{});
    return true;
  case LowerKind::ToBool:
    Emit(uop::ToBool{});
    return true;
  default:
    return false;
  }
}

/// lowerInstruction()'s micro-operations of valid instruction \p I on its
/// fall-through edge (\p JumpEdge false) or its jump edge, in order, each
/// to \p Emit as its own alternative of MicroOp.
template <typename EmitFn>
LLVM_ATTRIBUTE_ALWAYS_INLINE void lowerEach(const Instruction &I, bool JumpEdge,
                                            EmitFn &&Emit) {
  assert(I.Valid && "lowering an invalid instruction");
  const OpcodeInfo &Info = I.info();
  const LowerKind K = kindOf(I);
  if (JumpEdge) { // a taken jump: its test, or values nobody tracks
    if (K == LowerKind::Branch)
      if (std::optional<uop::Test> T = branchTest(I, true))
        return Emit(*T);
    if (!Info.isConditionalJump())
      return Emit(uop::Nop{});
    return Emit(effectOf(K, I, Info, /*Jump=*/true));
  }
  const VersionTraits &T = traits(I.Ver);
  switch (K) {
  case LowerKind::LoadFast:
    return Emit(uop::LoadLocal{I.Arg, T.LoadFastChecksBound
                                          ? uop::LocalRead::Checked
                                          : uop::LocalRead::Unchecked});
  case LowerKind::LoadConst:
    return Emit(uop::LoadConst{I.Arg});
  case LowerKind::PushNull:
    return Emit(uop::PushNull{});
  case LowerKind::PopExcept:
    return Emit(uop::PopExcept{});
  case LowerKind::LoadGlobal: {
    bool Null = I.Arg & 1;
    if (Null && !T.NullAfterCallable)
      Emit(uop::PushNull{});
    Emit(uop::LoadGlobal{I.nameIndex()});
    if (Null && T.NullAfterCallable)
      Emit(uop::PushNull{});
    return;
  }
  case LowerKind::LoadAttr:
    if (T.MethodBitInLoadAttr && (I.Arg & 1))
      return Emit(uop::LoadMethod{I.nameIndex(), T.NullAfterCallable});
    return Emit(uop::LoadAttr{I.nameIndex()});
  case LowerKind::LoadMethod:
    return Emit(uop::LoadMethod{I.nameIndex(), T.NullAfterCallable});
  case LowerKind::LoadSpecial:
    return Emit(uop::LoadSpecial{specialMethod(I)});
  case LowerKind::CallPrepare:
    return Emit(uop::CallPrepare{
        I.is(Opcode::PRECALL) ? I.Arg : uop::CallPrepare::NoSlot});
  case LowerKind::Call:
  case LowerKind::CallKw:
    return Emit(uop::Call{I.Arg, T.NullAfterCallable, K == LowerKind::CallKw});
  case LowerKind::Subscript:
    return Emit(uop::Subscript{});
  default:
    break;
  }
  if (lowerLocalsAndStack(K, I, Info, Emit) || lowerControl(K, I, Info, Emit))
    return;
  Emit(effectOf(K, I, Info, /*Jump=*/false));
}

} // namespace pyverify::lowering

#endif
