//===- BenchCorpus.h - The corpus the benchmarks share ----------*- C++ -*-===//
//
// Contract: loadBenchCorpus() reads every .pyc under a directory (recursively,
// in sorted path order -- the order run_benchmarks.py uses too) into memory,
// so that the timed regions of both benchmarks exclude file I/O. It does not
// parse anything. findBenchCorpusDir() picks the directory: an explicit
// argument, else $PYVERIFY_BENCH_CORPUS, else the build tree's corpus/stdlib
// (what `make corpus` writes).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BENCHMARKS_BENCHCORPUS_H
#define PYVERIFY_BENCHMARKS_BENCHCORPUS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyverify::bench {

struct CorpusFile {
  std::string Path;
  std::string Bytes;
};

struct BenchCorpus {
  std::string Dir;
  std::vector<CorpusFile> Files;
  uint64_t totalBytes() const;
};

/// \p Explicit if non-empty, else $PYVERIFY_BENCH_CORPUS, else the default.
std::string findBenchCorpusDir(llvm::StringRef Explicit = "");

/// Reads every .pyc under \p Dir. An error if \p Dir is not a directory,
/// holds no .pyc, or a file cannot be read.
llvm::Expected<BenchCorpus> loadBenchCorpus(llvm::StringRef Dir);

} // namespace pyverify::bench

#endif
