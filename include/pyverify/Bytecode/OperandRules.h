//===- OperandRules.h - What each argument indexes, per version -*- C++ -*-===//
//
// Contract: getOperandRules(V, Op) gives every rule OperandRules.def states
// for opcode Op in version V -- which part of the argument is an index or an
// enumeration value (OperandRule::value) and the table or range it must lie
// in -- in the table's order; empty for an opcode whose argument indexes
// nothing CPython leaves unchecked. The rules are facts about the interpreter
// (what it reads without checking); whether an instruction breaks one is the
// Check layer's question (OperandChecks.h), since it needs the code object's
// tables.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_OPERANDRULES_H
#define PYVERIFY_BYTECODE_OPERANDRULES_H

#include "pyverify/Bytecode/Opcode.h"
#include "pyverify/Bytecode/PythonVersion.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <utility>

namespace pyverify {

struct CodeObject;
struct Instruction;

/// Which part of the argument is the operand.
enum class OperandField : uint8_t { Arg, Shr1, Shr2, Shr4, Shr5, Low4 };

/// What the operand must index or lie in (OperandRules.def says each).
enum class OperandBound : uint8_t {
  Consts,
  KwNames,
  KwCount,
  Names,
  LocalsPlus,
  Cell,
  NFreeVars,
  Range,
  OneFlag,
};

struct OperandRule {
  PythonVersion Ver;
  Opcode Op;
  OperandField Field;
  OperandBound Bound;
  uint32_t Lo, Hi;    ///< Range and OneFlag only.
  const char *What;   ///< Range and OneFlag: what the operand is.
  const char *Effect; ///< Range and OneFlag: what a bad one makes CPython do.

  /// The operand of an instruction whose argument is \p Arg.
  uint32_t value(uint32_t Arg) const { return fieldValue(Field, Arg); }
  static uint32_t fieldValue(OperandField F, uint32_t Arg) {
    switch (F) {
    case OperandField::Arg:
      return Arg;
    case OperandField::Shr1:
      return Arg >> 1;
    case OperandField::Shr2:
      return Arg >> 2;
    case OperandField::Shr4:
      return Arg >> 4;
    case OperandField::Shr5:
      return Arg >> 5;
    case OperandField::Low4:
      return Arg & 15;
    }
    return Arg; // not reached: every field is handled
  }
  /// How the operand is taken from the argument, for messages: "" for the
  /// whole argument, else e.g. " (the argument >> 1)".
  static const char *fieldNote(OperandField F);
};

namespace detail {
/// Every rule sorted by (version, opcode), and each (version, opcode)'s run
/// [begin, end) of them, indexed version * NumOpcodes + opcode; constant
/// (built at compile time, OperandRules.cpp).
extern const OperandRule *const TheOperandRules;
extern const std::pair<uint32_t, uint32_t> *const TheOperandRuleRuns;
} // namespace detail

/// One version's rules, by opcode: for a loop over a stream, whose
/// instructions share a version, the version's row is found once.
class VersionOperandRules {
public:
  explicit VersionOperandRules(PythonVersion V)
      : Runs(detail::TheOperandRuleRuns + size_t(V) * NumOpcodes) {}
  /// The rules for \p Op, in OperandRules.def's order.
  llvm::ArrayRef<OperandRule> operator[](Opcode Op) const {
    auto [B, E] = Runs[size_t(Op)];
    return llvm::ArrayRef<OperandRule>(detail::TheOperandRules + B, E - B);
  }

private:
  const std::pair<uint32_t, uint32_t> *Runs;
};

/// \p V's rules for \p Op, in OperandRules.def's order.
inline llvm::ArrayRef<OperandRule> getOperandRules(PythonVersion V, Opcode Op) {
  return VersionOperandRules(V)[Op];
}

/// What \p I operates on, as a string two instructions of different code
/// objects share exactly when they do the same thing to the same operands:
/// each operand its rules name resolved against \p C's tables (a constant's
/// repr, a name, a local's name; a count or an enumeration value as a
/// number), then the argument bits no rule covers (a method or NULL flag).
/// An opcode without rules shows its raw argument unless the argument is a
/// jump (whose target is structure, not operand) or absent. Not a listing:
/// Listing.h's describeArgument() is for people.
std::string resolvedOperands(const CodeObject &C, const Instruction &I);

} // namespace pyverify

#endif
