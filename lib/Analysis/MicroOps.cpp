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

/// The special method LOAD_SPECIAL \p I names, by the version's own text
/// of its argument (the SpecialMethod table of its opcode table).
uop::SpecialMethod lowering::specialMethod(const Instruction &I) {
  const char *Name = getArgText(I.Ver, ArgTextTable::SpecialMethod, I.Arg);
  llvm::StringRef N = Name ? Name : "";
  return N == "__enter__"    ? uop::SpecialMethod::Enter
         : N == "__exit__"   ? uop::SpecialMethod::Exit
         : N == "__aenter__" ? uop::SpecialMethod::AEnter
         : N == "__aexit__"  ? uop::SpecialMethod::AExit
                             : uop::SpecialMethod::Other;
}

MicroOps pyverify::lowerInstruction(const Instruction &I, bool JumpEdge,
                                    StackIO *IOOut) {
  if (IOOut)
    *IOOut = getStackIO(I.info(), I.Arg, JumpEdge);
  MicroOps Out;
  lowering::lowerEach(I, JumpEdge, [&](const auto &Op) { Out.push_back(Op); });
  return Out;
}
