//===- Finding.cpp - A finding about one code object ----------------------===//

#include "pyverify/Support/Finding.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

using namespace pyverify;

llvm::StringRef pyverify::getCertaintyName(Certainty C) {
  switch (C) {
  case Certainty::Definite:
    return "definite";
  case Certainty::Possible:
    return "possible";
  }
  llvm_unreachable("unknown certainty");
}

void pyverify::sortAndUniqueFindings(std::vector<Finding> &Findings) {
  std::stable_sort(
      Findings.begin(), Findings.end(),
      [](const Finding &A, const Finding &B) { return A.Offset < B.Offset; });
  auto Same = [](const Finding &A, const Finding &B) {
    return A.Check == B.Check && A.Offset == B.Offset && A.Message == B.Message;
  };
  Findings.erase(std::unique(Findings.begin(), Findings.end(), Same),
                 Findings.end());
}
