//===- CodeInputs.h - Loading any input kind --------------------*- C++ -*-===//
//
// Contract: loadInput() loads one command-line file as a CodeFile: a .py file
// is compiled with python3.11 (PySource.h), anything else is read as a .pyc
// or marshal stream. Errors name the file.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TOOLS_CODEINPUTS_H
#define PYVERIFY_TOOLS_CODEINPUTS_H

#include "pyverify/Bytecode/CodeFile.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/CommandLine.h"

namespace pyverify::tool {

/// --python, shared by every subcommand that reads .py files.
extern llvm::cl::opt<std::string> PythonPath;

llvm::Expected<CodeFile> loadInput(const std::string &Path);

/// Expands \p Paths (directories are walked for \p Extensions), loads each
/// file with loadInput(), reports missing or unreadable inputs on stderr and
/// calls \p Each for every file that loaded. Returns 2 (usage) if any input
/// could not be read, else 0.
int forEachInput(
    llvm::ArrayRef<std::string> Paths,
    llvm::ArrayRef<llvm::StringRef> Extensions,
    llvm::function_ref<void(const std::string &, const CodeFile &)> Each);

} // namespace pyverify::tool

#endif
