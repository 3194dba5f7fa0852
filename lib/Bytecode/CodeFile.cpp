//===- CodeFile.cpp - Loading code objects from files ---------------------===//

#include "pyverify/Bytecode/CodeFile.h"
#include "pyverify/Support/InputError.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace pyverify;

llvm::Expected<CodeFile> pyverify::parseCodeFile(llvm::StringRef Path,
                                                 llvm::StringRef Bytes,
                                                 bool AnyVersion,
                                                 PythonVersion MarshalVersion,
                                                 InputOwner Owner) {
  CodeFile F;
  F.Path = Path.str();
  if (hasPyc311Magic(Bytes) || (AnyVersion && pycVersion(Bytes))) {
    auto Pyc = readPyc(Bytes, AnyVersion, std::move(Owner));
    if (!Pyc)
      return addInputContext(Pyc.takeError(), Path);
    F.IsPyc = true;
    F.Header = Pyc->Header;
    F.Roots.push_back(Pyc->Code);
    return F;
  }
  // A .pyc of another CPython version: magic number, then "\r\n".
  if (Bytes.size() >= 4 && Bytes[2] == '\r' && Bytes[3] == '\n')
    return addInputContext(
        makeInputError(
            0, "not a CPython 3.11 .pyc: magic " +
                   llvm::Twine(uint8_t(Bytes[0]) | (uint8_t(Bytes[1]) << 8)) +
                   " is another Python version; pyverify reads "
                   "3.11 (magic 3495)"),
        Path);
  auto V = readMarshal(Bytes, 0, MarshalVersion, std::move(Owner));
  if (!V)
    return addInputContext(V.takeError(), Path);
  F.Roots = collectTopLevelCode(*V);
  if (F.Roots.empty())
    return addInputContext(
        makeInputError(0, "marshal stream holds no code object"), Path);
  return F;
}

llvm::Expected<CodeFile> pyverify::loadCodeFile(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "%s: cannot read: %s",
                                   Path.str().c_str(),
                                   Buf.getError().message().c_str());
  std::shared_ptr<const llvm::MemoryBuffer> Owner = std::move(*Buf);
  return parseCodeFile(Path, Owner->getBuffer(), /*AnyVersion=*/false,
                       defaultPythonVersion(), Owner);
}
