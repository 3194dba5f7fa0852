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

} // namespace pyverify

#endif
