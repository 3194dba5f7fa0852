//===- AllocBench.cpp - pyverify-alloc-bench ------------------------------===//
//
// pyverify-alloc-bench [DIR]
//
// Counts the heap allocations of the full check over an in-memory corpus of
// .pyc files (BenchCorpus.h; the corpus pyverify-corpus-bench times), per
// phase: readPyc (per file), DecodedCode::decode and verifyCode (per code
// object, the check as `pyverify check` runs it, minus I/O and printing).
// An allocation is a call of malloc, calloc, realloc, aligned_alloc,
// posix_memalign or memalign: this binary interposes them on glibc's (the
// main program's definitions come first), so operator new, LLVM's
// SmallVector growth (safe_malloc, safe_realloc) and std::string are all
// counted. Only the phases are counted, not the corpus loading. The program
// is single-threaded.
//
// Prints one JSON object: files, code_objects, instructions, and for each
// phase its allocations, bytes asked for, allocations per code object and
// per instruction, and for decode and check the median and maximum per code
// object. Issue 29's goal is no allocation per instruction on the hot path:
// allocations_per_instruction near 0 and a per-code-object count that does
// not grow with the code object.
//
//===----------------------------------------------------------------------===//

#include "BenchCorpus.h"

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/Marshal.h"
#include "pyverify/Check/CheckOptions.h"
#include "pyverify/Check/Verifier.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <malloc.h>
#include <optional>
#include <vector>

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
}

namespace {
/// What the interposed allocation functions count while Counting is set.
bool Counting = false;
uint64_t Allocations = 0;
uint64_t Bytes = 0;

inline void note(size_t N) {
  if (Counting) {
    ++Allocations;
    Bytes += N;
  }
}
} // namespace

extern "C" {
void *malloc(size_t N) {
  note(N);
  return __libc_malloc(N);
}
void *calloc(size_t K, size_t N) {
  note(K * N);
  return __libc_calloc(K, N);
}
void *realloc(void *P, size_t N) {
  note(N);
  return __libc_realloc(P, N);
}
void *memalign(size_t A, size_t N) {
  note(N);
  return __libc_memalign(A, N);
}
void *aligned_alloc(size_t A, size_t N) {
  note(N);
  return __libc_memalign(A, N);
}
int posix_memalign(void **Out, size_t A, size_t N) {
  note(N);
  void *P = __libc_memalign(A, N);
  if (!P)
    return ENOMEM;
  *Out = P;
  return 0;
}
}

using namespace pyverify;
using namespace pyverify::bench;

namespace {

llvm::cl::opt<std::string> CorpusDir(llvm::cl::Positional,
                                     llvm::cl::desc("[corpus directory]"),
                                     llvm::cl::init(""));

/// One phase's counts: totals, and the per-code-object counts for the
/// phases run per code object.
struct Phase {
  uint64_t Allocations = 0, Bytes = 0;
  std::vector<uint64_t> PerCodeObject;
  /// The code object with the most (its file, qualname, instructions);
  /// kept for the check phase only.
  std::string MaxWhere;
};

/// Runs \p Fn with counting on and adds what it allocated to \p P (and,
/// with \p PerObject, one per-code-object entry).
template <class FnT> void counted(Phase &P, bool PerObject, FnT Fn) {
  uint64_t A0 = Allocations, B0 = Bytes;
  Counting = true;
  Fn();
  Counting = false;
  P.Allocations += Allocations - A0;
  P.Bytes += Bytes - B0;
  if (PerObject)
    P.PerCodeObject.push_back(Allocations - A0);
}

llvm::json::Object phaseJSON(Phase &P, uint64_t CodeObjects,
                             uint64_t Instructions) {
  llvm::json::Object O{
      {"allocations", int64_t(P.Allocations)},
      {"bytes", int64_t(P.Bytes)},
      {"allocations_per_code_object",
       CodeObjects ? double(P.Allocations) / double(CodeObjects) : 0.0},
      {"allocations_per_instruction",
       Instructions ? double(P.Allocations) / double(Instructions) : 0.0}};
  if (!P.PerCodeObject.empty()) {
    std::vector<uint64_t> &V = P.PerCodeObject;
    std::sort(V.begin(), V.end());
    O["median_per_code_object"] = int64_t(V[V.size() / 2]);
    O["max_per_code_object"] = int64_t(V.back());
    if (!P.MaxWhere.empty())
      O["max_code_object"] = P.MaxWhere;
  }
  return O;
}

} // namespace

int main(int Argc, char **Argv) {
  llvm::cl::ParseCommandLineOptions(
      Argc, Argv,
      "Counts the heap allocations of readPyc, decode and the full check "
      "over an in-memory .pyc corpus\n");
  auto Corpus = loadBenchCorpus(findBenchCorpusDir(CorpusDir));
  if (!Corpus) {
    llvm::WithColor::error(llvm::errs(), "pyverify-alloc-bench")
        << llvm::toString(Corpus.takeError()) << "\n";
    return 1;
  }
  CheckOptions Opts;
  Phase Read, Decode, Check;
  uint64_t CodeObjects = 0, Instructions = 0, ReadErrors = 0, Findings = 0;
  uint64_t CheckMax = 0;
  for (const CorpusFile &F : Corpus->Files) {
    std::optional<PycFile> P;
    counted(Read, false, [&] {
      // The code objects view the corpus's bytes, as the CLI's view the
      // file buffer it hands over: no copy of the input.
      llvm::Expected<PycFile> R =
          readPyc(F.Bytes, /*AnyVersion=*/true, borrowedInput(F.Bytes));
      if (R)
        P.emplace(std::move(*R));
      else
        llvm::consumeError(R.takeError());
    });
    if (!P) {
      ++ReadErrors;
      continue;
    }
    forEachCodeObject(*P->Code, [&](const CodeObject &C, unsigned) {
      ++CodeObjects;
      std::optional<DecodedCode> D;
      counted(Decode, true, [&] { D.emplace(DecodedCode::decode(C)); });
      Instructions += D->Insts.size();
      counted(Check, true, [&] { Findings += verifyCode(*D, Opts).size(); });
      if (Check.PerCodeObject.back() > CheckMax || CodeObjects == 1) {
        CheckMax = Check.PerCodeObject.back();
        Check.MaxWhere = llvm::formatv("{0}: {1} ({2} instructions)", F.Path,
                                       C.QualName, D->Insts.size())
                             .str();
      }
    });
  }
  llvm::json::Object Out{
      {"corpus", Corpus->Dir},
      {"files", int64_t(Corpus->Files.size())},
      {"read_errors", int64_t(ReadErrors)},
      {"code_objects", int64_t(CodeObjects)},
      {"instructions", int64_t(Instructions)},
      {"findings", int64_t(Findings)},
      {"read", phaseJSON(Read, CodeObjects, Instructions)},
      {"decode", phaseJSON(Decode, CodeObjects, Instructions)},
      {"check", phaseJSON(Check, CodeObjects, Instructions)}};
  llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(Out)))
               << "\n";
  return 0;
}
