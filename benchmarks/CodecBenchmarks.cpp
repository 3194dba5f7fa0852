//===- CodecBenchmarks.cpp - pyverify-codec-bench -------------------------===//
//
// pyverify-codec-bench [--benchmark_...] [--corpus=DIR | DIR]
//
// Google Benchmark over the Bytecode codecs. Every .pyc of the corpus (see
// BenchCorpus.h for how the directory is chosen) is read into memory once,
// and the inputs of each codec are prepared before timing, so one iteration
// of a benchmark is exactly one pass of that codec over the whole corpus.
// Each reports items/s in code objects and bytes/s in the bytes that codec
// consumes (or, for the encoder, produces). Files readPyc rejects stay in
// BM_ReadPyc's input and are counted in the context (corpus_unreadable); the
// other benchmarks see the code objects of the rest. Without a corpus (or
// without one readable file) it prints why and exits 0, so that a fresh
// checkout still runs.
//
//===----------------------------------------------------------------------===//

#include "BenchCorpus.h"

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/ExceptionTable.h"
#include "pyverify/Bytecode/InstructionStream.h"
#include "pyverify/Bytecode/LocationTable.h"
#include "pyverify/Bytecode/Marshal.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>

using namespace pyverify;
using namespace pyverify::bench;

namespace {

/// The corpus and every codec's prepared input, built once before timing.
struct Prepared {
  BenchCorpus Corpus;
  std::vector<PycFile> Files;
  std::vector<const CodeObject *> Codes; ///< Pre-order, file by file.
  std::vector<std::vector<ExceptionTableEntry>> Tables; ///< Per code object.
  std::vector<InstructionStream> Streams;               ///< Per code object.
  uint64_t CodeBytes = 0, TableBytes = 0, LineTableBytes = 0;
  uint64_t Unreadable = 0;
};

Prepared *Input = nullptr;

/// Reads and decodes everything once; the error says why nothing is left.
llvm::Error prepare(Prepared &P, llvm::StringRef Dir) {
  auto C = loadBenchCorpus(Dir);
  if (!C)
    return C.takeError();
  P.Corpus = std::move(*C);
  for (const CorpusFile &F : P.Corpus.Files) {
    auto R = readPyc(F.Bytes);
    if (!R) {
      llvm::consumeError(R.takeError());
      ++P.Unreadable;
      continue;
    }
    forEachCodeObject(*R->Code, [&](const CodeObject &Code, unsigned) {
      P.Codes.push_back(&Code);
    });
    P.Files.push_back(std::move(*R));
  }
  for (const CodeObject *Code : P.Codes) {
    P.CodeBytes += Code->Code.size();
    P.TableBytes += Code->ExceptionTable.size();
    P.LineTableBytes += Code->LineTable.size();
    auto T = decodeExceptionTable(Code->ExceptionTable);
    if (T) {
      P.Tables.push_back(std::move(*T));
    } else {
      llvm::consumeError(T.takeError());
      P.Tables.emplace_back(); // Malformed: nothing to encode or validate.
    }
    std::vector<Finding> Findings;
    P.Streams.push_back(InstructionStream::decode(Code->Code, Findings));
  }
  if (P.Codes.empty())
    return llvm::createStringError(std::errc::invalid_argument,
                                   "none of the %zu .pyc files under '%s' "
                                   "could be read",
                                   P.Corpus.Files.size(), Dir.str().c_str());
  return llvm::Error::success();
}

void report(benchmark::State &State, uint64_t Bytes) {
  State.SetItemsProcessed(int64_t(State.iterations()) *
                          int64_t(Input->Codes.size()));
  State.SetBytesProcessed(int64_t(State.iterations()) * int64_t(Bytes));
  State.counters["code_objects"] = double(Input->Codes.size());
}

void BM_ReadPyc(benchmark::State &State) {
  for (auto _ : State)
    for (const CorpusFile &F : Input->Corpus.Files) {
      auto R = readPyc(F.Bytes);
      benchmark::DoNotOptimize(R);
      if (!R)
        llvm::consumeError(R.takeError());
    }
  report(State, Input->Corpus.totalBytes());
}

void BM_DecodeInstructions(benchmark::State &State) {
  std::vector<Finding> Findings;
  for (auto _ : State)
    for (const CodeObject *C : Input->Codes) {
      Findings.clear();
      InstructionStream S = InstructionStream::decode(C->Code, Findings);
      benchmark::DoNotOptimize(S);
    }
  report(State, Input->CodeBytes);
}

void BM_DecodeExceptionTable(benchmark::State &State) {
  std::vector<uint32_t> NonCanonical;
  for (auto _ : State)
    for (const CodeObject *C : Input->Codes) {
      NonCanonical.clear();
      auto T = decodeExceptionTable(C->ExceptionTable, &NonCanonical);
      benchmark::DoNotOptimize(T);
      if (!T)
        llvm::consumeError(T.takeError());
    }
  report(State, Input->TableBytes);
}

void BM_EncodeExceptionTable(benchmark::State &State) {
  for (auto _ : State)
    for (const auto &T : Input->Tables) {
      std::string Bytes = encodeExceptionTable(T);
      benchmark::DoNotOptimize(Bytes);
    }
  report(State, Input->TableBytes);
}

void BM_ValidateExceptionTable(benchmark::State &State) {
  std::vector<Finding> Findings;
  for (auto _ : State)
    for (size_t I = 0; I < Input->Codes.size(); ++I) {
      Findings.clear();
      validateExceptionTable(Input->Tables[I], Input->Streams[I],
                             Input->Codes[I]->StackSize, Findings);
      benchmark::DoNotOptimize(Findings);
    }
  report(State, Input->TableBytes);
}

void BM_DecodeLocationTable(benchmark::State &State) {
  for (auto _ : State)
    for (const CodeObject *C : Input->Codes) {
      auto P = decodeLocationTable(C->LineTable, C->FirstLineNo,
                                   uint32_t(C->Code.size() / 2));
      benchmark::DoNotOptimize(P);
      if (!P)
        llvm::consumeError(P.takeError());
    }
  report(State, Input->LineTableBytes);
}

void BM_DecodedCode(benchmark::State &State) {
  for (auto _ : State)
    for (const CodeObject *C : Input->Codes) {
      DecodedCode D = DecodedCode::decode(*C);
      benchmark::DoNotOptimize(D);
    }
  report(State, Input->CodeBytes + Input->TableBytes + Input->LineTableBytes);
}

BENCHMARK(BM_ReadPyc)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeInstructions)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeExceptionTable)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EncodeExceptionTable)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ValidateExceptionTable)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeLocationTable)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodedCode)->Unit(benchmark::kMillisecond);

} // namespace

int main(int Argc, char **Argv) {
  benchmark::Initialize(&Argc, Argv);
  // What Google Benchmark left: --corpus=DIR or one positional DIR.
  std::string Dir;
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A = Argv[I];
    if (A.consume_front("--corpus=") || !A.startswith("-")) {
      Dir = A.str();
      continue;
    }
    std::fprintf(stderr, "pyverify-codec-bench: unknown argument '%s'\n",
                 Argv[I]);
    return 1;
  }
  Dir = findBenchCorpusDir(Dir);
  Prepared P;
  if (llvm::Error E = prepare(P, Dir)) {
    std::fprintf(stderr,
                 "pyverify-codec-bench: skipped, no usable corpus: %s\n",
                 llvm::toString(std::move(E)).c_str());
    return 0;
  }
  Input = &P;
  benchmark::AddCustomContext("corpus", Dir);
  benchmark::AddCustomContext("corpus_files",
                              std::to_string(P.Corpus.Files.size()));
  benchmark::AddCustomContext("corpus_code_objects",
                              std::to_string(P.Codes.size()));
  benchmark::AddCustomContext("corpus_unreadable",
                              std::to_string(P.Unreadable));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
