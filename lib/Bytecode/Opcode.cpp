//===- Opcode.cpp - CPython 3.11 base opcodes -----------------------------===//

#include "pyverify/Bytecode/Opcode.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>

using namespace pyverify;

namespace {

struct Table {
  std::array<OpcodeInfo, 256> Infos{};
  std::array<bool, 256> Valid{};
  std::array<const char *, 256> Specialized{};
  std::array<uint8_t, 256> Deopt{};

  Table() {
    enum : uint8_t {
#define PYV_OPCODE(Name, Num, Caches, JumpK, Term, RaisesK, EffectK, FT, JT,   \
                   OperandK, Pops, Pushes, JPops, JPushes, Reads, NullIn,      \
                   NullOut)                                                    \
  Num_##Name = Num,
#include "pyverify/Bytecode/Opcodes.def"
    };
#define PYV_COUNT(Formula, K)                                                  \
  StackCount { CountFormula::Formula, K }
#define PYV_OPCODE(Name, Num, Caches, JumpK, Term, RaisesK, EffectK, FT, JT,   \
                   OperandK, Pops, Pushes, JPops, JPushes, Reads, NullIn,      \
                   NullOut)                                                    \
  Infos[Num] = OpcodeInfo{#Name,                                               \
                          Num,                                                 \
                          Caches,                                              \
                          JumpKind::JumpK,                                     \
                          Term,                                                \
                          RaiseKind::RaisesK,                                  \
                          EffectKind::EffectK,                                 \
                          FT,                                                  \
                          JT,                                                  \
                          OperandKind::OperandK,                               \
                          PYV_COUNT Pops,                                      \
                          PYV_COUNT Pushes,                                    \
                          PYV_COUNT JPops,                                     \
                          PYV_COUNT JPushes,                                   \
                          PYV_COUNT Reads,                                     \
                          PYV_COUNT NullIn,                                    \
                          PYV_COUNT NullOut};                                  \
  Valid[Num] = true;
#define PYV_SPECIALIZED(Name, Num, Base)                                       \
  Specialized[Num] = #Name;                                                    \
  Deopt[Num] = Num_##Base;
#include "pyverify/Bytecode/Opcodes.def"
#undef PYV_COUNT
  }
};

const Table &table() {
  static const Table T;
  return T;
}

} // namespace

const OpcodeInfo *pyverify::getOpcodeInfo(uint8_t Byte) {
  return table().Valid[Byte] ? &table().Infos[Byte] : nullptr;
}

const OpcodeInfo &pyverify::getOpcodeInfo(Opcode Op) {
  const OpcodeInfo *I = getOpcodeInfo(static_cast<uint8_t>(Op));
  assert(I && "Opcode enumerators are base opcodes");
  return *I;
}

llvm::StringRef pyverify::getOpcodeName(Opcode Op) {
  return getOpcodeInfo(Op).Name;
}

const OpcodeInfo *pyverify::getDeoptimizedOpcodeInfo(uint8_t Byte) {
  if (!table().Specialized[Byte])
    return nullptr;
  return getOpcodeInfo(table().Deopt[Byte]);
}

llvm::StringRef pyverify::getSpecializedOpcodeName(uint8_t Byte) {
  const char *S = table().Specialized[Byte];
  return S ? S : "";
}

int64_t pyverify::getStackEffect(Opcode Op, uint32_t Arg, bool Jump) {
  const OpcodeInfo &I = getOpcodeInfo(Op);
  int64_t A = Arg;
  switch (I.Effect) {
  case EffectKind::Const:
    return Jump ? I.JumpEffect : I.FallThroughEffect;
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
  }
  llvm_unreachable("unknown effect kind");
}

int64_t StackCount::eval(uint32_t Arg) const {
  int64_t A = Arg;
  switch (Formula) {
  case CountFormula::Zero:
    return K;
  case CountFormula::Arg:
    return A + K;
  case CountFormula::TwoArg:
    return 2 * A + K;
  case CountFormula::ArgBit0:
    return (A & 1) + K;
  case CountFormula::ArgBit2:
    return ((A >> 2) & 1) + K;
  case CountFormula::Popcount4:
    return int64_t(std::popcount(Arg & 0xFu)) + K;
  case CountFormula::UnpackEx:
    return (A & 0xFF) + (A >> 8) + K;
  case CountFormula::ArgIs3:
    return (A == 3 ? 1 : 0) + K;
  }
  llvm_unreachable("unknown count formula");
}

StackIO pyverify::getStackIO(Opcode Op, uint32_t Arg, bool Jump) {
  const OpcodeInfo &I = getOpcodeInfo(Op);
  StackIO R;
  R.Pops = (Jump ? I.JumpPops : I.Pops).eval(Arg);
  R.Pushes = (Jump ? I.JumpPushes : I.Pushes).eval(Arg);
  R.Reads = std::max(R.Pops, I.Reads.eval(Arg));
  R.NullIn = uint64_t(I.NullIn.eval(Arg));
  R.NullOut = uint64_t(I.NullOut.eval(Arg));
  return R;
}

bool pyverify::mayRaise(Opcode Op, uint32_t Arg) {
  switch (getOpcodeInfo(Op).Raises) {
  case RaiseKind::Never:
    return false;
  case RaiseKind::Always:
    return true;
  case RaiseKind::ArgDependent:
    return Arg < 2;
  }
  llvm_unreachable("unknown raise kind");
}
