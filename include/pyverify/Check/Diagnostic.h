//===- Diagnostic.h - A finding placed in its file --------------*- C++ -*-===//
//
// Contract: a Diagnostic is a Finding with everything a reader needs to find
// it: its check, severity and certainty (Finding.h), the file, the code
// object's qualified name and first line, the byte
// offset, the source line and column of that instruction (when the location
// table has them), the instruction itself as text, and notes with their own
// offsets and lines. Diagnostics sort deterministically (file, code object
// order of appearance, root causes first (isRootCauseCheck), offset, check
// id).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_DIAGNOSTIC_H
#define PYVERIFY_CHECK_DIAGNOSTIC_H

#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Support/Finding.h"

#include <optional>
#include <string>
#include <vector>

namespace pyverify {

struct DiagnosticNote {
  uint32_t Offset;
  std::optional<int32_t> Line;
  std::optional<int32_t> Col;
  std::string Message;
};

struct Diagnostic {
  CheckId Check;
  Severity Sev;
  Certainty Cert = Certainty::Definite;
  /// The input the code was read from (a .pyc, marshal file, .pvb), or
  /// what the caller names it.
  std::string File;
  /// co_filename of the code object the finding is in.
  std::string Source;
  /// Source when it names an existing file other than File
  /// (resolveSourceFiles): the file the line numbers are of, which printers
  /// show as the location, File then being the artifact. Empty otherwise.
  std::string SourceFile;
  std::string QualName;
  /// Which code object of a bundle ("original", "frame", "resume:0"); empty
  /// for plain files.
  std::string Target;
  int32_t FirstLineNo = 0;
  uint32_t CodeIndex = 0; ///< Pre-order index of the code object in the file.
  uint32_t Offset = 0;
  std::optional<int32_t> Line;
  std::optional<int32_t> Col;
  std::string Instruction; ///< e.g. "CALL 2" ("" when not about one).
  std::string Message;
  std::vector<DiagnosticNote> Notes;
  /// The checks that did not run on this code object (Finding::NotRun).
  std::vector<CheckId> NotRun;
};

/// Places \p F (about code object \p D, the \p CodeIndex-th in \p File).
Diagnostic makeDiagnostic(const Finding &F, const DecodedCode &D,
                          llvm::StringRef File, uint32_t CodeIndex);

/// Whether a finding of check \p Id is the root cause of the others it
/// comes with in its code object (they follow from it): a jump into a with
/// body (with-body-entered-without-enter), a call without its NULL
/// (call-without-null). Such findings are listed first.
bool isRootCauseCheck(CheckId Id);

/// Orders diagnostics deterministically.
void sortDiagnostics(std::vector<Diagnostic> &Diags);

} // namespace pyverify

#endif
