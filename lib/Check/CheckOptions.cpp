//===- CheckOptions.cpp - Which checks run --------------------------------===//

#include "pyverify/Check/CheckOptions.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace pyverify;

CheckOptions::CheckOptions() : Enabled(allChecks().size()) {
  for (const CheckInfo &C : allChecks())
    Enabled[unsigned(C.Id)] = C.EnabledByDefault;
}

llvm::Error CheckOptions::parseCheckSpec(llvm::StringRef Spec,
                                         const CheckSpecSource &From) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Spec.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Part : Parts) {
    Part = Part.trim();
    bool On = true;
    if (Part.consume_front("-"))
      On = false;
    else
      Part.consume_front("+");
    if (Part == "*" || Part == "all") {
      On ? Enabled.set() : Enabled.reset();
      continue;
    }
    bool Matched = false;
    for (const CheckInfo &C : allChecks()) {
      bool Match = Part.endswith("*") ? C.Name.startswith(Part.drop_back())
                                      : C.Name == Part;
      if (Match) {
        Enabled[unsigned(C.Id)] = On;
        Matched = true;
      }
    }
    if (!Matched)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(), "%s: '%s' names no check (see %s)",
          From.Name.str().c_str(), Part.str().c_str(),
          From.ListedBy.str().c_str());
  }
  return llvm::Error::success();
}
