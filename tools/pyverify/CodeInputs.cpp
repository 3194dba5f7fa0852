//===- CodeInputs.cpp - Loading any input kind ----------------------------===//

#include "CodeInputs.h"
#include "PySource.h"

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

} // namespace pyverify::tool
