//===- VersionOpcodes.h - Each version's opcode table -----------*- C++ -*-===//
//
// Contract: getVersionOpcodeInfo() gives, for a CPython version and an
// opcode byte, that version's base opcode -- every fact OpcodeInfo holds:
// name and identity (enum Opcode), inline cache units, whether it takes an
// argument, its jump kind and what a jump skips, whether it is a terminator,
// whether it may raise, its net stack effect and its real stack on both
// edges -- or null when the byte is not a base opcode of that version (CACHE
// included). Each version's table is its Opcodes3NN.def, generated from that
// interpreter by scripts/gen-opcodes.py (the facts `dis` lacks:
// scripts/stack_io.py) and re-checked against it at test time
// (tests/versions/check_version_opcodes.py, through `pyverify dis
// --list-opcodes`). A version without a table does not compile. Tables are
// built at compile time; lookups are loads.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_VERSIONOPCODES_H
#define PYVERIFY_BYTECODE_VERSIONOPCODES_H

#include "pyverify/Bytecode/Opcode.h"
#include "pyverify/Bytecode/PythonVersion.h"

#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>

namespace pyverify {

/// A version's facts about one base opcode.
using VersionOpcodeInfo = OpcodeInfo;

/// The texts a version's `dis` shows for enumerated arguments (PYV_ARG_TEXT
/// rows of its Opcodes3NN.def, read from its dis and opcode modules). The
/// *Format tables hold one pattern, at index 0, with {0} for the operand.
enum class ArgTextTable : uint8_t {
  CompareOp,         ///< dis.cmp_op
  BinaryOp,          ///< dis._nb_ops
  Intrinsic1,        ///< CALL_INTRINSIC_1's functions
  Intrinsic2,        ///< CALL_INTRINSIC_2's functions
  FunctionFlag,      ///< MAKE_FUNCTION / SET_FUNCTION_ATTRIBUTE bits
  Conversion,        ///< FORMAT_VALUE / CONVERT_VALUE conversions
  NullFormat,        ///< LOAD_GLOBAL with its NULL bit
  NullSelfFormat,    ///< LOAD_ATTR / LOAD_SUPER_ATTR with their NULL|self bit
  CompareBoolFormat, ///< COMPARE_OP converting to bool
  IsOp,              ///< IS_OP's argument 0 and nonzero (3.14 on)
  ContainsOp,        ///< CONTAINS_OP's argument 0 and nonzero (3.14 on)
  SpecialMethod,     ///< opcode._special_method_names (LOAD_SPECIAL)
  CommonConstant,    ///< opcode._common_constants' reprs
  ImportFormat,      ///< IMPORT_NAME's "+ lazy" (1) / "+ eager" (2) (3.15)
};
constexpr unsigned NumArgTextTables = 14;
constexpr unsigned MaxArgTexts = 32;

namespace detail {
/// One version's table, indexed by opcode byte, built at compile time
/// (VersionOpcodes.cpp); read through the functions below.
struct VersionTable {
  std::array<VersionOpcodeInfo, 256> Infos{};
  std::array<bool, 256> Valid{};
  /// Specialised opcodes (only in _co_code_adaptive): name and base byte.
  std::array<const char *, 256> Specialized{};
  std::array<uint8_t, 256> Deopt{};
  /// Each enumerator's byte in this version, 0 where it has none.
  std::array<uint8_t, NumOpcodes> ByteOf{};
  uint8_t ExtendedArg = 0;
  /// PYV_ARG_TEXT rows, null where the version has none.
  std::array<std::array<const char *, MaxArgTexts>, NumArgTextTables>
      ArgTexts{};
};
extern const VersionTable TheVersionTables[NumPythonVersions];
} // namespace detail

/// \p V's base opcode \p Byte, or null (CACHE, unused, specialised or
/// instrumented numbers). Inline: the decoder asks it for every unit.
inline const VersionOpcodeInfo *getVersionOpcodeInfo(PythonVersion V,
                                                     uint8_t Byte) {
  const detail::VersionTable &T = detail::TheVersionTables[unsigned(V)];
  return T.Valid[Byte] ? &T.Infos[Byte] : nullptr;
}

/// \p V's row for opcode \p Op, or null when \p V has no such opcode.
inline const VersionOpcodeInfo *getVersionOpcodeInfo(PythonVersion V,
                                                     Opcode Op) {
  const detail::VersionTable &T = detail::TheVersionTables[unsigned(V)];
  uint8_t B = T.ByteOf[unsigned(Op)];
  return T.Valid[B] && T.Infos[B].Op == Op ? &T.Infos[B] : nullptr;
}

/// \p Op's byte in \p V, or nullopt when \p V has no such opcode (for
/// emitters and tests that build code).
inline std::optional<uint8_t> opcodeByte(PythonVersion V, Opcode Op) {
  if (const VersionOpcodeInfo *I = getVersionOpcodeInfo(V, Op))
    return I->Number;
  return std::nullopt;
}

/// \p V's EXTENDED_ARG byte.
inline uint8_t extendedArgByte(PythonVersion V) {
  return detail::TheVersionTables[unsigned(V)].ExtendedArg;
}

/// Name of \p V's specialised opcode \p Byte (e.g. "BINARY_OP_ADD_INT"), for
/// messages; empty for other numbers.
inline llvm::StringRef getSpecializedOpcodeName(PythonVersion V, uint8_t Byte) {
  const char *S = detail::TheVersionTables[unsigned(V)].Specialized[Byte];
  return S ? S : "";
}

/// \p V's text for \p Index in \p Table, or null when it has none (an
/// argument out of the table's range, or a table the version lacks).
inline const char *getArgText(PythonVersion V, ArgTextTable Table,
                              uint32_t Index) {
  if (Index >= MaxArgTexts)
    return nullptr;
  return detail::TheVersionTables[unsigned(V)].ArgTexts[unsigned(Table)][Index];
}

/// Whether BINARY_OP's argument \p Arg is subscription in version \p V:
/// 3.14 folds BINARY_SUBSCR into BINARY_OP, as the operator its own dis
/// names "[]" (NB_SUBSCR; the version's table of operator texts). False
/// for every argument up to 3.13.
inline bool isSubscriptOperator(PythonVersion V, uint32_t Arg) {
  const char *Text = getArgText(V, ArgTextTable::BinaryOp, Arg);
  return Text && llvm::StringRef(Text) == "[]";
}

/// For \p V's specialised opcode \p Byte, the row of the base opcode it
/// stands for (CPython's _PyOpcode_Deopt), else null.
inline const VersionOpcodeInfo *getDeoptimizedOpcodeInfo(PythonVersion V,
                                                         uint8_t Byte) {
  const detail::VersionTable &T = detail::TheVersionTables[unsigned(V)];
  return T.Specialized[Byte] ? getVersionOpcodeInfo(V, T.Deopt[Byte]) : nullptr;
}

} // namespace pyverify

#endif
