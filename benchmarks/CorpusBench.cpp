//===- CorpusBench.cpp - pyverify-corpus-bench ----------------------------===//
//
// pyverify-corpus-bench [DIR] [-repeat=N] [-warmup=W]
//
// Reads every .pyc under DIR into memory first (I/O is excluded, as on the
// python3.11 side of run_benchmarks.py), then times N repetitions of the whole
// Bytecode pipeline: readPyc on every file, then DecodedCode::decode on every
// code object recursively (instructions, exception table and its validation,
// location table). Two split timings, readPyc alone and decode alone, help
// read the result. Prints one JSON object on stdout; times are medians in
// seconds. Exit 1 when the corpus cannot be loaded.
//
//===----------------------------------------------------------------------===//

#include "BenchCorpus.h"

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/Marshal.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace pyverify;
using namespace pyverify::bench;

namespace {

llvm::cl::opt<std::string> CorpusDir(llvm::cl::Positional,
                                     llvm::cl::desc("[corpus directory]"),
                                     llvm::cl::init(""));
llvm::cl::opt<unsigned> Repeat("repeat",
                               llvm::cl::desc("Timed repetitions (median)"),
                               llvm::cl::init(11));
llvm::cl::opt<unsigned> Warmup("warmup",
                               llvm::cl::desc("Untimed repetitions first"),
                               llvm::cl::init(1));

/// What one pass saw; compared across passes so that the optimiser cannot
/// drop the work and a nondeterministic pass would show.
struct PassCounts {
  uint64_t CodeObjects = 0, ReadErrors = 0, Instructions = 0, TableEntries = 0,
           Positions = 0, Findings = 0;
  bool operator==(const PassCounts &) const = default;
};

void decodeAll(const CodeObject &Root, PassCounts &N) {
  forEachCodeObject(Root, [&](const CodeObject &C, unsigned) {
    DecodedCode D = DecodedCode::decode(C);
    ++N.CodeObjects;
    N.Instructions += D.Insts.size();
    N.TableEntries += D.Table.size();
    N.Positions += D.Positions.size();
    N.Findings += D.Findings.size();
  });
}

/// readPyc + DecodedCode::decode over the corpus, everything freed at the end.
PassCounts runPipeline(const BenchCorpus &Corpus) {
  PassCounts N;
  for (const CorpusFile &F : Corpus.Files) {
    auto P = readPyc(F.Bytes);
    if (!P) {
      llvm::consumeError(P.takeError());
      ++N.ReadErrors;
      continue;
    }
    decodeAll(*P->Code, N);
  }
  return N;
}

PassCounts runReadOnly(const BenchCorpus &Corpus) {
  PassCounts N;
  for (const CorpusFile &F : Corpus.Files) {
    auto P = readPyc(F.Bytes);
    if (!P) {
      llvm::consumeError(P.takeError());
      ++N.ReadErrors;
      continue;
    }
    N.CodeObjects += P->Code != nullptr; // keeps the result observable
  }
  return N;
}

template <typename Fn> double timeOnce(Fn &&F) {
  auto Start = std::chrono::steady_clock::now();
  F();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       Start)
      .count();
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  size_t M = V.size() / 2;
  return V.size() % 2 ? V[M] : (V[M - 1] + V[M]) / 2;
}

llvm::json::Array toArray(const std::vector<double> &V) {
  llvm::json::Array A;
  for (double D : V)
    A.push_back(D);
  return A;
}

} // namespace

int main(int Argc, char **Argv) {
  llvm::cl::ParseCommandLineOptions(
      Argc, Argv,
      "Times readPyc + DecodedCode::decode over an in-memory .pyc corpus\n");
  if (Repeat == 0) {
    llvm::WithColor::error(llvm::errs(), "pyverify-corpus-bench")
        << "-repeat must be at least 1\n";
    return 1;
  }
  auto Corpus = loadBenchCorpus(findBenchCorpusDir(CorpusDir));
  if (!Corpus) {
    llvm::WithColor::error(llvm::errs(), "pyverify-corpus-bench")
        << llvm::toString(Corpus.takeError()) << "\n";
    return 1;
  }

  // Whole pipeline.
  PassCounts Expected = runPipeline(*Corpus);
  for (unsigned I = 1; I < Warmup; ++I)
    runPipeline(*Corpus);
  std::vector<double> Pipeline;
  bool Stable = true;
  for (unsigned I = 0; I < Repeat; ++I) {
    PassCounts N;
    Pipeline.push_back(timeOnce([&] { N = runPipeline(*Corpus); }));
    Stable &= N == Expected;
  }

  // Split: readPyc alone, then decode alone over code objects read up front.
  std::vector<double> ReadOnly;
  for (unsigned I = 0; I < Repeat; ++I)
    ReadOnly.push_back(timeOnce([&] { runReadOnly(*Corpus); }));
  std::vector<PycFile> Read;
  for (const CorpusFile &F : Corpus->Files) {
    auto P = readPyc(F.Bytes);
    if (P)
      Read.push_back(std::move(*P));
    else
      llvm::consumeError(P.takeError());
  }
  std::vector<double> DecodeOnly;
  for (unsigned I = 0; I < Repeat; ++I) {
    PassCounts N;
    DecodeOnly.push_back(timeOnce([&] {
      for (const PycFile &P : Read)
        decodeAll(*P.Code, N);
    }));
    Stable &= N.CodeObjects == Expected.CodeObjects;
  }

  llvm::json::Object Out{
      {"corpus", Corpus->Dir},
      {"files", int64_t(Corpus->Files.size())},
      {"bytes", int64_t(Corpus->totalBytes())},
      {"code_objects", int64_t(Expected.CodeObjects)},
      {"read_errors", int64_t(Expected.ReadErrors)},
      {"instructions", int64_t(Expected.Instructions)},
      {"table_entries", int64_t(Expected.TableEntries)},
      {"positions", int64_t(Expected.Positions)},
      {"findings", int64_t(Expected.Findings)},
      {"repeat", int64_t(Repeat)},
      {"deterministic", Stable},
      {"seconds_median", median(Pipeline)},
      {"seconds", toArray(Pipeline)},
      {"read_seconds_median", median(ReadOnly)},
      {"decode_seconds_median", median(DecodeOnly)},
  };
  llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(Out)))
               << "\n";
  return 0;
}
