//===- MicroOps.cpp - Instructions lowered to micro-operations ------------===//

#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Bytecode/PythonVersion.h"

#include <cassert>

using namespace pyverify;

bool pyverify::isCallPrepare(const Instruction &I) {
  if (!I.Valid)
    return false;
  MicroOps Ops = lowerInstruction(I);
  return Ops.size() == 1 && std::holds_alternative<uop::CallPrepare>(Ops[0]);
}

/// The argument's two 4-bit local indices (3.13's paired local opcodes):
/// the high one first.
static std::pair<uint32_t, uint32_t> localPair(uint32_t Arg) {
  return {Arg >> 4, Arg & 15};
}

/// The fast-local opcodes of \p I, appended to \p Out; false for any other
/// opcode.
static bool lowerLocalAccess(const Instruction &I, MicroOps &Out) {
  const VersionTraits &T = traits(I.Ver);
  // Whether the k-th popped value may be NULL (the row's NullIn column).
  auto NullIn = [&](unsigned K) {
    return bool((uint64_t(I.info().NullIn.eval(I.Arg)) >> K) & 1);
  };
  switch (I.op()) {
  case Opcode::LOAD_FAST:
    Out.push_back(uop::LoadLocal{I.Arg, T.LoadFastChecksBound
                                            ? uop::LocalRead::Checked
                                            : uop::LocalRead::Unchecked});
    return true;
  case Opcode::LOAD_FAST_CHECK:
    Out.push_back(uop::LoadLocal{I.Arg, uop::LocalRead::Checked});
    return true;
  case Opcode::LOAD_FAST_AND_CLEAR:
    Out.push_back(uop::LoadLocal{I.Arg, uop::LocalRead::Saved});
    Out.push_back(uop::DeleteLocal{I.Arg});
    return true;
  case Opcode::LOAD_FAST_LOAD_FAST: {
    auto [A, B] = localPair(I.Arg);
    Out.push_back(uop::LoadLocal{A});
    Out.push_back(uop::LoadLocal{B});
    return true;
  }
  case Opcode::STORE_FAST:
    Out.push_back(uop::StoreLocal{I.Arg, NullIn(0)});
    return true;
  case Opcode::STORE_FAST_LOAD_FAST: {
    auto [A, B] = localPair(I.Arg);
    Out.push_back(uop::StoreLocal{A, NullIn(0)});
    Out.push_back(uop::LoadLocal{B});
    return true;
  }
  case Opcode::STORE_FAST_STORE_FAST: { // the top (popped value 1) first
    auto [A, B] = localPair(I.Arg);
    Out.push_back(uop::StoreLocal{A, NullIn(1)});
    Out.push_back(uop::StoreLocal{B, NullIn(0)});
    return true;
  }
  case Opcode::DELETE_FAST:
    Out.push_back(uop::DeleteLocal{I.Arg, /*Checked=*/true});
    return true;
  default:
    return false;
  }
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

/// What \p I, lowered to an Effect, does beyond its values.
static uop::EffectScope effectScope(const Instruction &I) {
  // CALL_INTRINSIC_1's operands (dis._intrinsic_1_descs, 3.12 and 3.13).
  constexpr uint32_t IntrinsicImportStar = 2, IntrinsicAsyncGenWrap = 4;
  switch (I.op()) {
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
    return uop::EffectScope::Suspends;
  case Opcode::SETUP_ANNOTATIONS:
  case Opcode::IMPORT_STAR:
    return uop::EffectScope::Namespace;
  case Opcode::CALL_INTRINSIC_1:
    return I.Arg == IntrinsicImportStar     ? uop::EffectScope::Namespace
           : I.Arg == IntrinsicAsyncGenWrap ? uop::EffectScope::Suspends
                                            : uop::EffectScope::Values;
  default:
    return uop::EffectScope::Values;
  }
}

/// The instructions whose meaning is control, exception handling, a with
/// statement or a cell, appended to \p Out; false for any other opcode.
static bool lowerControl(const Instruction &I, MicroOps &Out) {
  if (std::optional<uop::Test> T = branchTest(I, false)) {
    Out.push_back(*T);
    if (T->Kind == uop::TestKind::Exhausted)
      Out.push_back(uop::Next{});
    return true;
  }
  switch (I.op()) {
  case Opcode::NOP:
  case Opcode::RESUME:
  case Opcode::EXTENDED_ARG:
  case Opcode::CACHE:
  case Opcode::JUMP_FORWARD:
  case Opcode::JUMP_BACKWARD:
  case Opcode::JUMP_BACKWARD_NO_INTERRUPT:
    Out.push_back(uop::Nop{});
    return true;
  case Opcode::RETURN_VALUE:
    Out.push_back(uop::Return{});
    return true;
  case Opcode::RETURN_CONST:
    Out.push_back(uop::LoadConst{I.Arg});
    Out.push_back(uop::Return{});
    return true;
  case Opcode::RERAISE:
  case Opcode::RAISE_VARARGS:
    Out.push_back(uop::Raise{getStackIO(I.info(), I.Arg, false).Pops});
    return true;
  case Opcode::BEFORE_WITH:
  case Opcode::BEFORE_ASYNC_WITH:
    Out.push_back(uop::EnterWith{I.is(Opcode::BEFORE_ASYNC_WITH)});
    return true;
  case Opcode::WITH_EXCEPT_START:
    // The bound __exit__ is the deepest slot it reads (its row's Reads).
    Out.push_back(uop::ExitCallStart{uint32_t(I.info().Reads.eval(I.Arg))});
    return true;
  case Opcode::PUSH_EXC_INFO:
    Out.push_back(uop::PushExcInfo{});
    return true;
  case Opcode::CHECK_EXC_MATCH:
    Out.push_back(uop::ExcMatch{});
    return true;
  case Opcode::UNARY_NOT:
    Out.push_back(uop::Not{});
    return true;
  case Opcode::TO_BOOL:
    Out.push_back(uop::ToBool{});
    return true;
  case Opcode::LOAD_DEREF:   // (3.12's LOAD_FROM_DICT_OR_DEREF reads a dict:
  case Opcode::LOAD_CLOSURE: // an Effect)
  case Opcode::LOAD_CLASSDEREF:
    Out.push_back(uop::LoadCell{I.Arg});
    return true;
  case Opcode::STORE_DEREF:
    Out.push_back(uop::StoreCell{I.Arg});
    return true;
  default:
    return false;
  }
}

/// What \p I does on its jump edge, which moves \p IO.
static MicroOp lowerJumpEdge(const Instruction &I, const StackIO &IO) {
  if (std::optional<uop::Test> T = branchTest(I, true))
    return *T;
  if (!I.info().isConditionalJump())
    return uop::Nop{};
  return uop::Effect{IO.Pops, IO.Pushes, IO.NullIn, IO.NullOut, effectScope(I)};
}

MicroOps pyverify::lowerInstruction(const Instruction &I, bool JumpEdge,
                                    StackIO *IOOut) {
  assert(I.Valid && "lowering an invalid instruction");
  const OpcodeInfo &Info = I.info();
  const VersionTraits &T = traits(I.Ver);
  // The edge's stack effect, computed only where it is read (most
  // instructions are local and constant loads that do not need it).
  auto Effect = [&] {
    StackIO IO = IOOut ? *IOOut : getStackIO(Info, I.Arg, JumpEdge);
    return uop::Effect{IO.Pops, IO.Pushes, IO.NullIn, IO.NullOut};
  };
  MicroOps Out;
  if (JumpEdge) { // a taken jump: its test, or values nobody tracks
    StackIO IO = getStackIO(Info, I.Arg, JumpEdge);
    if (IOOut)
      *IOOut = IO;
    Out.push_back(lowerJumpEdge(I, IO));
    return Out;
  }
  if (IOOut)
    *IOOut = getStackIO(Info, I.Arg, JumpEdge);
  if (lowerLocalAccess(I, Out))
    return Out;
  switch (I.op()) {
  case Opcode::PUSH_NULL:
    Out.push_back(uop::PushNull{});
    return Out;
  case Opcode::LOAD_CONST:
    Out.push_back(uop::LoadConst{I.Arg});
    return Out;
  case Opcode::MAKE_CELL:
    Out.push_back(uop::MakeCell{I.Arg});
    return Out;
  case Opcode::COPY_FREE_VARS:
    Out.push_back(uop::CopyFreeVars{I.Arg});
    return Out;
  case Opcode::POP_EXCEPT:
    Out.push_back(uop::PopExcept{});
    return Out;
  case Opcode::LOAD_GLOBAL: {
    uint32_t Name = I.nameIndex();
    bool Null = I.Arg & 1;
    if (Null && !T.NullAfterCallable)
      Out.push_back(uop::PushNull{});
    Out.push_back(uop::LoadGlobal{Name});
    if (Null && T.NullAfterCallable)
      Out.push_back(uop::PushNull{});
    return Out;
  }
  case Opcode::LOAD_ATTR:
    if (T.MethodBitInLoadAttr && (I.Arg & 1))
      Out.push_back(uop::LoadMethod{I.nameIndex(), T.NullAfterCallable});
    else
      Out.push_back(uop::LoadAttr{I.nameIndex()});
    return Out;
  case Opcode::LOAD_METHOD:
    Out.push_back(uop::LoadMethod{I.nameIndex(), T.NullAfterCallable});
    return Out;
  case Opcode::PRECALL:
  case Opcode::KW_NAMES:
    Out.push_back(uop::CallPrepare{});
    return Out;
  case Opcode::CALL:
    Out.push_back(uop::Call{I.Arg, T.NullAfterCallable, false});
    return Out;
  case Opcode::CALL_KW:
    Out.push_back(uop::Call{I.Arg, T.NullAfterCallable, true});
    return Out;
  case Opcode::COPY:
    Out.push_back(uop::Copy{I.Arg});
    return Out;
  case Opcode::SWAP:
    Out.push_back(uop::Swap{I.Arg});
    return Out;
  case Opcode::UNPACK_SEQUENCE:
    Out.push_back(uop::UnpackSequence{I.Arg});
    return Out;
  case Opcode::BINARY_SUBSCR:
    Out.push_back(uop::Subscript{});
    return Out;
  case Opcode::BUILD_LIST:
  case Opcode::BUILD_TUPLE:
    Out.push_back(uop::BuildSequence{I.Arg, I.is(Opcode::BUILD_LIST)});
    return Out;
  default: {
    if (lowerControl(I, Out))
      return Out;
    uop::Effect E = Effect();
    E.Scope = effectScope(I);
    Out.push_back(E);
    return Out;
  }
  }
}
