//===- Finding.h - A finding about one code object --------------*- C++ -*-===//
//
// Contract: a Finding is a fact about *valid-enough* input that a check
// reports (the third error tier; malformed input that stops reading is an
// llvm::Error instead). It names the check, the severity, the byte offset in
// co_code it is about (or in the table it is about, when Offset refers to a
// table -- the message then says so), a message stating what was expected and
// what was found, and notes pointing at related instructions.
//
// A finding also has a certainty, apart from its severity (IKOS's error vs
// warning): Definite when the fault happens on every path the analysis
// merged into the state it judged, Possible when it rests on a merged fact
// (a slot or local that differs between the merged paths). A possible error
// is still an error: the severity is the check's own. The message never
// carries the certainty; printers say it ("possibly: " in text).
//
// Findings are plain values: the Check layer adds file, qualname and source
// positions when it turns them into diagnostics.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SUPPORT_FINDING_H
#define PYVERIFY_SUPPORT_FINDING_H

#include "pyverify/Support/Check.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyverify {

/// Whether a finding holds on every merged path or only on some.
enum class Certainty : uint8_t { Definite, Possible };

/// "definite" / "possible" (the JSON and SARIF spelling).
llvm::StringRef getCertaintyName(Certainty C);

struct FindingNote {
  uint32_t Offset; ///< Byte offset in co_code of the related instruction.
  std::string Message;
};

struct Finding {
  CheckId Check;
  Severity Sev;
  Certainty Cert = Certainty::Definite;
  uint32_t Offset; ///< Byte offset in co_code (opcode unit) it is about.
  std::string Message;
  llvm::SmallVector<FindingNote, 1> Notes;
  /// The root cause, when one fault shows at several places: findings of
  /// one code object with the same check and the same non-empty Cause are
  /// reported once (mergeRootCauses). E.g. "entry 3" (one table entry's
  /// wrong depth, seen at each instruction it covers), "context 2" (one
  /// context never exited, seen at each raise), "co_stacksize".
  std::string Cause;
  /// What this finding says as a note of the one it is merged into; empty:
  /// "also: <Message>".
  std::string AlsoNote;
  /// checks-not-run and analysis-limit findings: the enabled checks that
  /// did not run on this code object (in Checks.def order). A finding with
  /// such a list is never filtered out by --checks: switching off the error
  /// that stopped a check does not make the code verified.
  llvm::SmallVector<CheckId, 0> NotRun;

  Finding(CheckId Check, uint32_t Offset, std::string Message)
      : Check(Check), Sev(getCheckInfo(Check).DefaultSeverity), Offset(Offset),
        Message(std::move(Message)) {}

  Finding &note(uint32_t At, std::string Msg) {
    Notes.push_back({At, std::move(Msg)});
    return *this;
  }
};

/// Orders \p Findings by offset, stably (those at one offset keep their
/// order), and drops each finding whose check, offset and message equal
/// those of the finding before it.
void sortAndUniqueFindings(std::vector<Finding> &Findings);

/// Reports each root cause once: of the findings with one check and one
/// non-empty Cause, keeps the first definite one (the first, if none is
/// definite) at its place in \p Findings, and turns every other into a note
/// of it at its offset (AlsoNote), in offset order; the kept message says
/// how many places the notes add. Findings without a Cause are untouched.
/// Deterministic.
void mergeRootCauses(std::vector<Finding> &Findings);

} // namespace pyverify

#endif
