//===- BenchCorpus.cpp - The in-memory corpus the benchmarks share --------===//

#include "BenchCorpus.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace pyverify::bench;

#ifndef PYVERIFY_DEFAULT_CORPUS
#define PYVERIFY_DEFAULT_CORPUS "build/corpus/stdlib"
#endif

uint64_t BenchCorpus::totalBytes() const {
  uint64_t N = 0;
  for (const CorpusFile &F : Files)
    N += F.Bytes.size();
  return N;
}

std::string pyverify::bench::findBenchCorpusDir(llvm::StringRef Explicit) {
  if (!Explicit.empty())
    return Explicit.str();
  if (const char *Env = std::getenv("PYVERIFY_BENCH_CORPUS"); Env && *Env)
    return Env;
  return PYVERIFY_DEFAULT_CORPUS;
}

llvm::Expected<BenchCorpus>
pyverify::bench::loadBenchCorpus(llvm::StringRef Dir) {
  if (!llvm::sys::fs::is_directory(Dir))
    return llvm::createStringError(std::errc::no_such_file_or_directory,
                                   "corpus directory '%s' does not exist "
                                   "(run `make corpus`)",
                                   Dir.str().c_str());
  std::vector<std::string> Paths;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Dir, EC), End;
       It != End && !EC; It.increment(EC)) {
    if (llvm::sys::path::extension(It->path()) == ".pyc" &&
        llvm::sys::fs::is_regular_file(It->path()))
      Paths.push_back(It->path());
  }
  if (EC)
    return llvm::createStringError(EC, "cannot list '%s': %s",
                                   Dir.str().c_str(), EC.message().c_str());
  if (Paths.empty())
    return llvm::createStringError(std::errc::no_such_file_or_directory,
                                   "no .pyc files under '%s' (run `make "
                                   "corpus`)",
                                   Dir.str().c_str());
  llvm::sort(Paths);

  BenchCorpus C;
  C.Dir = Dir.str();
  C.Files.reserve(Paths.size());
  for (std::string &P : Paths) {
    auto Buf = llvm::MemoryBuffer::getFile(P, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    if (!Buf)
      return llvm::createStringError(Buf.getError(), "cannot read '%s': %s",
                                     P.c_str(),
                                     Buf.getError().message().c_str());
    C.Files.push_back({std::move(P), (*Buf)->getBuffer().str()});
  }
  return C;
}
