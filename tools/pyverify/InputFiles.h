//===- InputFiles.h - Expanding command-line paths --------------*- C++ -*-===//
//
// Contract: expandInputs() turns the command line's paths into a sorted,
// de-duplicated list of files: a file is taken as given, a directory is
// walked recursively for files with one of \p Extensions. Paths that do not
// exist are returned in \p Missing. Order never depends on the file system.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TOOLS_INPUTFILES_H
#define PYVERIFY_TOOLS_INPUTFILES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace pyverify::tool {

std::vector<std::string>
expandInputs(llvm::ArrayRef<std::string> Paths,
             llvm::ArrayRef<llvm::StringRef> Extensions,
             std::vector<std::string> &Missing);

} // namespace pyverify::tool

#endif
