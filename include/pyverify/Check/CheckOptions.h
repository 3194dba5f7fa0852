//===- CheckOptions.h - Which checks run ------------------------*- C++ -*-===//
//
// Contract: CheckOptions holds the set of enabled check ids; by default the
// checks marked enabled in Checks.def. parseCheckSpec() applies a
// comma-separated spec, left to right, clang-tidy style:
//
//   "id"  or "+id"   enable        "-id"   disable
//   "*" / "all"      enable all    "-*"    disable all
//   "prefix-*"       every id starting with "prefix-" (also with '-')
//
// An entry that names no check is an llvm::Error listing the bad entry, in
// the words of where the spec came from (CheckSpecSource: the CLI's
// --checks by default; the Python API's checks= argument).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_CHECKOPTIONS_H
#define PYVERIFY_CHECK_CHECKOPTIONS_H

#include "pyverify/Analysis/ContextBalance.h"
#include "pyverify/Support/Check.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/Support/Error.h"

namespace pyverify {

/// Where a check spec came from, as its errors name it: "NAME: 'x' names
/// no check (see LISTEDBY)".
struct CheckSpecSource {
  llvm::StringRef Name = "--checks";
  llvm::StringRef ListedBy = "'pyverify check --list-checks'";
};

class CheckOptions {
public:
  CheckOptions();
  bool isEnabled(CheckId Id) const { return Enabled.test(unsigned(Id)); }
  void set(CheckId Id, bool On) { Enabled[unsigned(Id)] = On; }
  llvm::Error parseCheckSpec(llvm::StringRef Spec,
                             const CheckSpecSource &From = {});

  /// How the context-balance pass runs (its fast path can be turned off to
  /// test that it changes nothing).
  ContextBalanceOptions Balance;
  /// Report each root cause once (mergeRootCauses, Finding.h). prove turns
  /// it off: it decides each context finding at its own offset.
  bool MergeRootCauses = true;

private:
  llvm::BitVector Enabled;
};

} // namespace pyverify

#endif
