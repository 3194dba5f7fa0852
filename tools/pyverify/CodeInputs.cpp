//===- CodeInputs.cpp - Loading any input kind ----------------------------===//

#include "CodeInputs.h"
#include "Commands.h"
#include "InputFiles.h"
#include "OtherVersions.h"
#include "PySource.h"

#include "pyverify/Bytecode/Marshal.h"
#include "pyverify/Bytecode/PycMagic.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace pyverify::tool {

cl::opt<std::string>
    PythonPath("python",
               cl::desc("python3.11 used to compile .py inputs (default: "
                        "python3.11 on PATH)"),
               cl::sub(*cl::AllSubCommands));

cl::opt<std::string> PythonVersionOpt(
    "python-version",
    cl::desc("3.11, 3.12 or 3.13: the bytecode of raw marshal inputs and "
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

Expected<CodeFile> loadInput(const std::string &Path, InputVersions Versions) {
  if (sys::path::extension(Path) == ".py") {
    auto Py = findPython(PythonPath);
    if (!Py)
      return Py.takeError();
    return compilePySource(*Py, Path);
  }
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return createStringError(Buf.getError(), "%s: cannot read: %s",
                             Path.c_str(), Buf.getError().message().c_str());
  StringRef Bytes = (*Buf)->getBuffer();
  // A .pyc of another CPython version: its magic number, then "\r\n".
  if (Bytes.size() >= 4 && Bytes.substr(2, 2) == "\r\n" &&
      !hasPyc311Magic(Bytes) && !(Versions.AnyPyc && pycVersion(Bytes)))
    return createStringError(
        inconvertibleErrorCode(),
        Versions.AnyPyc
            ? "%s: at byte 0: not a CPython 3.11, 3.12 or 3.13 .pyc: %s; "
              "pyverify reads those (magic 3495, 3531, 3571)"
            : "%s: at byte 0: not a CPython 3.11 .pyc: %s; pyverify reads "
              "3.11 (magic 3495)",
        Path.c_str(),
        describeMagic(support::endian::read16le(Bytes.data())).c_str());
  return parseCodeFile(Path, Bytes, Versions.AnyPyc, Versions.Marshal);
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
  if (sys::path::extension(Path) == ".pvb") {
    Expected<Bundle> B = loadBundle(Path, Versions.askedVersion());
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

int forEachTarget(
    ArrayRef<std::string> Paths,
    function_ref<void(const std::string &, const CodeTarget &)> Each,
    InputVersions Versions) {
  ExpandedInputs In = expandInputs(Paths);
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
      WithColor::note(errs(), "pyverify") << Path << ": " << Note << "\n";
    for (const CodeTarget &T : *Ts)
      Each(Path, T);
  }
  return Status;
}

} // namespace pyverify::tool
