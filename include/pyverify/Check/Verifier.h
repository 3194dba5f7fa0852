//===- Verifier.h - Run every enabled check ---------------------*- C++ -*-===//
//
// Contract: verifyCode() runs, on one code object, the Bytecode checks
// (instruction decoding, exception and location tables) and -- when those
// found no error, so offsets and the table can be trusted -- the CFG, the
// dataflow passes and their checks (StackChecks.h, WithHandlerChecks.h),
// taking every pass from one CodeAnalysis. It returns the findings of
// enabled checks only, in a deterministic order. verifyCodeFile() does this
// for every code object of a file (pre-order, co_consts order) and places
// the findings as Diagnostics. Both are pure functions of their inputs and
// safe to call from several threads on different inputs (a CodeAnalysis
// each: see CodeAnalysis.h).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_VERIFIER_H
#define PYVERIFY_CHECK_VERIFIER_H

#include "pyverify/Analysis/CodeAnalysis.h"
#include "pyverify/Bytecode/CodeFile.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Check/CheckOptions.h"
#include "pyverify/Check/Diagnostic.h"

#include <vector>

namespace pyverify {

std::vector<Finding> verifyCode(const DecodedCode &D, const CheckOptions &O);
/// The same on an analysis that may already hold some passes (or go on to
/// serve other checks); \p A must have been made with O.Balance.
std::vector<Finding> verifyCode(const CodeAnalysis &A, const CheckOptions &O);

struct FileReport {
  std::string Path;
  std::vector<Diagnostic> Diags;
  uint32_t CodeObjects = 0;
};

/// \p DisplayPath names the file in diagnostics (e.g. the .py source).
/// The diagnostics' source files are resolved (resolveSourceFiles).
FileReport verifyCodeFile(const CodeFile &F, const CheckOptions &O,
                          llvm::StringRef DisplayPath = "");

/// Sets each diagnostic's SourceFile to its co_filename when that names an
/// existing regular file other than the diagnostic's File (relative names
/// against the current directory): the line numbers are that file's, and
/// printers show it as the location with File as the artifact. The one
/// filesystem query of the checks; each distinct name is asked once.
void resolveSourceFiles(FileReport &R);

} // namespace pyverify

#endif
