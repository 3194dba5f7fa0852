//===- Opcode.cpp - Opcode identities and table rows ----------------------===//

#include "pyverify/Bytecode/Opcode.h"

#include "llvm/Support/ErrorHandling.h"

#include <bit>
#include <cassert>
#include <iterator>

using namespace pyverify;

static constexpr const char *OpcodeNames[] = {
#define PYV_OPCODE_NAME(Name) #Name,
#include "pyverify/Bytecode/OpcodeNames.def"
};
static_assert(std::size(OpcodeNames) == NumOpcodes);

llvm::StringRef pyverify::getOpcodeName(Opcode Op) {
  assert(unsigned(Op) < NumOpcodes && "an opcode enumerator");
  return OpcodeNames[unsigned(Op)];
}

int64_t OpcodeInfo::stackEffect(uint32_t Arg, bool JumpEdge) const {
  return evalStackEffect(Effect, FallThroughEffect, JumpEffect, Arg, JumpEdge);
}

int64_t pyverify::evalStackEffect(EffectKind Effect, int8_t FT, int8_t JT,
                                  uint32_t Arg, bool Jump) {
  int64_t A = Arg;
  switch (Effect) {
  case EffectKind::Const:
    return Jump ? JT : FT;
  case EffectKind::UnpackSequence:
    return A - 1;
  case EffectKind::UnpackEx:
    return (A & 0xFF) + (A >> 8);
  case EffectKind::BuildN:
    return 1 - A;
  case EffectKind::BuildMap:
    return 1 - 2 * A;
  case EffectKind::NegArg:
    return -A;
  case EffectKind::LoadGlobal:
    return 1 + (A & 1);
  case EffectKind::CallFunctionEx:
    return -2 - (A & 1);
  case EffectKind::MakeFunction:
    return -int64_t(std::popcount(Arg & 0xFu));
  case EffectKind::BuildSlice:
    return A == 3 ? -2 : -1;
  case EffectKind::FormatValue:
    return (A & 4) ? -1 : 0;
  case EffectKind::ArgBit0:
    return A & 1;
  case EffectKind::LoadSuperAttr:
    return -2 + (A & 1);
  case EffectKind::CallN:
    return -1 - A;
  case EffectKind::CallKw:
    return -2 - A;
  case EffectKind::BuildInterpolation:
    return -1 - (A & 1);
  }
  llvm_unreachable("unknown effect kind");
}
