//===- Opcode.cpp - CPython 3.11 base opcodes -----------------------------===//

#include "pyverify/Bytecode/Opcode.h"
#include "OpcodeInfoInit.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>

using namespace pyverify;

/// The table, built at compile time (constinit: no guard, no start-up code,
/// so the inline getOpcodeInfo() is one load).
static constexpr detail::OpcodeTable makeOpcodeTable() {
  detail::OpcodeTable T{};
  enum : uint8_t {
#define PYV_OPCODE(Name, Num, Caches, JumpK, Term, RaisesK, EffectK, FT, JT,   \
                   OperandK, Pops, Pushes, JPops, JPushes, Reads, NullIn,      \
                   NullOut)                                                    \
  Num_##Name = Num,
#include "pyverify/Bytecode/Opcodes.def"
  };
#define PYV_OPCODE(...)                                                        \
  T.Infos[PYV_OPCODE_NUM(__VA_ARGS__)] = PYV_OPCODE_INFO_311(__VA_ARGS__);     \
  T.Valid[PYV_OPCODE_NUM(__VA_ARGS__)] = true;
#define PYV_OPCODE_NUM(Name, Num, ...) Num
#define PYV_SPECIALIZED(Name, Num, Base)                                       \
  T.Specialized[Num] = #Name;                                                  \
  T.Deopt[Num] = Num_##Base;
#include "pyverify/Bytecode/Opcodes.def"
#undef PYV_OPCODE_NUM
  return T;
}

constinit const detail::OpcodeTable detail::TheOpcodeTable = makeOpcodeTable();

static constexpr const char *NewOpcodeNames[] = {
#define PYV_NEW_OPCODE(Name) #Name,
#include "pyverify/Bytecode/OpcodeNames.def"
};
static_assert(std::size(NewOpcodeNames) == NumNewOpcodes);

llvm::StringRef pyverify::getOpcodeName(Opcode Op) {
  unsigned N = unsigned(Op);
  if (N >= 256) {
    assert(N - 256 < NumNewOpcodes && "an opcode enumerator");
    return NewOpcodeNames[N - 256];
  }
  return getOpcodeInfo(Op).Name;
}

int64_t OpcodeInfo::stackEffect(uint32_t Arg, bool JumpEdge) const {
  return evalStackEffect(Effect, FallThroughEffect, JumpEffect, Arg, JumpEdge);
}

const OpcodeInfo *pyverify::getDeoptimizedOpcodeInfo(uint8_t Byte) {
  if (!detail::TheOpcodeTable.Specialized[Byte])
    return nullptr;
  return getOpcodeInfo(detail::TheOpcodeTable.Deopt[Byte]);
}

llvm::StringRef pyverify::getSpecializedOpcodeName(uint8_t Byte) {
  const char *S = detail::TheOpcodeTable.Specialized[Byte];
  return S ? S : "";
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
  }
  llvm_unreachable("unknown effect kind");
}

int64_t pyverify::getStackEffect(Opcode Op, uint32_t Arg, bool Jump) {
  const OpcodeInfo &I = getOpcodeInfo(Op);
  return evalStackEffect(I.Effect, I.FallThroughEffect, I.JumpEffect, Arg,
                         Jump);
}

bool pyverify::mayRaise(Opcode Op, uint32_t Arg) {
  switch (getOpcodeInfo(Op).Raises) {
  case RaiseKind::Never:
    return false;
  case RaiseKind::Always:
    return true;
  case RaiseKind::ArgDependent:
    return argDependentMayRaise(Arg, /*V313=*/false);
  }
  llvm_unreachable("unknown raise kind");
}
