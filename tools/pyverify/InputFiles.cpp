//===- InputFiles.cpp - Expanding command-line paths ----------------------===//

#include "InputFiles.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace pyverify::tool {

/// Names of at most this many skipped files are printed per directory.
static constexpr size_t SkippedNamesShown = 3;

static void walkDirectory(const std::string &Dir, ExpandedInputs &Out) {
  ExpandedInputs::Directory D;
  D.Path = Dir;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (It->type() != sys::fs::file_type::regular_file &&
        It->type() != sys::fs::file_type::symlink_file)
      continue;
    if (sys::fs::is_directory(It->path()))
      continue;
    StringRef Ext = sys::path::extension(It->path());
    if (is_contained(InputExtensions, Ext)) {
      Out.Files.push_back(It->path());
      ++D.Taken;
    } else {
      D.Skipped.push_back(It->path());
    }
  }
  llvm::sort(D.Skipped);
  Out.Directories.push_back(std::move(D));
}

ExpandedInputs expandInputs(ArrayRef<std::string> Paths) {
  ExpandedInputs Out;
  for (const std::string &P : Paths) {
    if (!sys::fs::exists(P))
      Out.Missing.push_back(P);
    else if (!sys::fs::is_directory(P))
      Out.Files.push_back(P);
    else
      walkDirectory(P, Out);
  }
  llvm::sort(Out.Files);
  Out.Files.erase(std::unique(Out.Files.begin(), Out.Files.end()),
                  Out.Files.end());
  return Out;
}

static void reportDirectory(const ExpandedInputs::Directory &D) {
  if (D.Skipped.empty() && D.Taken)
    return;
  raw_ostream &OS = WithColor::note(errs(), "pyverify") << D.Path << ": ";
  if (D.Skipped.empty()) {
    OS << "no .pyc, .py or .pvb file in this directory\n";
    return;
  }
  OS << "skipped " << D.Skipped.size()
     << " file(s) not named *.pyc, *.py or *.pvb (";
  for (size_t I = 0; I < D.Skipped.size() && I < SkippedNamesShown; ++I)
    OS << (I ? ", " : "") << sys::path::filename(D.Skipped[I]);
  if (D.Skipped.size() > SkippedNamesShown)
    OS << ", and " << D.Skipped.size() - SkippedNamesShown << " more";
  OS << "); name a file on the command line to read it as a marshal "
        "stream\n";
}

bool reportInputs(const ExpandedInputs &E) {
  for (const std::string &M : E.Missing)
    WithColor::error(errs(), "pyverify")
        << M << ": no such file or directory\n";
  for (const ExpandedInputs::Directory &D : E.Directories)
    reportDirectory(D);
  return !E.Missing.empty();
}

} // namespace pyverify::tool
