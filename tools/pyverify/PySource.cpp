//===- PySource.cpp - Compiling .py files with python3.11 -----------------===//

#include "PySource.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

using namespace pyverify;
using namespace pyverify::tool;

// Compiles argv[1] and writes marshal.dumps(code) to stdout. Refuses to run
// under anything but 3.11 so the bytecode is what pyverify models.
static const char *CompileScript =
    "import sys, marshal\n"
    "if sys.version_info[:2] != (3, 11):\n"
    "    sys.exit('pyverify: %s is Python %d.%d, not 3.11' % "
    "(sys.executable, *sys.version_info[:2]))\n"
    "p = sys.argv[1]\n"
    "with open(p, 'rb') as f: src = f.read()\n"
    "try:\n"
    "    co = compile(src, p, 'exec', dont_inherit=True)\n"
    "except SyntaxError as e:\n"
    "    sys.exit('%s:%s:%s: error: %s' % (p, e.lineno, e.offset, e.msg))\n"
    "sys.stdout.buffer.write(marshal.dumps(co))\n";

llvm::Expected<std::string>
pyverify::tool::findPython(llvm::StringRef Explicit) {
  if (!Explicit.empty())
    return Explicit.str();
  auto P = llvm::sys::findProgramByName("python3.11");
  if (!P)
    return llvm::createStringError(P.getError(),
                                   "cannot find python3.11 on PATH to compile "
                                   ".py files; pass --python=");
  return *P;
}

llvm::Expected<CodeFile> pyverify::tool::compilePySource(llvm::StringRef Python,
                                                         llvm::StringRef Path) {
  llvm::SmallString<128> Out, Err;
  if (auto EC = llvm::sys::fs::createTemporaryFile("pyverify", "marshal", Out))
    return llvm::createStringError(EC, "cannot create a temporary file");
  if (auto EC = llvm::sys::fs::createTemporaryFile("pyverify", "err", Err))
    return llvm::createStringError(EC, "cannot create a temporary file");
  llvm::StringRef Args[] = {Python, "-I", "-c", CompileScript, Path};
  llvm::Optional<llvm::StringRef> Redirects[] = {
      llvm::StringRef(""), llvm::StringRef(Out), llvm::StringRef(Err)};
  std::string ExecError;
  int RC = llvm::sys::ExecuteAndWait(Python, Args, llvm::None, Redirects,
                                     /*SecondsToWait=*/300, 0, &ExecError);
  auto Cleanup = [&] {
    llvm::sys::fs::remove(Out);
    llvm::sys::fs::remove(Err);
  };
  if (RC != 0) {
    std::string Msg = ExecError;
    if (auto B = llvm::MemoryBuffer::getFile(Err))
      Msg += (*B)->getBuffer().trim().str();
    Cleanup();
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(), "%s: cannot compile with %s: %s",
        Path.str().c_str(), Python.str().c_str(), Msg.c_str());
  }
  auto B = llvm::MemoryBuffer::getFile(Out, false, false);
  if (!B) {
    Cleanup();
    return llvm::createStringError(B.getError(), "cannot read compiler output");
  }
  auto F = parseCodeFile(Path, (*B)->getBuffer());
  Cleanup();
  return F;
}
