//===- Finding.h - A finding about one code object --------------*- C++ -*-===//
//
// Contract: a Finding is a fact about *valid-enough* input that a check
// reports (the third error tier; malformed input that stops reading is an
// llvm::Error instead). It names the check, the severity, the byte offset in
// co_code it is about (or in the table it is about, when Offset refers to a
// table -- the message then says so), a message stating what was expected and
// what was found, and notes pointing at related instructions.
//
// Findings are plain values: the Check layer adds file, qualname and source
// positions when it turns them into diagnostics.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SUPPORT_FINDING_H
#define PYVERIFY_SUPPORT_FINDING_H

#include "pyverify/Support/Check.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyverify {

struct FindingNote {
  uint32_t Offset; ///< Byte offset in co_code of the related instruction.
  std::string Message;
};

struct Finding {
  CheckId Check;
  Severity Sev;
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
