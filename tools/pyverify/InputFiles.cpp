//===- InputFiles.cpp - Expanding command-line paths ----------------------===//

#include "InputFiles.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
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
    if (P != StdinPath && !sys::fs::exists(P)) {
      Out.Missing.push_back(P);
    } else if (P == StdinPath || !sys::fs::is_directory(P)) {
      Out.Files.push_back(P);
      Out.Named.push_back(P);
    } else {
      walkDirectory(P, Out);
    }
  }
  for (std::vector<std::string> *V : {&Out.Files, &Out.Named}) {
    llvm::sort(*V);
    V->erase(std::unique(V->begin(), V->end()), V->end());
  }
  return Out;
}

/// DIR/STEM.py for DIR/__pycache__/STEM.TAG[.opt-N].pyc, else "".
static std::string sourceOfCachedPyc(StringRef Pyc, StringRef CacheTag) {
  if (sys::path::filename(sys::path::parent_path(Pyc)) != "__pycache__")
    return "";
  StringRef Name = sys::path::filename(Pyc);
  if (!Name.consume_back(".pyc"))
    return "";
  if (size_t Opt = Name.rfind(".opt-"); Opt != StringRef::npos)
    Name = Name.take_front(Opt);
  if (!Name.consume_back(("." + CacheTag).str()) || Name.empty())
    return "";
  SmallString<128> Source = sys::path::parent_path(sys::path::parent_path(Pyc));
  sys::path::append(Source, Name + ".py");
  return std::string(Source);
}

void dropCompiledCopies(ExpandedInputs &E, StringRef CacheTag) {
  if (CacheTag.empty())
    return;
  auto Has = [](const std::vector<std::string> &V, const std::string &S) {
    return std::binary_search(V.begin(), V.end(), S);
  };
  std::vector<std::string> Kept;
  for (const std::string &F : E.Files) {
    std::string Source = sourceOfCachedPyc(F, CacheTag);
    if (!Source.empty() && !Has(E.Named, F) && Has(E.Files, Source))
      E.Superseded.push_back(F);
    else
      Kept.push_back(F);
  }
  E.Files = std::move(Kept);
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

static void reportSuperseded(ArrayRef<std::string> Pycs) {
  if (Pycs.empty())
    return;
  raw_ostream &OS = WithColor::note(errs(), "pyverify")
                    << "skipped " << Pycs.size()
                    << " __pycache__ .pyc file(s) compiled from a .py file "
                       "that is checked (";
  for (size_t I = 0; I < Pycs.size() && I < SkippedNamesShown; ++I)
    OS << (I ? ", " : "") << Pycs[I];
  if (Pycs.size() > SkippedNamesShown)
    OS << ", and " << Pycs.size() - SkippedNamesShown << " more";
  OS << "); name a .pyc on the command line to check it too\n";
}

bool reportInputs(const ExpandedInputs &E) {
  for (const std::string &M : E.Missing)
    WithColor::error(errs(), "pyverify")
        << M << ": no such file or directory\n";
  for (const ExpandedInputs::Directory &D : E.Directories)
    reportDirectory(D);
  reportSuperseded(E.Superseded);
  return !E.Missing.empty();
}

} // namespace pyverify::tool
