//===- CodeInputs.cpp - Loading any input kind ----------------------------===//

#include "CodeInputs.h"
#include "Commands.h"
#include "InputFiles.h"
#include "OtherVersions.h"
#include "PySource.h"

#include "pyverify/Bytecode/Marshal.h"
#include "pyverify/Bytecode/PycMagic.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace llvm;

namespace pyverify::tool {

cl::opt<std::string>
    PythonPath("python",
               cl::desc("The interpreter that compiles .py inputs (default: "
                        "python3.N of --python-version, or of the default "
                        "version, from pyenv or PATH); its version is the "
                        "bytecode's"),
               cl::sub(*cl::AllSubCommands));

cl::opt<std::string> PythonVersionOpt(
    "python-version",
    cl::desc("3.11, 3.12, 3.13 or 3.14: the bytecode of raw marshal inputs and "
             "of bundles that do not name theirs (a .pyc's magic says its "
             "own; default: 3.11; dis: the table --list-opcodes lists)"),
    cl::init(""), cl::sub(DisCmd), cl::sub(CheckCmd), cl::sub(AnalyzeCmd),
    cl::sub(CfgCmd), cl::sub(StatsCmd), cl::sub(ProveCmd));

Expected<InputVersions> versionsFromOptions() {
  if (PythonVersionOpt.empty())
    return InputVersions{/*AnyPyc=*/true, defaultPythonVersion()};
  std::optional<PythonVersion> V = parsePythonVersion(PythonVersionOpt);
  if (!V)
    return createStringError(inconvertibleErrorCode(),
                             "--python-version=%s: pyverify has opcode tables "
                             "for %s",
                             PythonVersionOpt.c_str(),
                             pythonVersionList().c_str());
  return InputVersions{/*AnyPyc=*/true, *V, /*MarshalGiven=*/true};
}

std::string displayName(const std::string &Path) {
  return Path == StdinPath ? "<stdin>" : Path;
}

/// Standard input's bytes, read once; Error is set if it could not be read.
struct StdinData {
  std::string Bytes, Error;
};
static const StdinData &stdinData() {
  static std::once_flag Once;
  static StdinData D;
  std::call_once(Once, [] {
    if (auto B = MemoryBuffer::getSTDIN())
      D.Bytes = (*B)->getBuffer().str();
    else
      D.Error = "<stdin>: cannot read: " + B.getError().message();
    // An empty module is clean, but `broken | pyverify check -` must not
    // be: nothing on stdin is an input error.
    if (D.Error.empty() && D.Bytes.empty())
      D.Error = "<stdin>: empty input (nothing was written to standard "
                "input)";
  });
  return D;
}
static StringRef stdinBytes() { return stdinData().Bytes; }

Expected<std::unique_ptr<MemoryBuffer>> readInput(const std::string &Path) {
  if (Path == StdinPath) {
    if (!stdinData().Error.empty())
      return createStringError(inconvertibleErrorCode(), "%s",
                               stdinData().Error.c_str());
    return MemoryBuffer::getMemBuffer(stdinBytes(), "<stdin>",
                                      /*RequiresNullTerminator=*/false);
  }
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return createStringError(Buf.getError(), "%s: cannot read: %s",
                             Path.c_str(), Buf.getError().message().c_str());
  return std::move(*Buf);
}

InputKind inputKind(const std::string &Path) {
  if (Path != StdinPath) {
    StringRef Ext = sys::path::extension(Path);
    return Ext == ".py"    ? InputKind::Source
           : Ext == ".pvb" ? InputKind::Bundle
                           : InputKind::Code;
  }
  if (!stdinData().Error.empty())
    return InputKind::Code; // readInput() reports the error
  StringRef Bytes = stdinBytes();
  if (!Bytes.contains('\0'))
    return InputKind::Source; // Python source holds no NUL byte
  if (!Bytes.empty() && (Bytes[0] & 0x7f) == '{' &&
      Bytes.contains("pyverify-bundle"))
    return InputKind::Bundle;
  return InputKind::Code;
}

/// Compiles the .py inputs \p Paths in one interpreter process; standard
/// input through a temporary file.
static std::shared_ptr<const SourceBatch>
compileInputs(ArrayRef<std::string> Paths, const InputVersions &Versions) {
  std::vector<SourceInput> Files;
  SmallString<128> Temp;
  for (const std::string &P : Paths) {
    if (P != StdinPath) {
      Files.push_back({P, P});
      continue;
    }
    int FD;
    if (sys::fs::createTemporaryFile("pyverify-stdin", "py", FD, Temp))
      continue; // reported as "was not compiled"
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << stdinBytes();
    OS.close();
    Files.push_back({std::string(Temp), displayName(P)});
  }
  auto B = std::make_shared<SourceBatch>(
      compileSources(PythonPath, Versions.askedVersion(), Files));
  if (!Temp.empty()) {
    sys::fs::remove(Temp);
    for (SourceInput &F : Files) // keyed by the name the user gave
      if (F.Path == Temp.str())
        if (auto It = B->ByPath.find(F.Path); It != B->ByPath.end()) {
          auto R = std::move(It->second);
          B->ByPath.erase(It);
          B->ByPath[std::string(StdinPath)] = std::move(R);
        }
  }
  return B;
}

ExpandedInputs selectInputs(ArrayRef<std::string> Paths,
                            InputVersions &Versions) {
  ExpandedInputs In = expandInputs(Paths);
  std::vector<std::string> Sources;
  for (const std::string &F : In.Files)
    if (inputKind(F) == InputKind::Source)
      Sources.push_back(F);
  if (Sources.empty())
    return In;
  Versions.Sources = compileInputs(Sources, Versions);
  if (Versions.Sources->Failure.empty())
    dropCompiledCopies(In, Versions.Sources->CacheTag);
  return In;
}

/// A marshal stream whose version nobody said and that looks like another
/// version's: one error naming the version and the option to pass.
static Error checkAssumedVersion(const CodeFile &F) {
  std::vector<const CodeObject *> Roots;
  for (const auto &R : F.Roots)
    Roots.push_back(R.get());
  std::optional<OtherVersionEvidence> E = otherVersionEvidence(Roots);
  if (!E)
    return Error::success();
  std::string Pass;
  for (PythonVersion V : E->Versions)
    Pass += (Pass.empty() ? "" : " or ") +
            ("--python-version=" + pythonVersionName(V)).str();
  StringRef Default = pythonVersionName(defaultPythonVersion());
  return createStringError(
      inconvertibleErrorCode(),
      "%s: this looks like %s bytecode, not %s: %s; a marshal stream does "
      "not say its version, and one that looks like another is not read as "
      "%s: pass %s (or --python-version=%s to read it as %s anyway)",
      F.Path.c_str(), E->versionsText().c_str(), Default.data(), E->Why.c_str(),
      Default.data(), Pass.c_str(), Default.data(), Default.data());
}

Expected<CodeFile> loadInput(const std::string &Path,
                             const InputVersions &Versions) {
  if (inputKind(Path) == InputKind::Source) {
    std::shared_ptr<const SourceBatch> B = Versions.Sources;
    if (!B || !B->ByPath.count(Path))
      B = compileInputs({Path}, Versions);
    return B->code(Path, displayName(Path));
  }
  auto Buf = readInput(Path);
  if (!Buf)
    return Buf.takeError();
  std::string Name = displayName(Path);
  StringRef Bytes = (*Buf)->getBuffer();
  // A .pyc of another CPython version: its magic number, then "\r\n".
  if (Bytes.size() >= 4 && Bytes.substr(2, 2) == "\r\n" &&
      !hasPyc311Magic(Bytes) && !(Versions.AnyPyc && pycVersion(Bytes))) {
    std::string Magic = describeMagic(support::endian::read16le(Bytes.data()));
    if (Versions.AnyPyc)
      return createStringError(inconvertibleErrorCode(),
                               "%s: at byte 0: not a .pyc pyverify reads: "
                               "%s; pyverify reads CPython %s (magic %s)",
                               Name.c_str(), Magic.c_str(),
                               pythonVersionList().c_str(),
                               releaseMagicList().c_str());
    return createStringError(inconvertibleErrorCode(),
                             "%s: at byte 0: not a CPython 3.11 .pyc: %s; "
                             "pyverify reads 3.11 (magic 3495)",
                             Name.c_str(), Magic.c_str());
  }
  // The code objects view the buffer, which they keep (no copy).
  std::shared_ptr<const MemoryBuffer> Owner = std::move(*Buf);
  Expected<CodeFile> F =
      parseCodeFile(Name, Bytes, Versions.AnyPyc, Versions.Marshal, Owner);
  if (F && !F->IsPyc && !Versions.MarshalGiven)
    if (Error E = checkAssumedVersion(*F))
      return std::move(E);
  return F;
}

Expected<Bundle> loadBundleInput(const std::string &Path,
                                 const InputVersions &Versions) {
  if (Path != StdinPath)
    return loadBundle(Path, Versions.askedVersion());
  return parseBundle(displayName(Path), stdinBytes(), Versions.askedVersion());
}

std::string otherVersionNote(const std::vector<CodeTarget> &Targets) {
  std::vector<const CodeObject *> Roots;
  for (const CodeTarget &T : Targets)
    if (T.Code->Version == defaultPythonVersion()) // read so by default
      Roots.push_back(T.Code.get());
  return otherVersionNote(Roots);
}

/// "with (handler 106, slot 1), mode (handler 174, slot 0)".
static std::string contextsText(ArrayRef<BundleContext> Cs) {
  std::string S;
  for (const BundleContext &C : Cs)
    S += formatv("{0}{1} (handler {2}, slot {3})", S.empty() ? "" : ", ",
                 C.Kind == ContextKind::With ? "with" : "mode", C.Handler,
                 C.StackIndex)
             .str();
  return S;
}

std::vector<CodeTarget> bundleTargets(const Bundle &B) {
  std::vector<CodeTarget> Out;
  Out.push_back(
      {"original", formatv("break_offset {0}", B.BreakOffset), B.Original});
  if (B.Frame)
    Out.push_back(
        {"frame",
         B.FrameBreakOffset
             ? formatv("frame_break_offset {0}", *B.FrameBreakOffset).str()
             : "",
         B.Frame});
  for (size_t I = 0; I < B.Resumes.size(); ++I) {
    const BundleResume &R = B.Resumes[I];
    Out.push_back({"resume:" + std::to_string(I),
                   formatv("original_offset {0}, contexts [{1}]",
                           R.OriginalOffset, contextsText(R.Contexts)),
                   R.Code});
  }
  return Out;
}

Expected<std::vector<CodeTarget>> loadTargets(const std::string &Path,
                                              InputVersions Versions) {
  if (inputKind(Path) == InputKind::Bundle) {
    Expected<Bundle> B = loadBundleInput(Path, Versions);
    if (!B)
      return B.takeError();
    return bundleTargets(*B);
  }
  Expected<CodeFile> F = loadInput(Path, Versions);
  if (!F)
    return F.takeError();
  std::vector<CodeTarget> Out;
  for (const auto &Root : F->Roots)
    Out.push_back({"", "", Root});
  return Out;
}

std::string targetHeader(const std::string &Path, const CodeTarget &T) {
  std::string S = "Bundle " + Path + ", [" + T.Target + "]";
  if (!T.Claims.empty())
    S += " (" + T.Claims + ")";
  return S + ":";
}

void TargetWalk::visit(
    const std::string &File, const CodeTarget &T,
    llvm::function_ref<void(const CodeObject &, unsigned)> Visit) {
  if (seen(File, T)) // a plain file's root: one walk over the file
    return Walk.visit(*T.Code, Visit);
  forEachCodeObject(*T.Code, Visit);
}

llvm::SmallPtrSetImpl<const CodeObject *> *
TargetWalk::seen(const std::string &File, const CodeTarget &T) {
  if (!T.Target.empty())
    return nullptr;
  if (File != Path) {
    Path = File;
    Walk = CodeObjectWalk();
  }
  return &Walk.seen();
}

void TargetWalk::printJsonRecord(const std::string &File, const CodeTarget &T,
                                 CodeJSONWriter One) {
  llvm::SmallPtrSet<const CodeObject *, 16> Own; // a bundle target's
  llvm::SmallPtrSetImpl<const CodeObject *> *Seen = seen(File, T);
  json::Value FileName = jsonSafe(File);
  json::Value Target =
      T.Target.empty() ? json::Value(nullptr) : json::Value(T.Target);
  auto Code = [&](json::OStream &J) {
    writeCodeTreeJSON(J, *T.Code, One, Seen ? *Seen : Own);
  };
  printJsonLine(outs(), [&](json::OStream &J) {
    JSONMember Members[] = {{"file", nullptr, &FileName},
                            {"target", nullptr, &Target},
                            {"code", Code}};
    writeJSONObject(J, Members);
  });
}

int forEachTarget(
    ArrayRef<std::string> Paths,
    function_ref<void(const std::string &, const CodeTarget &)> Each,
    InputVersions Versions) {
  ExpandedInputs In = selectInputs(Paths, Versions);
  int Status = reportInputs(In) ? ExitUsage : ExitClean;
  for (const std::string &Path : In.Files) {
    auto Ts = loadTargets(Path, Versions);
    if (!Ts) {
      WithColor::error(errs(), "pyverify") << toString(Ts.takeError()) << "\n";
      Status = ExitUsage;
      continue;
    }
    std::string Note = otherVersionNote(*Ts);
    if (!Note.empty())
      WithColor::note(errs(), "pyverify")
          << displayName(Path) << ": " << Note << "\n";
    for (const CodeTarget &T : *Ts)
      Each(Path, T);
  }
  return Status;
}

} // namespace pyverify::tool
