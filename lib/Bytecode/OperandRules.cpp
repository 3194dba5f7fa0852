//===- OperandRules.cpp - What each argument indexes, per version ---------===//

#include "pyverify/Bytecode/OperandRules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <vector>

using namespace pyverify;

uint32_t OperandRule::fieldValue(OperandField F, uint32_t Arg) {
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
  llvm_unreachable("unknown operand field");
}

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

static const OperandRule TheRules[] = {
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
/// TheRules sorted by (version, opcode), the table's order kept within one.
struct SortedRules {
  std::vector<OperandRule> Rules;
  SortedRules() : Rules(std::begin(TheRules), std::end(TheRules)) {
    std::stable_sort(Rules.begin(), Rules.end(), less);
  }
  static bool less(const OperandRule &A, const OperandRule &B) {
    return std::make_pair(A.Ver, A.Op) < std::make_pair(B.Ver, B.Op);
  }
};
} // namespace

llvm::ArrayRef<OperandRule> pyverify::getOperandRules(PythonVersion V,
                                                      Opcode Op) {
  static const SortedRules S;
  OperandRule Key{V, Op, OperandField::Arg, OperandBound::Range, 0, 0, "", ""};
  auto [B, E] =
      std::equal_range(S.Rules.begin(), S.Rules.end(), Key, SortedRules::less);
  return llvm::ArrayRef<OperandRule>(S.Rules).slice(B - S.Rules.begin(), E - B);
}
