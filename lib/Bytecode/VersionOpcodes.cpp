//===- VersionOpcodes.cpp - Each version's opcode table -------------------===//

#include "pyverify/Bytecode/VersionOpcodes.h"
#include "OpcodeInfoInit.h"

#include <array>
#include <iterator>
#include <string_view>

using namespace pyverify;

using detail::VersionTable;

namespace {

constexpr void add(VersionTable &T, const VersionOpcodeInfo &I) {
  T.Infos[I.Number] = I;
  T.Valid[I.Number] = I.Number != 0; // CACHE is not an instruction
  T.ByteOf[unsigned(I.Op)] = I.Number;
  if (std::string_view(I.Name) == "EXTENDED_ARG")
    T.ExtendedArg = I.Number;
}

constexpr void addSpecialized(VersionTable &T, uint8_t Num, const char *Name,
                              Opcode Base) {
  T.Specialized[Num] = Name;
  T.Deopt[Num] = T.ByteOf[unsigned(Base)];
}

constexpr void addArgText(VersionTable &T, ArgTextTable Table, unsigned Index,
                          const char *Text) {
  T.ArgTexts[unsigned(Table)].at(Index) = Text;
}

// Each table #undefs its macros at its end. Specialised rows follow the
// base rows, so their base's byte is known.
#define PYV_TABLE_OPCODE(...) add(T, PYV_OPCODE_INFO(__VA_ARGS__));
#define PYV_TABLE_SPECIALIZED(Name, Num, Base)                                 \
  addSpecialized(T, Num, #Name, Opcode::Base);
#define PYV_TABLE_ARG_TEXT(Table, Index, Text)                                 \
  addArgText(T, ArgTextTable::Table, Index, Text);

constexpr VersionTable makeTable311() {
  VersionTable T{};
#define PYV_VERSION_OPCODE PYV_TABLE_OPCODE
#define PYV_SPECIALIZED PYV_TABLE_SPECIALIZED
#define PYV_ARG_TEXT PYV_TABLE_ARG_TEXT
#include "pyverify/Bytecode/Opcodes311.def"
  return T;
}

constexpr VersionTable makeTable312() {
  VersionTable T{};
#define PYV_VERSION_OPCODE PYV_TABLE_OPCODE
#define PYV_SPECIALIZED PYV_TABLE_SPECIALIZED
#define PYV_ARG_TEXT PYV_TABLE_ARG_TEXT
#include "pyverify/Bytecode/Opcodes312.def"
  return T;
}

constexpr VersionTable makeTable313() {
  VersionTable T{};
#define PYV_VERSION_OPCODE PYV_TABLE_OPCODE
#define PYV_SPECIALIZED PYV_TABLE_SPECIALIZED
#define PYV_ARG_TEXT PYV_TABLE_ARG_TEXT
#include "pyverify/Bytecode/Opcodes313.def"
  return T;
}

constexpr VersionTable makeTable314() {
  VersionTable T{};
#define PYV_VERSION_OPCODE PYV_TABLE_OPCODE
#define PYV_SPECIALIZED PYV_TABLE_SPECIALIZED
#define PYV_ARG_TEXT PYV_TABLE_ARG_TEXT
#include "pyverify/Bytecode/Opcodes314.def"
  return T;
}

constexpr VersionTable makeTable315() {
  VersionTable T{};
#define PYV_VERSION_OPCODE PYV_TABLE_OPCODE
#define PYV_SPECIALIZED PYV_TABLE_SPECIALIZED
#define PYV_ARG_TEXT PYV_TABLE_ARG_TEXT
#include "pyverify/Bytecode/Opcodes315.def"
  return T;
}

} // namespace

/// One table per PythonVersion, in enum order; a version without one does
/// not compile. constinit: no guard and no start-up code, so each lookup is
/// one load.
constinit const VersionTable pyverify::detail::TheVersionTables[] = {
    makeTable311(), makeTable312(), makeTable313(), makeTable314(),
    makeTable315()};
static_assert(std::size(detail::TheVersionTables) == NumPythonVersions,
              "every PythonVersion needs its opcode table");
