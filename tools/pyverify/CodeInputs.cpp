//===- CodeInputs.cpp - Loading any input kind ----------------------------===//

#include "CodeInputs.h"
#include "Commands.h"
#include "InputFiles.h"
#include "PySource.h"

#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include "llvm/Support/Path.h"

using namespace llvm;

namespace pyverify::tool {

cl::opt<std::string>
    PythonPath("python",
               cl::desc("python3.11 used to compile .py inputs (default: "
                        "python3.11 on PATH)"),
               cl::sub(*cl::AllSubCommands));

Expected<CodeFile> loadInput(const std::string &Path) {
  if (sys::path::extension(Path) == ".py") {
    auto Py = findPython(PythonPath);
    if (!Py)
      return Py.takeError();
    return compilePySource(*Py, Path);
  }
  return loadCodeFile(Path);
}

int forEachInput(
    ArrayRef<std::string> Paths, ArrayRef<StringRef> Extensions,
    function_ref<void(const std::string &, const CodeFile &)> Each) {
  std::vector<std::string> Missing;
  std::vector<std::string> Files = expandInputs(Paths, Extensions, Missing);
  int Status = ExitClean;
  for (const std::string &M : Missing) {
    WithColor::error(errs(), "pyverify")
        << M << ": no such file or directory\n";
    Status = ExitUsage;
  }
  for (const std::string &Path : Files) {
    auto F = loadInput(Path);
    if (!F) {
      WithColor::error(errs(), "pyverify") << toString(F.takeError()) << "\n";
      Status = ExitUsage;
      continue;
    }
    Each(Path, *F);
  }
  return Status;
}

} // namespace pyverify::tool
