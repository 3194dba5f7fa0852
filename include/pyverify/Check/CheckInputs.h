//===- CheckInputs.h - What each check needs to run -------------*- C++ -*-===//
//
// Contract: getCheckInput() names, for every check id, the one pipeline
// result the check reads (CodeAnalysis.h): a check runs exactly when that
// result exists. The pipeline (Verifier.cpp, BundleVerifier.cpp) asks
// notRunFinding() whenever a result is missing -- an input that did not
// decode, an analysis that gave up -- so that every enabled check that did
// not run is named, with the reason, in a checks-not-run (or
// analysis-limit) error: "no findings" always means "looked at".
//
// The inputs, from first to last (each needs the ones before it):
//
//   Code      the code object's bytes (every decoder and validator)
//   Table     the decoded exception table
//   Flow      the CFG: the instruction stream and the table well-formed
//             (DecodedCode::isWellFormed)
//   Depths    the stack-depth pass
//   Values    the value-kinds pass: depths without underflow or conflict,
//             within what the pass models
//   Contexts  the block stack and the context-balance pass
//   Bundle    a bundle's claims over the original's contexts
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_CHECKINPUTS_H
#define PYVERIFY_CHECK_CHECKINPUTS_H

#include "pyverify/Check/CheckOptions.h"
#include "pyverify/Support/Finding.h"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

namespace pyverify {

enum class CheckInput : uint8_t {
  Code,
  Table,
  Flow,
  Depths,
  Values,
  Contexts,
  Bundle,
};

CheckInput getCheckInput(CheckId Id);

/// The finding that says which of \p O's enabled checks reading one of
/// \p Missing did not run, and \p Why: a checks-not-run error, or, for
/// \p Kind == AnalysisLimit, \p Why followed by the list. None when no
/// enabled check reads a missing input (nothing was left out).
std::optional<Finding> notRunFinding(const CheckOptions &O,
                                     std::initializer_list<CheckInput> Missing,
                                     llvm::StringRef Why,
                                     CheckId Kind = CheckId::ChecksNotRun,
                                     uint32_t Offset = 0);

/// The same for the enabled ones of \p Checks (a bundle check that could
/// not run for one claim).
std::optional<Finding> notRunFinding(const CheckOptions &O,
                                     llvm::ArrayRef<CheckId> Checks,
                                     llvm::StringRef Why, uint32_t Offset = 0);

} // namespace pyverify

#endif
