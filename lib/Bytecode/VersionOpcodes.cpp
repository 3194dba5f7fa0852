//===- VersionOpcodes.cpp - Each version's base opcodes -------------------===//

#include "pyverify/Bytecode/VersionOpcodes.h"
#include "OpcodeInfoInit.h"

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
#define PYV_OPCODE(...) add(T, PYV_OPCODE_INFO_311(__VA_ARGS__));
#include "pyverify/Bytecode/Opcodes.def"
  return T;
}

// Each generated table #undefs PYV_VERSION_OPCODE at its end.
#define PYV_ADD_VERSION_OPCODE(Name, Num, Caches, HasArg, JumpK, Term,         \
                               RaisesK, EffectK, FT, JT, OperandK, Skip, ...)  \
  add(T, PYV_OPCODE_INFO(Name, Num, Caches, HasArg, Skip, JumpK, Term,         \
                         RaisesK, EffectK, FT, JT, OperandK, __VA_ARGS__));

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
