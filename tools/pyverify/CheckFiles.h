//===- CheckFiles.h - Running the checks over input files -------*- C++ -*-===//
//
// Contract: checkFile() runs what `pyverify check` runs on one input file --
// verifyBundle() for a .pvb, verifyCodeFile() for anything loadInput()
// reads -- and keeps the code objects it checked, so that `check` and
// `stats` judge every file the same way. checkFiles() does it for a list of
// files on up to \p Jobs threads (0: all cores) and returns the outcomes in
// the order of \p Files, whatever the number of threads.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TOOLS_CHECKFILES_H
#define PYVERIFY_TOOLS_CHECKFILES_H

#include "CodeInputs.h"

#include "pyverify/Check/CheckOptions.h"
#include "pyverify/Check/Verifier.h"

#include <string>
#include <vector>

namespace pyverify::tool {

struct FileOutcome {
  FileReport Report;
  std::string InputError;          ///< Non-empty when the file was unread.
  std::vector<CodeTarget> Targets; ///< The code objects checked.
  /// OtherVersions.h: the code looks like another Python's ("" if not).
  std::string VersionNote;
};

/// Applies every --checks= value in order, as one spec joined by commas.
llvm::Error parseCheckSpecs(CheckOptions &Opts,
                            llvm::ArrayRef<std::string> Specs);

/// \p Versions: which .pyc versions are read, the .py files compiled
/// (CodeInputs.h). "-" is standard input.
FileOutcome checkFile(const std::string &Path, const CheckOptions &Opts,
                      InputVersions Versions = {});

std::vector<FileOutcome> checkFiles(const std::vector<std::string> &Files,
                                    const CheckOptions &Opts, unsigned Jobs,
                                    InputVersions Versions = {});

} // namespace pyverify::tool

#endif
