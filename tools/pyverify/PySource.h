//===- PySource.h - Compiling .py files with python3.11 ---------*- C++ -*-===//
//
// Contract: compilePySource() runs the given Python 3.11 interpreter on a
// .py file and returns the marshalled module code object it printed, parsed
// as a CodeFile. The interpreter must report version 3.11; a syntax error or
// any other failure is an llvm::Error carrying Python's message. This is the
// tool's job, not the library's: the library never starts processes.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TOOLS_PYSOURCE_H
#define PYVERIFY_TOOLS_PYSOURCE_H

#include "pyverify/Bytecode/CodeFile.h"

#include "llvm/Support/Error.h"

namespace pyverify::tool {

/// Finds the interpreter: \p Explicit if given, else "python3.11" on PATH.
llvm::Expected<std::string> findPython(llvm::StringRef Explicit);

llvm::Expected<CodeFile> compilePySource(llvm::StringRef Python,
                                         llvm::StringRef Path);

} // namespace pyverify::tool

#endif
