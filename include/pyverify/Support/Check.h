//===- Check.h - Stable check ids and severities ----------------*- C++ -*-===//
//
// Contract: every finding pyverify reports names one CheckId from Checks.def.
// The id's string form is stable across releases (CLI, JSON, SARIF, tests).
// Lookup by name is exact; unknown names yield std::nullopt, never a guess.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SUPPORT_CHECK_H
#define PYVERIFY_SUPPORT_CHECK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace pyverify {

enum class Severity : uint8_t { Remark, Warning, Error };

enum class CheckId : uint8_t {
#define PYV_CHECK(Enum, Name, Sev, On, Summary) Enum,
#include "pyverify/Support/Checks.def"
};

struct CheckInfo {
  CheckId Id;
  llvm::StringLiteral Name;
  Severity DefaultSeverity;
  bool EnabledByDefault;
  llvm::StringLiteral Summary;
};

/// All checks, in Checks.def order.
llvm::ArrayRef<CheckInfo> allChecks();
const CheckInfo &getCheckInfo(CheckId Id);
llvm::StringRef getCheckName(CheckId Id);
std::optional<CheckId> lookupCheck(llvm::StringRef Name);
llvm::StringRef getSeverityName(Severity S);

} // namespace pyverify

#endif
