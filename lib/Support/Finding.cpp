//===- Finding.cpp - A finding about one code object ----------------------===//

#include "pyverify/Support/Finding.h"

#include <algorithm>

using namespace pyverify;

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
