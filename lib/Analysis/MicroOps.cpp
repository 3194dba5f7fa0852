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
    Out.push_back(uop::DeleteLocal{I.Arg});
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
  using E = uop::Effect;
  return std::visit(
      Overloaded{
          [](uop::PushNull) {
            return E{0, 1, 0, 1};
          },
          [](uop::LoadLocal L) {
            return E{0, 1, 0, L.Read == uop::LocalRead::Saved ? 1u : 0u};
          },
          [](uop::StoreLocal L) {
            return E{1, 0, L.NullOk ? 1u : 0u, 0};
          },
          [](uop::DeleteLocal) {
            return E{0, 0};
          },
          [](uop::LoadConst) {
            return E{0, 1};
          },
          [](uop::MakeCell) {
            return E{0, 0};
          },
          [](uop::CopyFreeVars) {
            return E{0, 0};
          },
          [](uop::PopExcept) {
            return E{1, 0};
          },
          [](uop::LoadGlobal) {
            return E{0, 1};
          },
          [](uop::LoadAttr) {
            return E{1, 1};
          },
          [](uop::LoadMethod M) {
            return E{1, 2, 0, uint64_t(1) << M.nullSlot()};
          },
          [](uop::CallPrepare) {
            return E{0, 0};
          },
          [](const uop::Call &C) {
            int64_t Pops = int64_t(C.NArgs) + 2 + (C.KwNamesOnTop ? 1 : 0);
            return E{Pops, 1, uint64_t(1) << C.nullSlot(), 0};
          },
          [](uop::Copy) {
            return E{0, 1};
          },
          [](uop::Swap W) {
            return E{int64_t(W.N), int64_t(W.N)};
          },
          [](uop::UnpackSequence U) {
            return E{1, int64_t(U.N)};
          },
          [](uop::Subscript) {
            return E{2, 1};
          },
          [](uop::BuildSequence B) {
            return E{int64_t(B.N), 1};
          },
          [](uop::Test T) {
            return E{T.Pops ? 1 : 0, 0};
          },
          [](uop::Next) {
            return E{0, 1};
          },
          [](uop::Return) {
            return E{1, 0};
          },
          [](uop::Raise R) {
            return E{R.Pops, 0};
          },
          [](uop::EnterWith) {
            return E{1, 2};
          },
          [](uop::ExitCallStart) {
            return E{0, 1};
          },
          [](uop::PushExcInfo) {
            return E{1, 2};
          },
          [](uop::ExcMatch) {
            return E{1, 1};
          },
          [](uop::Not) {
            return E{1, 1};
          },
          [](uop::ToBool) {
            return E{1, 1};
          },
          [](uop::LoadCell) {
            return E{0, 1};
          },
          [](uop::StoreCell) {
            return E{1, 0};
          },
          [](uop::Nop) {
            return E{0, 0};
          },
          [](uop::Effect X) { return X; },
      },
      Op);
}

/// The instructions whose meaning is control, exception handling, a with
/// statement or a cell, appended to \p Out; false for any other opcode.
static bool lowerControl(const Instruction &I, const StackIO &IO,
                         MicroOps &Out) {
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
    Out.push_back(uop::Raise{IO.Pops});
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
  case Opcode::LOAD_DEREF:
  case Opcode::LOAD_CLOSURE:
  case Opcode::LOAD_CLASSDEREF:
    if (IO.Pops != 0) // 3.12's LOAD_FROM_DICT_OR_DEREF family reads a dict
      return false;
    Out.push_back(uop::LoadCell{I.Arg});
    return true;
  case Opcode::STORE_DEREF:
    Out.push_back(uop::StoreCell{I.Arg});
    return true;
  default:
    return false;
  }
}

MicroOps pyverify::lowerInstruction(const Instruction &I, bool JumpEdge,
                                    StackIO *IOOut) {
  assert(I.Valid && "lowering an invalid instruction");
  const OpcodeInfo &Info = I.info();
  const VersionTraits &T = traits(I.Ver);
  // The edge's stack effect, computed only where it is read (most
  // instructions are local and constant loads that do not need it).
  auto Effect = [&] {
    StackIO IO = getStackIO(Info, I.Arg, JumpEdge);
    if (IOOut)
      *IOOut = IO;
    return uop::Effect{IO.Pops, IO.Pushes, IO.NullIn, IO.NullOut};
  };
  MicroOps Out;
  if (JumpEdge) { // a taken jump: its test, or values nobody tracks
    if (std::optional<uop::Test> T = branchTest(I, true)) {
      if (IOOut)
        *IOOut = getStackIO(Info, I.Arg, JumpEdge);
      Out.push_back(*T);
    } else if (!Info.isConditionalJump() && Info.isJump()) {
      if (IOOut)
        *IOOut = getStackIO(Info, I.Arg, JumpEdge);
      Out.push_back(uop::Nop{});
    } else {
      Out.push_back(Effect());
    }
    return Out;
  }
  if (lowerLocalAccess(I, Out)) {
    if (IOOut)
      *IOOut = getStackIO(Info, I.Arg, JumpEdge);
    return Out;
  }
  StackIO IO = getStackIO(Info, I.Arg, JumpEdge);
  if (IOOut)
    *IOOut = IO;
  if (lowerControl(I, IO, Out))
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
  default:
    Out.push_back(Effect());
    return Out;
  }
}
