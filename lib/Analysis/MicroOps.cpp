//===- MicroOps.cpp - Instructions lowered to micro-operations ------------===//
//
// Each (version, opcode byte) has its LowerKind in a table built once
// (LowerKind.h); a lowering is then one load and one switch over the dense
// kinds. The passes lower about a million instructions per pass over the
// 3.11 stdlib.
//
//===----------------------------------------------------------------------===//

#include "pyverify/Analysis/MicroOps.h"
#include "LowerKind.h"
#include "pyverify/Bytecode/PythonVersion.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include <array>
#include <cassert>

using namespace pyverify;

bool pyverify::isCallPrepare(const Instruction &I) {
  if (!I.Valid)
    return false;
  MicroOps Ops = lowerInstruction(I);
  return Ops.size() == 1 && std::holds_alternative<uop::CallPrepare>(Ops[0]);
}

std::optional<uop::Test> pyverify::branchTest(const Instruction &I,
                                              bool JumpEdge) {
  if (!I.Valid || !I.info().isConditionalJump())
    return std::nullopt;
  uop::TestKind Kind;
  bool JumpWhen;
  switch (I.op()) {
  case Opcode::POP_JUMP_IF_TRUE:
  case Opcode::POP_JUMP_FORWARD_IF_TRUE:
  case Opcode::POP_JUMP_BACKWARD_IF_TRUE:
  case Opcode::JUMP_IF_TRUE_OR_POP:
    Kind = uop::TestKind::Truth, JumpWhen = true;
    break;
  case Opcode::POP_JUMP_IF_FALSE:
  case Opcode::POP_JUMP_FORWARD_IF_FALSE:
  case Opcode::POP_JUMP_BACKWARD_IF_FALSE:
  case Opcode::JUMP_IF_FALSE_OR_POP:
    Kind = uop::TestKind::Truth, JumpWhen = false;
    break;
  case Opcode::POP_JUMP_IF_NONE:
  case Opcode::POP_JUMP_FORWARD_IF_NONE:
  case Opcode::POP_JUMP_BACKWARD_IF_NONE:
    Kind = uop::TestKind::IsNone, JumpWhen = true;
    break;
  case Opcode::POP_JUMP_IF_NOT_NONE:
  case Opcode::POP_JUMP_FORWARD_IF_NOT_NONE:
  case Opcode::POP_JUMP_BACKWARD_IF_NOT_NONE:
    Kind = uop::TestKind::IsNone, JumpWhen = false;
    break;
  case Opcode::FOR_ITER:
    Kind = uop::TestKind::Exhausted, JumpWhen = true;
    break;
  default: // SEND: whether the awaited returned is no test of a value
    return std::nullopt;
  }
  // The tested value is popped on the edges whose row pops it (FOR_ITER's
  // fall-through keeps the iterator, JUMP_IF_TRUE_OR_POP's jump the value):
  // getStackIO()'s Pops, read alone.
  const OpcodeInfo &Info = I.info();
  int64_t Pops = (JumpEdge ? Info.JumpPops : Info.Pops).eval(I.Arg);
  return uop::Test{Kind, JumpEdge == JumpWhen, Pops > 0};
}

uop::Effect pyverify::movementOf(const MicroOp &Op) {
  using namespace uop;
  using E = Effect;
  return std::visit(
      Overloaded{
          [](const OneOf<DeleteLocal, MakeCell, CopyFreeVars, CallPrepare,
                         Nop> auto &) {
            return E{0, 0};
          },
          [](const OneOf<LoadConst, LoadGlobal, Copy, Next, ExitCallStart,
                         LoadCell> auto &) {
            return E{0, 1};
          },
          [](const OneOf<PopExcept, Return, StoreCell> auto &) {
            return E{1, 0};
          },
          [](const OneOf<LoadAttr, ExcMatch, Not, ToBool> auto &) {
            return E{1, 1};
          },
          [](const OneOf<EnterWith, PushExcInfo> auto &) {
            return E{1, 2};
          },
          [](Subscript) {
            return E{2, 1};
          },
          [](PushNull) {
            return E{0, 1, 0, 1};
          },
          [](LoadLocal L) {
            return E{0, 1, 0, L.Read == LocalRead::Saved ? 1u : 0u};
          },
          [](StoreLocal L) {
            return E{1, 0, L.NullOk ? 1u : 0u, 0};
          },
          [](LoadMethod M) {
            return E{1, 2, 0, uint64_t(1) << M.nullSlot()};
          },
          [](LoadSpecial M) {
            return E{1, 2, 0, uint64_t(1) << M.nullSlot()};
          },
          [](const Call &C) {
            int64_t Pops = int64_t(C.NArgs) + 2 + (C.KwNamesOnTop ? 1 : 0);
            return E{Pops, 1, uint64_t(1) << C.nullSlot(), 0};
          },
          [](Swap W) {
            return E{int64_t(W.N), int64_t(W.N)};
          },
          [](UnpackSequence U) {
            return E{1, int64_t(U.N)};
          },
          [](BuildSequence B) {
            return E{int64_t(B.N), 1};
          },
          [](Test T) {
            return E{T.Pops ? 1 : 0, 0};
          },
          [](Raise R) {
            return E{R.Pops, 0};
          },
          [](Effect X) { return X; },
      },
      Op);
}

using lowering::LowerKind;

namespace {

LowerKind kindOf(const Instruction &I) {
  LowerKind K = lowering::TheKinds[unsigned(I.Ver)][I.OpByte];
  if (K == LowerKind::Effect && I.is(Opcode::BINARY_OP) &&
      isSubscriptOperator(I.Ver, I.Arg))
    return LowerKind::Subscript;
  return K;
}

/// The argument's two 4-bit local indices (3.13's paired local opcodes):
/// the high one first.
std::pair<uint32_t, uint32_t> localPair(uint32_t Arg) {
  return {Arg >> 4, Arg & 15};
}

/// The special method LOAD_SPECIAL \p I names, by the version's own text
/// of its argument (the SpecialMethod table of its opcode table).
uop::SpecialMethod specialMethod(const Instruction &I) {
  const char *Name = getArgText(I.Ver, ArgTextTable::SpecialMethod, I.Arg);
  llvm::StringRef N = Name ? Name : "";
  return N == "__enter__"    ? uop::SpecialMethod::Enter
         : N == "__exit__"   ? uop::SpecialMethod::Exit
         : N == "__aenter__" ? uop::SpecialMethod::AEnter
         : N == "__aexit__"  ? uop::SpecialMethod::AExit
                             : uop::SpecialMethod::Other;
}

/// Whether the K-th value \p I pops may be NULL (its row's NullIn column).
bool nullIn(const OpcodeInfo &Info, uint32_t Arg, unsigned K) {
  return (uint64_t(Info.NullIn.eval(Arg)) >> K) & 1;
}

/// The micro-operations of the locals, cells and stack kinds; false for
/// the others.
bool lowerLocalsAndStack(LowerKind K, const Instruction &I,
                         const OpcodeInfo &Info, MicroOps &Out) {
  const uint32_t A = I.Arg;
  switch (K) {
  case LowerKind::LoadFastCheck:
    Out.push_back(uop::LoadLocal{A, uop::LocalRead::Checked});
    return true;
  case LowerKind::LoadFastAndClear:
    Out.push_back(uop::LoadLocal{A, uop::LocalRead::Saved});
    Out.push_back(uop::DeleteLocal{A});
    return true;
  case LowerKind::LoadFastLoadFast:
    Out.push_back(uop::LoadLocal{localPair(A).first});
    Out.push_back(uop::LoadLocal{localPair(A).second});
    return true;
  // 3.14's borrowing loads do not check either (3.14.2 pushes an unbound
  // local's NULL: tests/lit/check/load-fast-borrow-local.py).
  case LowerKind::LoadFastBorrow:
    Out.push_back(uop::LoadLocal{A, uop::LocalRead::Unchecked, true});
    return true;
  case LowerKind::LoadFastBorrowPair:
    Out.push_back(
        uop::LoadLocal{localPair(A).first, uop::LocalRead::Unchecked, true});
    Out.push_back(
        uop::LoadLocal{localPair(A).second, uop::LocalRead::Unchecked, true});
    return true;
  case LowerKind::StoreFast:
    Out.push_back(uop::StoreLocal{A, nullIn(Info, A, 0)});
    return true;
  case LowerKind::StoreFastLoadFast:
    Out.push_back(uop::StoreLocal{localPair(A).first, nullIn(Info, A, 0)});
    Out.push_back(uop::LoadLocal{localPair(A).second});
    return true;
  case LowerKind::StoreFastStoreFast: // the top (popped value 1) first
    Out.push_back(uop::StoreLocal{localPair(A).first, nullIn(Info, A, 1)});
    Out.push_back(uop::StoreLocal{localPair(A).second, nullIn(Info, A, 0)});
    return true;
  case LowerKind::DeleteFast:
    Out.push_back(uop::DeleteLocal{A, /*Checked=*/true});
    return true;
  case LowerKind::MakeCell:
    Out.push_back(uop::MakeCell{A});
    return true;
  case LowerKind::CopyFreeVars:
    Out.push_back(uop::CopyFreeVars{A});
    return true;
  case LowerKind::LoadCell:
    Out.push_back(uop::LoadCell{A});
    return true;
  case LowerKind::StoreCell:
    Out.push_back(uop::StoreCell{A});
    return true;
  case LowerKind::Copy:
    Out.push_back(uop::Copy{A});
    return true;
  case LowerKind::Swap:
    Out.push_back(uop::Swap{A});
    return true;
  case LowerKind::UnpackSequence:
    Out.push_back(uop::UnpackSequence{A});
    return true;
  case LowerKind::BuildList:
  case LowerKind::BuildTuple:
    Out.push_back(uop::BuildSequence{A, K == LowerKind::BuildList});
    return true;
  default:
    return false;
  }
}

/// The micro-operations of control, exception handling and with
/// statements; false for the others.
bool lowerControl(LowerKind K, const Instruction &I, const OpcodeInfo &Info,
                  MicroOps &Out) {
  switch (K) {
  case LowerKind::Branch:
    if (std::optional<uop::Test> T = branchTest(I, false)) {
      Out.push_back(*T);
      if (T->Kind == uop::TestKind::Exhausted)
        Out.push_back(uop::Next{});
      return true;
    }
    return false; // SEND: no test of a value (an Effect)
  case LowerKind::Nop:
    Out.push_back(uop::Nop{});
    return true;
  case LowerKind::Return:
    Out.push_back(uop::Return{});
    return true;
  case LowerKind::ReturnConst:
    Out.push_back(uop::LoadConst{I.Arg});
    Out.push_back(uop::Return{});
    return true;
  case LowerKind::Raise:
    Out.push_back(uop::Raise{Info.Pops.eval(I.Arg)}); // getStackIO's Pops
    return true;
  case LowerKind::EnterWith:
  case LowerKind::EnterAsyncWith:
    Out.push_back(uop::EnterWith{K == LowerKind::EnterAsyncWith});
    return true;
  case LowerKind::ExitCallStart:
    // The bound __exit__ is the deepest slot it reads (its row's Reads).
    Out.push_back(uop::ExitCallStart{uint32_t(Info.Reads.eval(I.Arg))});
    return true;
  case LowerKind::PushExcInfo:
    Out.push_back(uop::PushExcInfo{});
    return true;
  case LowerKind::ExcMatch:
    Out.push_back(uop::ExcMatch{});
    return true;
  case LowerKind::Not:
    Out.push_back(uop::Not{});
    return true;
  case LowerKind::ToBool:
    Out.push_back(uop::ToBool{});
    return true;
  default:
    return false;
  }
}

/// What an Effect of kind \p K with operand \p Arg does beyond its values.
uop::EffectScope effectScope(LowerKind K, uint32_t Arg) {
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
uop::Effect effectOf(LowerKind K, const Instruction &I, const OpcodeInfo &Info,
                     bool Jump) {
  const uint32_t A = I.Arg;
  return uop::Effect{(Jump ? Info.JumpPops : Info.Pops).eval(A),
                     (Jump ? Info.JumpPushes : Info.Pushes).eval(A),
                     uint64_t(Info.NullIn.eval(A)),
                     uint64_t(Info.NullOut.eval(A)), effectScope(K, A)};
}

/// What \p I does on its jump edge.
MicroOp lowerJumpEdge(LowerKind K, const Instruction &I,
                      const OpcodeInfo &Info) {
  if (K == LowerKind::Branch)
    if (std::optional<uop::Test> T = branchTest(I, true))
      return *T;
  if (!Info.isConditionalJump())
    return uop::Nop{};
  return effectOf(K, I, Info, /*Jump=*/true);
}

} // namespace

MicroOps pyverify::lowerInstruction(const Instruction &I, bool JumpEdge,
                                    StackIO *IOOut) {
  assert(I.Valid && "lowering an invalid instruction");
  const OpcodeInfo &Info = I.info();
  const LowerKind K = kindOf(I);
  if (IOOut)
    *IOOut = getStackIO(Info, I.Arg, JumpEdge);
  MicroOps Out;
  if (JumpEdge) { // a taken jump: its test, or values nobody tracks
    Out.push_back(lowerJumpEdge(K, I, Info));
    return Out;
  }
  const VersionTraits &T = traits(I.Ver);
  switch (K) {
  case LowerKind::LoadFast:
    Out.push_back(uop::LoadLocal{I.Arg, T.LoadFastChecksBound
                                            ? uop::LocalRead::Checked
                                            : uop::LocalRead::Unchecked});
    return Out;
  case LowerKind::LoadConst:
    Out.push_back(uop::LoadConst{I.Arg});
    return Out;
  case LowerKind::PushNull:
    Out.push_back(uop::PushNull{});
    return Out;
  case LowerKind::PopExcept:
    Out.push_back(uop::PopExcept{});
    return Out;
  case LowerKind::LoadGlobal: {
    bool Null = I.Arg & 1;
    if (Null && !T.NullAfterCallable)
      Out.push_back(uop::PushNull{});
    Out.push_back(uop::LoadGlobal{I.nameIndex()});
    if (Null && T.NullAfterCallable)
      Out.push_back(uop::PushNull{});
    return Out;
  }
  case LowerKind::LoadAttr:
    if (T.MethodBitInLoadAttr && (I.Arg & 1))
      Out.push_back(uop::LoadMethod{I.nameIndex(), T.NullAfterCallable});
    else
      Out.push_back(uop::LoadAttr{I.nameIndex()});
    return Out;
  case LowerKind::LoadMethod:
    Out.push_back(uop::LoadMethod{I.nameIndex(), T.NullAfterCallable});
    return Out;
  case LowerKind::LoadSpecial:
    Out.push_back(uop::LoadSpecial{specialMethod(I)});
    return Out;
  case LowerKind::CallPrepare:
    Out.push_back(uop::CallPrepare{});
    return Out;
  case LowerKind::Call:
  case LowerKind::CallKw:
    Out.push_back(
        uop::Call{I.Arg, T.NullAfterCallable, K == LowerKind::CallKw});
    return Out;
  case LowerKind::Subscript:
    Out.push_back(uop::Subscript{});
    return Out;
  default:
    break;
  }
  if (lowerLocalsAndStack(K, I, Info, Out) || lowerControl(K, I, Info, Out))
    return Out;
  Out.push_back(effectOf(K, I, Info, /*Jump=*/false));
  return Out;
}
