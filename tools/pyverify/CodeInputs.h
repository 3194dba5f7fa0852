//===- CodeInputs.h - Loading any input kind --------------------*- C++ -*-===//
//
// Contract: loadInput() loads one command-line file as a CodeFile: a .py file
// is compiled by an interpreter of the version asked (PySource.h), anything
// else is read as a .pyc or marshal stream; a .pyc of another Python version
// is an error naming the version its magic number belongs to (PycMagic.h). A
// marshal stream says no version: read as --python-version, or by default as
// defaultPythonVersion() -- unless it looks like another version's bytecode
// (OtherVersions.h), which is then one input error naming that version and
// the option to pass, never a check with the wrong version's tables.
//
// "-" is standard input, read once, named "<stdin>" in messages; what it
// holds is decided by its bytes: with a NUL byte it is binary -- a .pyc (a
// magic number and "\r\n"), a bundle (a marshal dict holding
// "pyverify-bundle") or else a marshal stream; without, Python source
// (which cannot hold a NUL byte).
//
// selectInputs() expands the command line (InputFiles.h), compiles every .py
// file among the inputs in one interpreter process and drops the __pycache__
// .pyc files of those sources (dropCompiledCopies()). loadTargets() loads one
// file as the code-object trees a command shows: a .pvb bundle gives every code
// object it holds, each labelled with its target (original, frame, resume:N, in
// that order), any other file the roots loadInput() finds, unlabelled. Errors
// name the file.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TOOLS_CODEINPUTS_H
#define PYVERIFY_TOOLS_CODEINPUTS_H

#include "InputFiles.h"

#include "pyverify/Bytecode/Bundle.h"
#include "pyverify/Bytecode/CodeFile.h"
#include "pyverify/Bytecode/Listing.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pyverify::tool {

struct SourceBatch;

/// --python, shared by every subcommand that reads .py files.
extern llvm::cl::opt<std::string> PythonPath;

/// Which bytecode versions a command reads. By default 3.11 only: a .pyc of
/// another version is an error naming it. `dis` reads every version with
/// opcode tables (AnyPyc), and a raw marshal stream as Marshal's.
struct InputVersions {
  bool AnyPyc = false;
  PythonVersion Marshal = defaultPythonVersion();
  bool MarshalGiven = false; ///< --python-version was given.
  /// The .py inputs compiled by selectInputs(); others are compiled one by
  /// one.
  std::shared_ptr<const SourceBatch> Sources;
  /// What a bundle that names no version is read as, if the user said.
  std::optional<PythonVersion> askedVersion() const {
    return MarshalGiven ? std::optional<PythonVersion>(Marshal) : std::nullopt;
  }
};

/// --python-version (dis, check, analyze, cfg, stats, prove): the bytecode of
/// raw marshal inputs; those commands read a .pyc of any version with tables.
extern llvm::cl::opt<std::string> PythonVersionOpt;

/// What --python-version selects (every .pyc version, raw marshal as given),
/// or an error naming the option.
llvm::Expected<InputVersions> versionsFromOptions();

/// What an input file holds: by its name, or for stdin by its bytes.
enum class InputKind { Source, Code, Bundle };
InputKind inputKind(const std::string &Path);

/// "<stdin>" for "-", else \p Path.
std::string displayName(const std::string &Path);

/// The bytes of \p Path (stdin: read once, the same bytes every call).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInput(const std::string &Path);

/// expandInputs(), the .py files compiled together (into
/// \p Versions.Sources) and dropCompiledCopies() with their cache tag.
ExpandedInputs selectInputs(llvm::ArrayRef<std::string> Paths,
                            InputVersions &Versions);

llvm::Expected<CodeFile> loadInput(const std::string &Path,
                                   const InputVersions &Versions = {});

/// A bundle input (InputKind::Bundle), read as the bundle or the user says.
llvm::Expected<Bundle> loadBundleInput(const std::string &Path,
                                       const InputVersions &Versions);

/// One code-object tree of an input file.
struct CodeTarget {
  /// "original", "frame" or "resume:N" for a bundle (the label of
  /// diagnostics, docs/bundle-format.md); empty for any other file.
  std::string Target;
  /// What the bundle claims about this target, for a text header
  /// ("break_offset 18", "original_offset 18, contexts [...]"); may be empty.
  std::string Claims;
  std::shared_ptr<const CodeObject> Code;
};

llvm::Expected<std::vector<CodeTarget>>
loadTargets(const std::string &Path, InputVersions Versions = {});

/// The targets of a loaded bundle, in the order loadTargets() gives them.
std::vector<CodeTarget> bundleTargets(const Bundle &B);

/// OtherVersions.h's note on the code objects of \p Targets ("" if none).
std::string otherVersionNote(const std::vector<CodeTarget> &Targets);

/// The text header printed before a bundle target's listing:
/// "Bundle FILE, [resume:0] (original_offset 18, contexts [...]):".
std::string targetHeader(const std::string &Path, const CodeTarget &T);

/// Expands \p Paths (InputFiles.h: one file selection for every command),
/// loads each file with loadTargets(), reports missing, skipped and
/// unreadable inputs and code of another Python version on stderr and calls \p
/// Each for every target of every file that loaded, in order. Returns 2 (usage)
/// if any input could not be read, else 0.
int forEachTarget(
    llvm::ArrayRef<std::string> Paths,
    llvm::function_ref<void(const std::string &, const CodeTarget &)> Each,
    InputVersions Versions = {});

/// The code objects of each target, in pre-order: over a plain file's
/// roots (a marshal stream's list), each distinct code object once per file
/// (CodeObjectWalk: roots that share a chain are not walked again, which
/// would be quadratic in the input); each bundle target on its own, as
/// check reports them.
class TargetWalk {
public:
  void visit(const std::string &Path, const CodeTarget &T,
             llvm::function_ref<void(const CodeObject &, unsigned)> Visit);
  /// The code objects of \p Path visited or written out so far, shared by
  /// its plain roots (JSON trees: writeCodeTreeJSON); null for a bundle
  /// target.
  llvm::SmallPtrSetImpl<const CodeObject *> *seen(const std::string &Path,
                                                  const CodeTarget &T);
  /// Prints target \p T of \p Path as one JSON line (dis and analyze
  /// --format=json, docs/json.md): {"code": its tree, each code object
  /// written by \p One (Listing.h), "file", "target"}.
  void printJsonRecord(const std::string &Path, const CodeTarget &T,
                       CodeJSONWriter One);

private:
  std::string Path;
  CodeObjectWalk Walk;
};

} // namespace pyverify::tool

#endif
