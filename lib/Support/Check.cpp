//===- Check.cpp - Stable check ids and severities ------------------------===//

#include "pyverify/Support/Check.h"

#include <cassert>

using namespace pyverify;

static const CheckInfo Checks[] = {
#define PYV_CHECK(Enum, Name, Sev, On, Summary)                                \
  {CheckId::Enum, Name, Severity::Sev, On, Summary},
#include "pyverify/Support/Checks.def"
};

llvm::ArrayRef<CheckInfo> pyverify::allChecks() { return Checks; }

const CheckInfo &pyverify::getCheckInfo(CheckId Id) {
  auto Index = static_cast<size_t>(Id);
  assert(Index < std::size(Checks) && Checks[Index].Id == Id);
  return Checks[Index];
}

llvm::StringRef pyverify::getCheckName(CheckId Id) {
  return getCheckInfo(Id).Name;
}

std::optional<CheckId> pyverify::lookupCheck(llvm::StringRef Name) {
  for (const CheckInfo &C : Checks)
    if (C.Name == Name)
      return C.Id;
  return std::nullopt;
}

llvm::StringRef pyverify::getSeverityName(Severity S) {
  switch (S) {
  case Severity::Remark:
    return "remark";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  llvm_unreachable("unknown severity");
}
