//===- PySource.h - Compiling .py files with CPython ------------*- C++ -*-===//
//
// Contract: the one place the tool finds and runs an interpreter to compile
// .py files. This is the tool's job, not the library's: the library never
// starts processes.
//
// Which interpreter: --python=PATH if given, else python3.N for the
// version wanted (--python-version, else defaultPythonVersion()), looked
// for as the build looks for 3.12 and 3.13 (CMakeLists.txt): first in
// $PYENV_ROOT/versions/3.N.*/bin (PYENV_ROOT defaults to $HOME/.pyenv; the
// highest patch release; a pyenv shim on PATH is slow to start and fails for
// a version pyenv does not have selected), then on PATH. The interpreter is
// asked its version: with --python-version it must be that version, else its
// version (one with opcode tables) is the bytecode's.
//
// compileSources() compiles a list of files in ONE interpreter process (a
// small driver on -c: NUL-separated names and paths on stdin, one record per
// file on stdout) and returns each file's marshalled module code or the
// compiler's message (a syntax error "path:line:col: error: msg"). An
// interpreter that cannot be found, started or is of the wrong version is
// one error, given to every file of the batch.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TOOLS_PYSOURCE_H
#define PYVERIFY_TOOLS_PYSOURCE_H

#include "pyverify/Bytecode/CodeFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>

namespace pyverify::tool {

/// The interpreter to run: \p Explicit if given, else python3.N for
/// \p Wanted (or the default version) as the contract says. Not yet asked
/// its version.
llvm::Expected<std::string> findPython(llvm::StringRef Explicit,
                                       std::optional<PythonVersion> Wanted);

/// One file to compile: read from \p Path, compiled under \p Name (its
/// co_filename; "<stdin>" for standard input).
struct SourceInput {
  std::string Path;
  std::string Name;
};

/// What one interpreter process made of a list of .py files.
struct SourceBatch {
  std::string Python; ///< The interpreter run.
  PythonVersion Version = defaultPythonVersion();
  std::string CacheTag; ///< sys.implementation.cache_tag: "cpython-3N".
  std::string Failure;  ///< Non-empty: nothing was compiled.
  struct Result {
    std::string Marshal; ///< marshal.dumps(module code), when compiled.
    std::string Message; ///< Else the compiler's message.
  };
  std::map<std::string, Result> ByPath;

  /// The code of \p Path as a CodeFile named \p Name, or the error
  /// naming it.
  llvm::Expected<CodeFile> code(const std::string &Path,
                                const std::string &Name) const;
};

SourceBatch compileSources(llvm::StringRef Explicit,
                           std::optional<PythonVersion> Wanted,
                           llvm::ArrayRef<SourceInput> Files);

} // namespace pyverify::tool

#endif
