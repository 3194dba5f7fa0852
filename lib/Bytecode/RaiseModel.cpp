//===- RaiseModel.cpp - Whether an instruction may raise ------------------===//

#include "pyverify/Bytecode/RaiseModel.h"

using namespace pyverify;

bool pyverify::mayRaiseGiven(const Instruction &I, const RaiseFacts &F) {
  if (!I.Valid)
    return true;
  if (I.is(Opcode::JUMP_BACKWARD) && F.BackEdgeSeparately)
    return false;
  if (!mayRaise(I.op(), I.Arg))
    return false;
  if ((F.BuiltinTruthValue || F.TestedBefore) && I.info().isConditionalJump() &&
      !I.is(Opcode::FOR_ITER))
    return false;
  switch (I.op()) {
  case Opcode::LOAD_FAST:
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
