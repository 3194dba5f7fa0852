//===- RaiseModel.cpp - Whether an instruction may raise ------------------===//

#include "pyverify/Bytecode/RaiseModel.h"

#include <cassert>

using namespace pyverify;

bool pyverify::breakerRaisesAtTarget(const Instruction &I) {
  return I.Valid && I.Ver != PythonVersion::V3_13 &&
         I.info().isBackwardJump() && !I.is(Opcode::JUMP_BACKWARD_NO_INTERRUPT);
}

bool pyverify::mayRaiseGiven(const Instruction &I, const OpcodeInfo &Info,
                             const RaiseFacts &F) {
  assert(I.Valid && "the facts of an invalid instruction are not known");
  if (I.is(Opcode::JUMP_BACKWARD) && F.BackEdgeSeparately &&
      breakerRaisesAtTarget(I))
    return false;
  switch (Info.Raises) { // mayRaise() without looking the opcode up again
  case RaiseKind::Never:
    return false;
  case RaiseKind::Always:
    break;
  case RaiseKind::ArgDependent:
    if (!argDependentMayRaise(I.Arg, I.Ver == PythonVersion::V3_13))
      return false;
    break;
  }
  if ((F.BuiltinTruthValue || F.TestedBefore) && Info.isConditionalJump() &&
      !I.is(Opcode::FOR_ITER))
    return false;
  switch (I.op()) {
  case Opcode::LOAD_FAST: // 3.11; 3.12+ never (the table)
  case Opcode::LOAD_FAST_CHECK:
    return !F.LocalBound;
  case Opcode::LOAD_ATTR:
  case Opcode::LOAD_METHOD:
    return !(F.ProtocolAttribute || F.ModeStackOperation);
  case Opcode::LOAD_GLOBAL:
    return !F.EnvironmentGlobal;
  case Opcode::CALL:
    return !(F.ModeStackOperation || F.ReplayedWrapper);
  default:
    return true;
  }
}
