//===- VersionOpcodes.cpp - Each version's base opcodes -------------------===//

#include "pyverify/Bytecode/VersionOpcodes.h"

#include <array>
#include <string_view>

using namespace pyverify;

using detail::VersionTable;

namespace {

constexpr void add(VersionTable &T, const VersionOpcodeInfo &I) {
  T.Infos[I.Number] = I;
  T.Valid[I.Number] = I.Number != 0; // CACHE is not an instruction
  if (std::string_view(I.Name) == "EXTENDED_ARG")
    T.ExtendedArg = I.Number;
}

constexpr VersionTable make311() {
  VersionTable T{};
#define PYV_OPCODE(Name, Num, Caches, JumpK, Term, RaisesK, EffectK, FT, JT,   \
                   OperandK, Pops, Pushes, JPops, JPushes, Reads, NullIn,      \
                   NullOut)                                                    \
  add(T,                                                                       \
      VersionOpcodeInfo{#Name, Num, Caches, Num >= HaveArgument,               \
                        JumpKind::JumpK, Term, EffectKind::EffectK, FT, JT});
#include "pyverify/Bytecode/Opcodes.def"
  return T;
}

// Each generated table #undefs PYV_VERSION_OPCODE at its end.
#define PYV_ADD_VERSION_OPCODE(Name, Num, Caches, HasArg, JumpK, Term,         \
                               EffectK, FT, JT)                                \
  add(T, VersionOpcodeInfo{#Name, Num, Caches, HasArg, JumpKind::JumpK, Term,  \
                           EffectKind::EffectK, FT, JT});

constexpr VersionTable make312() {
  VersionTable T{};
#define PYV_VERSION_OPCODE PYV_ADD_VERSION_OPCODE
#include "pyverify/Bytecode/Opcodes312.def"
  return T;
}

constexpr VersionTable make313() {
  VersionTable T{};
#define PYV_VERSION_OPCODE PYV_ADD_VERSION_OPCODE
#include "pyverify/Bytecode/Opcodes313.def"
  return T;
}

} // namespace

/// constinit: no guard and no start-up code, so each lookup is one load.
constinit const VersionTable pyverify::detail::TheVersionTables[3] = {
    make311(), make312(), make313()};
