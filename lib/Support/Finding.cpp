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
  // Findings with a cause, grouped by (check, cause), in finding order.
  std::map<std::pair<CheckId, llvm::StringRef>, std::vector<size_t>> Groups;
  for (size_t I = 0; I < Findings.size(); ++I)
    if (!Findings[I].Cause.empty())
      Groups[{Findings[I].Check, Findings[I].Cause}].push_back(I);
  std::vector<bool> Drop(Findings.size());
  for (auto &[Key, Group] : Groups) {
    if (Group.size() < 2)
      continue;
    // Kept: the first definite one, else the first.
    auto Kept = llvm::find_if(Group, [&](size_t I) {
      return Findings[I].Cert == Certainty::Definite;
    });
    if (Kept == Group.end())
      Kept = Group.begin();
    Finding &K = Findings[*Kept];
    Group.erase(Kept);
    llvm::stable_sort(Group, [&](size_t A, size_t B) {
      return Findings[A].Offset < Findings[B].Offset;
    });
    K.Message += llvm::formatv(" (the same cause at {0} more place{1}, in "
                               "the notes)",
                               Group.size(), Group.size() == 1 ? "" : "s")
                     .str();
    for (size_t O : Group) {
      const Finding &F = Findings[O];
      K.note(F.Offset, F.AlsoNote.empty() ? "also: " + F.Message : F.AlsoNote);
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
