//===- check_code.cpp - pyverify as a library: check one file -------------===//
//
// Usage: check_code FILE [CHECK-SPEC]
//
// Loads FILE -- a CPython 3.11 .pyc, or a marshal stream holding a code
// object or a tuple/list/set/dict of them -- runs every enabled check on each
// code object in it, prints the findings as `pyverify check` does and a
// summary line. CHECK-SPEC changes which checks run ("-*,stack-*", see
// CheckOptions.h).
//
// Exit status, as `pyverify check`: 0 no error-severity finding, 1 at least
// one, 2 bad usage, a CHECK-SPEC naming no check, or a FILE that cannot be
// read.
//
// This is the example of docs/cpp-api.md; the ctest `cpp-install-example`
// builds it against an installed pyverify and runs it.
//
//===----------------------------------------------------------------------===//

#include "pyverify/Bytecode/CodeFile.h"
#include "pyverify/Check/CheckOptions.h"
#include "pyverify/Check/DiagnosticPrinter.h"
#include "pyverify/Check/Verifier.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <utility>

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    llvm::errs() << "usage: check_code FILE [CHECK-SPEC]\n";
    return 2;
  }

  // The checks Checks.def enables by default, changed by the spec if any.
  pyverify::CheckOptions Options;
  if (argc == 3)
    if (llvm::Error E = Options.parseCheckSpec(argv[2])) {
      llvm::errs() << "check_code: " << llvm::toString(std::move(E)) << "\n";
      return 2;
    }

  // Input that cannot be read is an llvm::Error naming the file and the
  // byte offset; it must be consumed (toString or consumeError).
  llvm::Expected<pyverify::CodeFile> File = pyverify::loadCodeFile(argv[1]);
  if (!File) {
    llvm::errs() << "check_code: " << llvm::toString(File.takeError()) << "\n";
    return 2;
  }

  // Facts about input that could be read are Diagnostics, in a
  // deterministic order: code objects in pre-order, then offset, then id.
  pyverify::FileReport Report = pyverify::verifyCodeFile(*File, Options);
  unsigned Errors = 0, Others = 0;
  for (const pyverify::Diagnostic &D : Report.Diags) {
    pyverify::printDiagnostic(llvm::outs(), D);
    if (D.Sev == pyverify::Severity::Error)
      ++Errors;
    else
      ++Others;
  }
  llvm::outs() << Report.Path << ": " << Report.CodeObjects
               << " code object(s), " << Errors << " error(s), " << Others
               << " other finding(s)\n";
  return Errors ? 1 : 0;
}
