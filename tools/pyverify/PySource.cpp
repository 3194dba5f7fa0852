//===- PySource.cpp - Compiling .py files with CPython --------------------===//

#include "PySource.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace pyverify::tool {

namespace {

// The driver: its version line ("3 12 cpython-312"), then per file of the
// NUL-separated (name, path) pairs on stdin a record "C <n>\n" + marshal
// bytes or "E <n>\n" + UTF-8 message. It does not judge its version; the
// tool does.
const char *DriverScript =
    "import sys, os, marshal\n"
    "out = sys.stdout.buffer\n"
    "v = sys.version_info\n"
    "tag = sys.implementation.cache_tag or ''\n"
    "out.write(b'%d %d %s\\n' % (v[0], v[1], tag.encode()))\n"
    "data = sys.stdin.buffer.read().split(b'\\0')\n"
    "for i in range(0, len(data) - 1, 2):\n"
    "    name = os.fsdecode(data[i])\n"
    "    try:\n"
    "        with open(data[i + 1], 'rb') as f: src = f.read()\n"
    "        co = compile(src, name, 'exec', dont_inherit=True)\n"
    "        kind, body = b'C', marshal.dumps(co)\n"
    "    except SyntaxError as e:\n"
    "        kind, body = b'E', ('%s:%s:%s: error: %s' % (name, e.lineno, "
    "e.offset, e.msg)).encode('utf-8', 'replace')\n"
    "    except Exception as e:\n"
    "        kind, body = b'E', ('%s: %s: %s' % (name, type(e).__name__, "
    "e)).encode('utf-8', 'replace')\n"
    "    out.write(b'%s %d\\n' % (kind, len(body)))\n"
    "    out.write(body)\n";

/// $PYENV_ROOT/versions/3.N.P/bin/python3.N with the highest P, or "".
std::string pyenvPython(PythonVersion V) {
  SmallString<128> Root;
  if (Optional<std::string> R = sys::Process::GetEnv("PYENV_ROOT"))
    Root = *R;
  else if (Optional<std::string> H = sys::Process::GetEnv("HOME"))
    sys::path::append(Root, *H, ".pyenv");
  else
    return "";
  sys::path::append(Root, "versions");
  std::string Prefix = (pythonVersionName(V) + ".").str();
  std::string Best;
  unsigned BestPatch = 0;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Root, EC), End; It != End && !EC;
       It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    unsigned Patch;
    // Only 3.N.P itself: not 3.N.Pt (free-threaded), -dev or a virtualenv.
    if (!Name.consume_front(Prefix) || Name.getAsInteger(10, Patch))
      continue;
    SmallString<128> Bin(It->path());
    sys::path::append(Bin, "bin", "python" + pythonVersionName(V));
    if (sys::fs::can_execute(Bin) && (Best.empty() || Patch > BestPatch)) {
      Best = std::string(Bin);
      BestPatch = Patch;
    }
  }
  return Best;
}

struct Temp {
  SmallString<128> Path;
  ~Temp() {
    if (!Path.empty())
      sys::fs::remove(Path);
  }
};

Error makeTemp(Temp &T, StringRef Suffix) {
  if (std::error_code EC =
          sys::fs::createTemporaryFile("pyverify", Suffix, T.Path))
    return createStringError(EC, "cannot create a temporary file: %s",
                             EC.message().c_str());
  return Error::success();
}

/// Runs the driver; returns its stdout, or the error with its stderr.
Expected<std::string> runDriver(StringRef Python, ArrayRef<SourceInput> Files) {
  Temp In, Out, Err;
  for (Temp *T : {&In, &Out, &Err})
    if (Error E = makeTemp(*T, "txt"))
      return std::move(E);
  {
    std::error_code EC;
    raw_fd_ostream OS(In.Path, EC);
    if (EC)
      return createStringError(EC, "cannot write %s", In.Path.c_str());
    for (const SourceInput &F : Files)
      OS << F.Name << '\0' << F.Path << '\0';
  }
  StringRef Args[] = {Python, "-I", "-c", DriverScript};
  Optional<StringRef> Redirects[] = {StringRef(In.Path), StringRef(Out.Path),
                                     StringRef(Err.Path)};
  std::string ExecError;
  int RC = sys::ExecuteAndWait(Python, Args, None, Redirects,
                               /*SecondsToWait=*/0, 0, &ExecError);
  auto Output = MemoryBuffer::getFile(Out.Path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (RC != 0 || !Output) {
    std::string Msg = ExecError;
    if (auto B = MemoryBuffer::getFile(Err.Path))
      Msg += (Msg.empty() ? "" : ": ") + (*B)->getBuffer().trim().str();
    return createStringError(inconvertibleErrorCode(), "%s failed: %s",
                             Python.str().c_str(), Msg.c_str());
  }
  return (*Output)->getBuffer().str();
}

/// The driver's version line: "3 12 cpython-312".
Error readVersion(StringRef &Rest, SourceBatch &B,
                  std::optional<PythonVersion> Wanted) {
  auto [Line, Tail] = Rest.split('\n');
  Rest = Tail;
  SmallVector<StringRef, 3> Parts;
  Line.split(Parts, ' ');
  unsigned Major, Minor;
  if (Parts.size() != 3 || Parts[0].getAsInteger(10, Major) ||
      Parts[1].getAsInteger(10, Minor))
    return createStringError(inconvertibleErrorCode(),
                             "%s: unexpected output from the compile driver",
                             B.Python.c_str());
  B.CacheTag = Parts[2].str();
  std::string Name = formatv("{0}.{1}", Major, Minor);
  std::optional<PythonVersion> V = pythonVersionOf(Major, Minor);
  if (Wanted && V != Wanted)
    return createStringError(
        inconvertibleErrorCode(),
        "%s is Python %s, not %s as --python-version says; pass "
        "--python= a %s interpreter",
        B.Python.c_str(), Name.c_str(), pythonVersionName(*Wanted).data(),
        pythonVersionName(*Wanted).data());
  if (!V)
    return createStringError(inconvertibleErrorCode(),
                             "%s is Python %s; pyverify reads the bytecode "
                             "of %s",
                             B.Python.c_str(), Name.c_str(),
                             pythonVersionList().c_str());
  B.Version = *V;
  return Error::success();
}

/// The records after the version line, one per file in order.
Error readRecords(StringRef Rest, SourceBatch &B, ArrayRef<SourceInput> Files) {
  for (const SourceInput &F : Files) {
    auto [Head, Tail] = Rest.split('\n');
    size_t N;
    if (Head.size() < 3 || Head[1] != ' ' ||
        Head.drop_front(2).getAsInteger(10, N) || Tail.size() < N)
      return createStringError(inconvertibleErrorCode(),
                               "%s: truncated output from the compile driver",
                               B.Python.c_str());
    SourceBatch::Result &R = B.ByPath[F.Path];
    (Head[0] == 'C' ? R.Marshal : R.Message) = Tail.take_front(N).str();
    Rest = Tail.drop_front(N);
  }
  return Error::success();
}

} // namespace

Expected<std::string> findPython(StringRef Explicit,
                                 std::optional<PythonVersion> Wanted) {
  if (!Explicit.empty())
    return Explicit.str();
  PythonVersion V = Wanted.value_or(defaultPythonVersion());
  std::string Name = ("python" + pythonVersionName(V)).str();
  std::string Pyenv = pyenvPython(V);
  if (!Pyenv.empty())
    return Pyenv;
  auto P = sys::findProgramByName(Name);
  if (!P)
    return createStringError(
        P.getError(),
        "cannot find %s (in $PYENV_ROOT/versions/%s.*/bin or on PATH) to "
        "compile .py files as %s bytecode; pass --python= a %s interpreter",
        Name.c_str(), pythonVersionName(V).data(), pythonVersionName(V).data(),
        pythonVersionName(V).data());
  return *P;
}

SourceBatch compileSources(StringRef Explicit,
                           std::optional<PythonVersion> Wanted,
                           ArrayRef<SourceInput> Files) {
  SourceBatch B;
  Expected<std::string> Py = findPython(Explicit, Wanted);
  if (!Py) {
    B.Failure = toString(Py.takeError());
    return B;
  }
  B.Python = *Py;
  Expected<std::string> Out = runDriver(B.Python, Files);
  if (!Out) {
    B.Failure = "cannot compile with " + toString(Out.takeError());
    return B;
  }
  StringRef Rest = *Out;
  Error E = readVersion(Rest, B, Wanted);
  if (!E)
    E = readRecords(Rest, B, Files);
  if (E) {
    B.Failure = toString(std::move(E));
    B.ByPath.clear();
  }
  return B;
}

Expected<CodeFile> SourceBatch::code(const std::string &Path,
                                     const std::string &Name) const {
  auto It = ByPath.find(Path);
  if (!Failure.empty() || It == ByPath.end())
    return createStringError(inconvertibleErrorCode(), "%s: %s", Name.c_str(),
                             Failure.empty() ? "was not compiled"
                                             : Failure.c_str());
  if (!It->second.Message.empty())
    return createStringError(inconvertibleErrorCode(),
                             "%s: cannot compile with %s: %s", Name.c_str(),
                             Python.c_str(), It->second.Message.c_str());
  return parseCodeFile(Name, It->second.Marshal, /*AnyVersion=*/false, Version);
}

} // namespace pyverify::tool
