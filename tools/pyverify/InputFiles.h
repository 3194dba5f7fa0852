//===- InputFiles.h - Expanding command-line paths --------------*- C++ -*-===//
//
// Contract: one file selection for every subcommand. expandInputs() turns
// the command line's paths into a sorted, de-duplicated list of files: a
// file named on the command line is taken whatever its name (a .pyc, a .py,
// a .pvb bundle or a raw marshal stream), a directory is walked recursively
// for the files named *.pyc, *.py and *.pvb (InputExtensions). Paths that do
// not exist are returned in Missing; the other regular files found in a
// directory, in Skipped under the directory given. Order never depends on
// the file system. "-" is standard input (CodeInputs.h), taken as a file.
//
// dropCompiledCopies() drops from a directory walk each
// __pycache__/STEM.TAG[.opt-N].pyc whose source DIR/STEM.py is among the
// files too, TAG being the cache tag of the interpreter that compiles the .py
// files ("cpython-311": the same module's bytecode, fresh or stale); a .pyc
// named on the command line, or of another tag, is kept.
//
// reportInputs() says on stderr what was not taken and why: an error per
// missing path, a note per directory with skipped files (how many, a few
// names, how to read them) or with no input file at all, and one note for
// the .pyc files dropped by dropCompiledCopies().
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TOOLS_INPUTFILES_H
#define PYVERIFY_TOOLS_INPUTFILES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace pyverify::tool {

/// What a directory walk takes, for every subcommand.
inline constexpr llvm::StringLiteral InputExtensions[] = {".pyc", ".py",
                                                          ".pvb"};

struct ExpandedInputs {
  std::vector<std::string> Files;   ///< Sorted, no duplicates.
  std::vector<std::string> Missing; ///< In command-line order.
  struct Directory {
    std::string Path;
    size_t Taken = 0;
    std::vector<std::string> Skipped; ///< Sorted.
  };
  std::vector<Directory> Directories;  ///< The directories given, in order.
  std::vector<std::string> Named;      ///< Files named as such; sorted.
  std::vector<std::string> Superseded; ///< dropCompiledCopies(); sorted.
};

/// The path standard input is given as.
inline constexpr llvm::StringLiteral StdinPath = "-";

ExpandedInputs expandInputs(llvm::ArrayRef<std::string> Paths);

void dropCompiledCopies(ExpandedInputs &E, llvm::StringRef CacheTag);

/// Prints the missing paths (errors) and, per directory, what was skipped
/// (notes). Returns true if a path is missing.
bool reportInputs(const ExpandedInputs &E);

} // namespace pyverify::tool

#endif
