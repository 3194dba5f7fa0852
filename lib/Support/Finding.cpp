//===- Finding.cpp - A finding about one code object ----------------------===//

#include "pyverify/Support/Finding.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

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

void pyverify::mergeRootCauses(std::vector<Finding> &Findings) {
  using Key = std::pair<CheckId, llvm::StringRef>;
  std::map<Key, size_t> Primary; // key -> index of the finding kept
  for (size_t I = 0; I < Findings.size(); ++I) {
    const Finding &F = Findings[I];
    if (F.Cause.empty())
      continue;
    auto [It, New] = Primary.try_emplace(Key(F.Check, F.Cause), I);
    const Finding &P = Findings[It->second];
    if (!New && P.Cert != Certainty::Definite && F.Cert == Certainty::Definite)
      It->second = I;
  }
  if (Primary.size() == size_t(llvm::count_if(Findings, [](const Finding &F) {
        return !F.Cause.empty();
      })))
    return;                                     // no cause shows twice
  std::map<size_t, std::vector<size_t>> Merged; // primary -> others
  for (size_t I = 0; I < Findings.size(); ++I) {
    const Finding &F = Findings[I];
    if (F.Cause.empty())
      continue;
    size_t P = Primary.at(Key(F.Check, F.Cause));
    if (P != I)
      Merged[P].push_back(I);
  }
  std::vector<bool> Drop(Findings.size());
  for (auto &[P, Others] : Merged) {
    llvm::stable_sort(Others, [&](size_t A, size_t B) {
      return Findings[A].Offset < Findings[B].Offset;
    });
    Finding &Kept = Findings[P];
    Kept.Message += llvm::formatv(" (the same cause at {0} more place{1}, in "
                                  "the notes)",
                                  Others.size(), Others.size() == 1 ? "" : "s")
                        .str();
    for (size_t O : Others) {
      Finding &F = Findings[O];
      Kept.note(F.Offset,
                F.AlsoNote.empty() ? "also: " + F.Message : F.AlsoNote);
      Drop[O] = true;
    }
  }
  size_t Out = 0;
  for (size_t I = 0; I < Findings.size(); ++I) {
    if (Drop[I])
      continue;
    if (Out != I) // never a self-move: it would empty the strings
      Findings[Out] = std::move(Findings[I]);
    ++Out;
  }
  Findings.erase(Findings.begin() + Out, Findings.end());
}
