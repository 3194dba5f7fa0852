//===- MicroOps.cpp - Instructions lowered to micro-operations ------------===//
//
// Each (version, opcode byte) gets its LowerKind once, in a table built on
// first use (classify(): the one switch over opcode identities); a lowering
// is then one load and one switch over the dense kinds. The passes lower
// about a million instructions per pass over the 3.11 stdlib.
//
//===----------------------------------------------------------------------===//

#include "pyverify/Analysis/MicroOps.h"
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
  // fall-through keeps the iterator, JUMP_IF_TRUE_OR_POP's jump the value).
  StackIO IO = getStackIO(I.info(), I.Arg, JumpEdge);
  return uop::Test{Kind, JumpEdge == JumpWhen, IO.Pops > 0};
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

namespace {

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

/// The kinds of the opcodes that suspend the frame or write its namespace
/// by name, and of control and handler opcodes; Effect for the rest.
LowerKind classifyOther(Opcode Op) {
  switch (Op) {
  case Opcode::GET_AWAITABLE:
  case Opcode::SEND:
  case Opcode::END_SEND:
  case Opcode::YIELD_VALUE:
  case Opcode::RETURN_GENERATOR:
  case Opcode::GET_AITER:
  case Opcode::GET_ANEXT:
  case Opcode::END_ASYNC_FOR:
  case Opcode::ASYNC_GEN_WRAP:
  case Opcode::CLEANUP_THROW:
    return LowerKind::EffectSuspends;
  case Opcode::SETUP_ANNOTATIONS:
  case Opcode::IMPORT_STAR:
    return LowerKind::EffectNamespace;
  case Opcode::CALL_INTRINSIC_1:
    return LowerKind::CallIntrinsic1;
  case Opcode::NOP:
  case Opcode::RESUME:
  case Opcode::EXTENDED_ARG:
  case Opcode::CACHE:
  case Opcode::JUMP_FORWARD:
  case Opcode::JUMP_BACKWARD:
  case Opcode::JUMP_BACKWARD_NO_INTERRUPT:
    return LowerKind::Nop;
  case Opcode::RETURN_VALUE:
    return LowerKind::Return;
  case Opcode::RETURN_CONST:
    return LowerKind::ReturnConst;
  case Opcode::RERAISE:
  case Opcode::RAISE_VARARGS:
    return LowerKind::Raise;
  case Opcode::BEFORE_WITH:
    return LowerKind::EnterWith;
  case Opcode::BEFORE_ASYNC_WITH:
    return LowerKind::EnterAsyncWith;
  case Opcode::WITH_EXCEPT_START:
    return LowerKind::ExitCallStart;
  case Opcode::PUSH_EXC_INFO:
    return LowerKind::PushExcInfo;
  case Opcode::CHECK_EXC_MATCH:
    return LowerKind::ExcMatch;
  case Opcode::UNARY_NOT:
    return LowerKind::Not;
  case Opcode::TO_BOOL:
    return LowerKind::ToBool;
  case Opcode::LOAD_DEREF:   // (3.12's LOAD_FROM_DICT_OR_DEREF reads a dict:
  case Opcode::LOAD_CLOSURE: // an Effect)
  case Opcode::LOAD_CLASSDEREF:
    return LowerKind::LoadCell;
  case Opcode::STORE_DEREF:
    return LowerKind::StoreCell;
  default:
    return LowerKind::Effect;
  }
}

/// The one switch over opcode identities of the lowering.
LowerKind classify(const OpcodeInfo &Info) {
  switch (Info.Op) {
  case Opcode::LOAD_FAST:
    return LowerKind::LoadFast;
  case Opcode::LOAD_FAST_CHECK:
    return LowerKind::LoadFastCheck;
  case Opcode::LOAD_FAST_AND_CLEAR:
    return LowerKind::LoadFastAndClear;
  case Opcode::LOAD_FAST_LOAD_FAST:
    return LowerKind::LoadFastLoadFast;
  case Opcode::LOAD_FAST_BORROW:
    return LowerKind::LoadFastBorrow;
  case Opcode::LOAD_FAST_BORROW_LOAD_FAST_BORROW:
    return LowerKind::LoadFastBorrowPair;
  case Opcode::STORE_FAST:
    return LowerKind::StoreFast;
  case Opcode::STORE_FAST_LOAD_FAST:
    return LowerKind::StoreFastLoadFast;
  case Opcode::STORE_FAST_STORE_FAST:
    return LowerKind::StoreFastStoreFast;
  case Opcode::DELETE_FAST:
    return LowerKind::DeleteFast;
  case Opcode::PUSH_NULL:
    return LowerKind::PushNull;
  case Opcode::LOAD_CONST:
    return LowerKind::LoadConst;
  case Opcode::MAKE_CELL:
    return LowerKind::MakeCell;
  case Opcode::COPY_FREE_VARS:
    return LowerKind::CopyFreeVars;
  case Opcode::POP_EXCEPT:
    return LowerKind::PopExcept;
  case Opcode::LOAD_GLOBAL:
    return LowerKind::LoadGlobal;
  case Opcode::LOAD_ATTR:
    return LowerKind::LoadAttr;
  case Opcode::LOAD_METHOD:
    return LowerKind::LoadMethod;
  case Opcode::LOAD_SPECIAL:
    return LowerKind::LoadSpecial;
  case Opcode::PRECALL:
  case Opcode::KW_NAMES:
    return LowerKind::CallPrepare;
  case Opcode::CALL:
    return LowerKind::Call;
  case Opcode::CALL_KW:
    return LowerKind::CallKw;
  case Opcode::COPY:
    return LowerKind::Copy;
  case Opcode::SWAP:
    return LowerKind::Swap;
  case Opcode::UNPACK_SEQUENCE:
    return LowerKind::UnpackSequence;
  case Opcode::BINARY_SUBSCR:
    return LowerKind::Subscript;
  case Opcode::BUILD_LIST:
    return LowerKind::BuildList;
  case Opcode::BUILD_TUPLE:
    return LowerKind::BuildTuple;
  default: {
    // A conditional jump tests a value, but SEND (which suspends).
    LowerKind Other = classifyOther(Info.Op);
    return Other == LowerKind::Effect && Info.isConditionalJump()
               ? LowerKind::Branch
               : Other;
  }
  }
}

/// Every version's kinds by opcode byte, built once.
struct KindTable {
  std::array<std::array<LowerKind, 256>, NumPythonVersions> Kinds;
  /// Per kind, the LowersTo classes its lowering may hold (bit per class).
  std::array<std::array<uint8_t, 256>, NumPythonVersions> Classes;
  /// Per version, the union of its opcodes' classes.
  std::array<uint8_t, NumPythonVersions> VersionClasses{};
  KindTable() {
    for (PythonVersion V : AllPythonVersions)
      for (unsigned B = 0; B < 256; ++B) {
        const OpcodeInfo *Info = getVersionOpcodeInfo(V, uint8_t(B));
        LowerKind K = Info ? classify(*Info) : LowerKind::Effect;
        Kinds[unsigned(V)][B] = K;
        Classes[unsigned(V)][B] = classesOf(K);
        VersionClasses[unsigned(V)] |= classesOf(K);
      }
  }
  /// The classes of the micro-operations lowerInstruction() gives kind
  /// \p K on the fall-through edge (BINARY_OP's Subscript is in none).
  static uint8_t classesOf(LowerKind K) {
    auto Bit = [](LowersTo C) { return uint8_t(1u << unsigned(C)); };
    switch (K) {
    case LowerKind::EnterWith:
    case LowerKind::EnterAsyncWith:
      return Bit(LowersTo::EnterWith);
    case LowerKind::Call:
    case LowerKind::CallKw:
      return Bit(LowersTo::Call);
    case LowerKind::LoadSpecial:
      return Bit(LowersTo::LoadSpecial);
    case LowerKind::LoadFastBorrow:
    case LowerKind::LoadFastBorrowPair:
      return Bit(LowersTo::BorrowedLoad);
    default:
      return 0;
    }
  }
};

// Built at start-up, before any lowering (no lowering runs in a static
// initialiser), from the opcode tables, which are constant.
const KindTable TheKindTable;

} // namespace

const std::array<uint8_t, 256> *const pyverify::detail::TheLowersToClasses =
    TheKindTable.Classes.data();
const uint8_t *const pyverify::detail::TheVersionLowersToClasses =
    TheKindTable.VersionClasses.data();

namespace {

LowerKind kindOf(const Instruction &I) {
  LowerKind K = TheKindTable.Kinds[unsigned(I.Ver)][I.OpByte];
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
    Out.push_back(uop::Raise{getStackIO(Info, I.Arg, false).Pops});
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

/// What \p I does on its jump edge, which moves \p IO.
MicroOp lowerJumpEdge(LowerKind K, const Instruction &I, const StackIO &IO) {
  if (K == LowerKind::Branch)
    if (std::optional<uop::Test> T = branchTest(I, true))
      return *T;
  if (!I.info().isConditionalJump())
    return uop::Nop{};
  return uop::Effect{IO.Pops, IO.Pushes, IO.NullIn, IO.NullOut,
                     effectScope(K, I.Arg)};
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
    Out.push_back(
        lowerJumpEdge(K, I, IOOut ? *IOOut : getStackIO(Info, I.Arg, true)));
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
  StackIO IO = IOOut ? *IOOut : getStackIO(Info, I.Arg, false);
  Out.push_back(uop::Effect{IO.Pops, IO.Pushes, IO.NullIn, IO.NullOut,
                            effectScope(K, I.Arg)});
  return Out;
}
