//===- CodeFile.h - Loading code objects from files -------------*- C++ -*-===//
//
// Contract: loadCodeFile() reads a .pyc file (recognised by the 3.11 magic,
// whatever its name) or a raw marshal stream holding a code object or a
// tuple/list/set/dict of code objects. Errors name the file and the byte
// offset. The returned roots own their code objects.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_CODEFILE_H
#define PYVERIFY_BYTECODE_CODEFILE_H

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/Marshal.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace pyverify {

struct CodeFile {
  std::string Path;
  bool IsPyc = false;
  PycHeader Header; ///< Valid when IsPyc.
  std::vector<std::shared_ptr<const CodeObject>> Roots;
};

/// Parses \p Bytes as a .pyc (3.11 magic; with \p AnyVersion, the magic
/// of any version with opcode tables) or a marshal stream, whose code is
/// \p MarshalVersion's bytecode.
/// \p Owner: of \p Bytes, or null (readMarshal's InputOwner).
llvm::Expected<CodeFile>
parseCodeFile(llvm::StringRef Path, llvm::StringRef Bytes,
              bool AnyVersion = false,
              PythonVersion MarshalVersion = defaultPythonVersion(),
              InputOwner Owner = nullptr);

/// Reads \p Path from disk and parses it; the code objects view the file's
/// buffer, which they keep.
llvm::Expected<CodeFile> loadCodeFile(llvm::StringRef Path);

} // namespace pyverify

#endif
