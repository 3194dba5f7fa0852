//===- VersionOpcodes.h - Each version's base opcodes -----------*- C++ -*-===//
//
// Contract: getVersionOpcodeInfo() gives, for a CPython version and an
// opcode byte, that version's base opcode -- every fact OpcodeInfo holds:
// name and identity (enum Opcode), inline cache units, whether it takes an
// argument, its jump kind and what a jump skips, whether it is a terminator,
// whether it may raise, its net stack effect and its real stack on both
// edges -- or null when the byte is not a base opcode of that version (CACHE
// included). The 3.11 entries are Opcodes.def's; the 3.12 and 3.13 ones are
// Opcodes312.def and Opcodes313.def, generated from those interpreters by
// scripts/gen-version-opcodes.py (the facts `dis` lacks: scripts/stack_io.py)
// and re-checked against them at test time
// (tests/versions/check_version_opcodes.py, through `pyverify dis
// --list-opcodes`). Tables are built at compile time; lookups are loads.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_VERSIONOPCODES_H
#define PYVERIFY_BYTECODE_VERSIONOPCODES_H

#include "pyverify/Bytecode/Opcode.h"
#include "pyverify/Bytecode/PythonVersion.h"

#include <array>
#include <cstdint>

namespace pyverify {

/// A version's facts about one base opcode: the same record as 3.11's.
using VersionOpcodeInfo = OpcodeInfo;

namespace detail {
/// One version's table, indexed by opcode byte, built at compile time
/// (VersionOpcodes.cpp); read through the functions below.
struct VersionTable {
  std::array<VersionOpcodeInfo, 256> Infos{};
  std::array<bool, 256> Valid{};
  uint8_t ExtendedArg = 0;
};
extern const VersionTable TheVersionTables[3];
} // namespace detail

/// \p V's base opcode \p Byte, or null (CACHE, unused, specialised or
/// instrumented numbers). Inline: the decoder asks it for every unit.
inline const VersionOpcodeInfo *getVersionOpcodeInfo(PythonVersion V,
                                                     uint8_t Byte) {
  const detail::VersionTable &T = detail::TheVersionTables[unsigned(V)];
  return T.Valid[Byte] ? &T.Infos[Byte] : nullptr;
}

/// \p V's EXTENDED_ARG byte.
inline uint8_t extendedArgByte(PythonVersion V) {
  return detail::TheVersionTables[unsigned(V)].ExtendedArg;
}

} // namespace pyverify

#endif
