//===- DiagnosticPrinter.h - Text, JSON and SARIF output --------*- C++ -*-===//
//
// Contract: the three renderings of diagnostics, all deterministic:
//
//  * printDiagnostic(): clang style --
//      FILE:LINE:COL: error: MESSAGE [check-id]
//        in QUALNAME (line FIRSTLINENO) at offset N: INSTRUCTION
//      FILE:LINE:COL: note: MESSAGE
//    COL is 1-based here, as compilers print it; LINE:COL is left out when
//    the location table has no position for the instruction.
//  * diagnosticToJSON(): the `pyverify check --format=json` item
//    (docs/json.md); "col" is CPython's 0-based co_positions column.
//  * diagnosticsToSARIF(): a SARIF 2.1.0 log with one run, a rule per check
//    id (in Checks.def order) and one result per diagnostic, notes as
//    relatedLocations.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_DIAGNOSTICPRINTER_H
#define PYVERIFY_CHECK_DIAGNOSTICPRINTER_H

#include "pyverify/Check/Diagnostic.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"

namespace llvm {
class raw_ostream;
}

namespace pyverify {

void printDiagnostic(llvm::raw_ostream &OS, const Diagnostic &D,
                     bool Color = false);
llvm::json::Object diagnosticToJSON(const Diagnostic &D);
llvm::json::Value diagnosticsToSARIF(llvm::ArrayRef<Diagnostic> Diags,
                                     llvm::StringRef ToolVersion);

} // namespace pyverify

#endif
