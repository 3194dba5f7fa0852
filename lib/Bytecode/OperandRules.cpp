//===- OperandRules.cpp - What each argument indexes, per version ---------===//

#include "pyverify/Bytecode/OperandRules.h"
#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/InstructionStream.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

using namespace pyverify;

const char *OperandRule::fieldNote(OperandField F) {
  switch (F) {
  case OperandField::Arg:
    return "";
  case OperandField::Shr1:
    return " (the argument >> 1)";
  case OperandField::Shr2:
    return " (the argument >> 2)";
  case OperandField::Shr4:
    return " (the argument >> 4)";
  case OperandField::Shr5:
    return " (the argument >> 5)";
  case OperandField::Low4:
    return " (the argument & 15)";
  }
  llvm_unreachable("unknown operand field");
}

static constexpr OperandRule TheRules[] = {
#define PYV_OPERAND_RULE(V, Op, Field, Bound, Lo, Hi, What, Effect)            \
  {PythonVersion::V,                                                           \
   Opcode::Op,                                                                 \
   OperandField::Field,                                                        \
   OperandBound::Bound,                                                        \
   Lo,                                                                         \
   Hi,                                                                         \
   What,                                                                       \
   Effect},
#include "pyverify/Bytecode/OperandRules.def"
};

namespace {
constexpr size_t NumRules = std::size(TheRules);
constexpr size_t runIndex(PythonVersion V, Opcode Op) {
  return size_t(V) * NumOpcodes + size_t(Op);
}

/// TheRules sorted by (version, opcode), the table's order kept within one,
/// and each (version, opcode)'s run of them, built at compile time: a lookup
/// is two loads (the decoder and the operand checks ask for every
/// instruction).
struct SortedRules {
  std::array<OperandRule, NumRules> Rules{};
  std::array<std::pair<uint32_t, uint32_t>, NumPythonVersions * NumOpcodes>
      Runs{};
  constexpr SortedRules() {
    // A stable insertion sort (constexpr; a few hundred rules).
    for (size_t K = 0; K < NumRules; ++K) {
      size_t J = K;
      while (J > 0 && runIndex(TheRules[K].Ver, TheRules[K].Op) <
                          runIndex(Rules[J - 1].Ver, Rules[J - 1].Op)) {
        Rules[J] = Rules[J - 1];
        --J;
      }
      Rules[J] = TheRules[K];
    }
    for (uint32_t K = 0; K < NumRules; ++K) {
      auto &R = Runs[runIndex(Rules[K].Ver, Rules[K].Op)];
      if (R.first == R.second)
        R.first = K;
      R.second = K + 1;
    }
  }
};
constexpr SortedRules TheSortedRules;
} // namespace

const OperandRule *const pyverify::detail::TheOperandRules =
    TheSortedRules.Rules.data();
const std::pair<uint32_t, uint32_t>
    *const pyverify::detail::TheOperandRuleRuns = TheSortedRules.Runs.data();

/// The argument bits field \p F takes.
static uint32_t fieldMask(OperandField F) {
  switch (F) {
  case OperandField::Arg:
    return ~0u;
  case OperandField::Shr1:
    return ~1u;
  case OperandField::Shr2:
    return ~3u;
  case OperandField::Shr4:
    return ~15u;
  case OperandField::Shr5:
    return ~31u;
  case OperandField::Low4:
    return 15u;
  }
  llvm_unreachable("unknown operand field");
}

std::string pyverify::resolvedOperands(const CodeObject &C,
                                       const Instruction &I) {
  if (!I.Valid || !I.info().hasArg())
    return "";
  llvm::ArrayRef<OperandRule> Rules = getOperandRules(I.Ver, I.op());
  if (Rules.empty())
    return I.info().Operand == OperandKind::Jump ? "" : std::to_string(I.Arg);
  auto Bad = [](const char *What, uint32_t N) {
    return "<bad " + std::string(What) + " " + std::to_string(N) + ">";
  };
  std::string S;
  uint32_t Covered = 0;
  for (const OperandRule &R : Rules) {
    uint32_t N = R.value(I.Arg);
    Covered |= fieldMask(R.Field);
    if (!S.empty())
      S += ",";
    switch (R.Bound) {
    case OperandBound::Consts:
    case OperandBound::KwNames:
      S += N < C.Consts.size() ? C.Consts[N].repr(C.Version) : Bad("const", N);
      break;
    case OperandBound::Names:
      S += N < C.Names.size() ? C.Names[N].str() : Bad("name", N);
      break;
    case OperandBound::LocalsPlus:
    case OperandBound::Cell:
      S += N < C.LocalsPlusNames.size() ? C.LocalsPlusNames[N].str()
                                        : Bad("local", N);
      break;
    case OperandBound::KwCount:
    case OperandBound::NFreeVars:
    case OperandBound::Range:
    case OperandBound::OneFlag:
      S += std::to_string(N);
      break;
    }
  }
  if (uint32_t Flags = I.Arg & ~Covered)
    S += "|" + std::to_string(Flags);
  return S;
}
