//===- RaiseModel.cpp - Whether an instruction may raise ------------------===//

#include "pyverify/Bytecode/RaiseModel.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include <cassert>

using namespace pyverify;

bool pyverify::breakerRaisesAtTarget(const Instruction &I) {
  return I.Valid && traits(I.Ver).BreakerAtBackEdgeTarget &&
         I.info().isBackwardJump() && !I.is(Opcode::JUMP_BACKWARD_NO_INTERRUPT);
}

int64_t pyverify::raisePops(const Instruction &I) {
  if (I.is(Opcode::YIELD_VALUE))
    return 0;
  return getStackIO(I.info(), I.Arg, /*Jump=*/false).Pops;
}

llvm::StringRef pyverify::getRaiseTierName(RaiseTier T) {
  switch (T) {
  case RaiseTier::Self:
    return "self";
  case RaiseTier::EvalBreaker:
    return "eval-breaker";
  case RaiseTier::Tracing:
    return "tracing";
  }
  return "self";
}

llvm::SmallVector<uint32_t, 2>
pyverify::tracingRaiseOffsets(const Instruction &I) {
  llvm::SmallVector<uint32_t, 2> Out;
  if (!I.Valid)
    return Out;
  switch (I.op()) {
  case Opcode::RESUME: // measured: no opcode event (check_raise_tiers.py)
  case Opcode::MAKE_CELL:
  case Opcode::RETURN_GENERATOR:
  case Opcode::CACHE:
    return Out;
  default:
    break;
  }
  if (I.is(Opcode::END_FOR))
    return Out; // an exhausted FOR_ITER jumps over it
  Out.push_back(I.Start);
  if (I.Start != I.Offset && traits(I.Ver).TraceEventAtPrefixAndOpcode)
    Out.push_back(I.Offset);
  return Out;
}

bool pyverify::checksEvalBreaker(const Instruction &I) {
  if (!I.Valid)
    return false;
  if (I.is(Opcode::RESUME))
    return I.Arg == 1; // after a yield (RESUME 0 has no context active)
  if (I.info().isBackwardJump())
    return !I.is(Opcode::JUMP_BACKWARD_NO_INTERRUPT);
  switch (I.op()) {
  case Opcode::CALL:
  case Opcode::PRECALL:
  case Opcode::CALL_FUNCTION_EX:
  case Opcode::CALL_KW:
    return true;
  default:
    return false;
  }
}

bool pyverify::mayRunCalleeFrame(const Instruction &I) {
  if (!I.Valid)
    return false;
  switch (I.op()) {
  case Opcode::CALL:
  case Opcode::CALL_KW:
  case Opcode::CALL_FUNCTION_EX:
  case Opcode::BINARY_SUBSCR:
  case Opcode::LOAD_ATTR:
  case Opcode::FOR_ITER:
  case Opcode::SEND:
    return true;
  case Opcode::BINARY_OP:
    // Only a subscript (3.14's BINARY_OP [] is BINARY_SUBSCR): no other
    // operator, and no BINARY_OP up to 3.13, pushes a frame.
    return isSubscriptOperator(I.Ver, I.Arg);
  default:
    return false;
  }
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
    if (!argDependentMayRaise(I.Arg, I.Ver))
      return false;
    break;
  }
  // A truth test: a conditional jump's own (3.11, 3.12) or TO_BOOL's (3.13,
  // whose jumps take a bool and cannot raise).
  if ((F.BuiltinTruthValue || F.TestedBefore) &&
      ((Info.isConditionalJump() && !I.is(Opcode::FOR_ITER)) ||
       I.is(Opcode::TO_BOOL)))
    return false;
  switch (I.op()) {
  case Opcode::LOAD_FAST: // 3.11; 3.12+ never (the table)
  case Opcode::LOAD_FAST_CHECK:
    return !F.LocalBound;
  case Opcode::LOAD_ATTR:
  case Opcode::LOAD_METHOD:
    return !(F.ProtocolAttribute || F.ModeStackOperation);
  case Opcode::LOAD_SPECIAL: // 3.14's __enter__ / __exit__ of a with
    return !F.ProtocolAttribute;
  case Opcode::LOAD_GLOBAL:
    return !F.EnvironmentGlobal;
  case Opcode::CALL:
  case Opcode::CALL_KW:
    return !(F.ModeStackOperation || F.ReplayedWrapper);
  default:
    return true;
  }
}
