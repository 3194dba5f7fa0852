//===- DiagnosticPrinter.h - Text, JSON and SARIF output --------*- C++ -*-===//
//
// Contract: the three renderings of diagnostics, all deterministic:
//
//  * printDiagnostic(): clang style --
//      FILE:LINE:COL: error: MESSAGE [check-id]
//        in QUALNAME (line FIRSTLINENO) at offset N: INSTRUCTION
//      FILE:LINE:COL: note: MESSAGE
//    COL is 1-based here, as compilers print it. When the location table
//    has no line for the instruction (generated code), LINE is the code
//    object's first line (co_firstlineno), COL is left out and the `in`
//    line says "(no line of its own)"; LINE too only when co_firstlineno
//    is not a line (< 1).
//  * diagnosticToJSON(): the `pyverify check --format=json` item
//    (docs/json.md); "col" is CPython's 0-based co_positions column.
//    writeDiagnosticsJSON(): the array of them, written one item at a
//    time (the CLI's report and the Python module's Report).
//  * writeSARIF(): a SARIF 2.1.0 log with one run, a rule per check
//    id (in Checks.def order, each with a helpUri: the check's anchor in
//    docs/checks.md) and one result per diagnostic, notes as
//    relatedLocations. Every result and related location has a region
//    with startLine >= 1 (GitHub code scanning requires one): the
//    instruction's line, else co_firstlineno with the region's
//    properties.line_source = "firstlineno" (startLine 1 and "none" when
//    that is no line either). Inputs that could not be read (or were skipped)
//    are the invocation's toolExecutionNotifications, and make
//    executionSuccessful false when any has level "error". Written to a
//    json::OStream one result at a time (the text of the log as one
//    llvm::json Object, without building it: a log of 200,000 results took
//    8.6 GB as a tree).
//  * sarifArtifactUri(): a file path as a SARIF artifact URI -- file:// for
//    an absolute path, a relative reference otherwise, percent-encoded (RFC
//    3986: every byte but unreserved characters and '/').
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_DIAGNOSTICPRINTER_H
#define PYVERIFY_CHECK_DIAGNOSTICPRINTER_H

#include "pyverify/Check/Diagnostic.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace llvm {
class raw_ostream;
}

namespace pyverify {

/// Something about an input rather than about its code: a file that could
/// not be read (Sev Error) or one that was skipped (Sev Remark).
struct InputNotification {
  std::string File;
  std::string Message;
  Severity Sev = Severity::Error;
};

void printDiagnostic(llvm::raw_ostream &OS, const Diagnostic &D,
                     bool Color = false);
llvm::json::Object diagnosticToJSON(const Diagnostic &D);
void writeDiagnosticsJSON(llvm::json::OStream &J,
                          llvm::ArrayRef<Diagnostic> Diags);
void writeSARIF(llvm::json::OStream &J, llvm::ArrayRef<Diagnostic> Diags,
                llvm::StringRef ToolVersion,
                llvm::ArrayRef<InputNotification> Inputs = {});
std::string sarifArtifactUri(llvm::StringRef Path);

/// Where the check ids are documented: helpUri is this plus '#' and the id.
constexpr llvm::StringLiteral ChecksDocUri =
    "https://github.com/pyverify/pyverify/blob/main/docs/checks.md";

} // namespace pyverify

#endif
