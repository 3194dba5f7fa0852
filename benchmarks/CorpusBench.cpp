//===- CorpusBench.cpp - pyverify-corpus-bench ----------------------------===//
//
// pyverify-corpus-bench [DIR] [-repeat=N] [-warmup=W] [-checks=SPEC]
//                       [-exclude=FILE] [-only=NAME,...]
//
// A .pyc of 3.12 or 3.13 is read as that version's bytecode (its magic):
// -only=read,pipeline on such a corpus times reading and decoding it
// (bench_versions.py); the analyses are 3.11's.
//
// Reads every .pyc under DIR into memory first (I/O is excluded, as on the
// python3.11 side of run_benchmarks.py), then times N rounds; each round runs
// every measurement below once, interleaved, so that a machine busy with
// other work slows them alike.
//
// From the bytes, on every file and every code object recursively:
//
//   pipeline  readPyc + DecodedCode::decode (instructions, exception table
//             and its validation, location table)            [decode only]
//   issue3    pipeline + CFG::build + computeStackDepth + checkStack
//   issue4    issue3 + BlockStack::compute + checkContextBalance and the
//             with-handler checks (appendContextFindings)
//   check     readPyc + decode + verifyCode(D, CheckOptions) -- the full
//             check as `pyverify check` runs it, minus file I/O and printing
//   check_comparable
//             check, skipping the code objects listed in -exclude (those the
//             python peer cannot handle), so that per-object figures compare
//             the same set; only with -exclude
//
// Each code object's passes come from one CodeAnalysis, as in verifyCode.
//
// Splits, to read the above (each on inputs prepared before timing):
//
//   read      readPyc alone
//   decode    DecodedCode::decode alone, over code objects read up front
//   split_cfg, split_depth, split_stackchecks, split_blockstack,
//   split_context
//             cumulative levels over code objects decoded up front: CFG;
//             + stack depth; + stack checks; + block stack; + context
//             balance. The difference of two successive levels is the cost
//             of one pass.
//
// Prints one JSON object on stdout; times are medians in seconds, of wall
// time and (the cpu_ keys) of process CPU time, which a busy machine disturbs
// less; NAME_seconds / NAME_cpu_seconds hold every round. The whole-pipeline
// keys of the first version (seconds, cpu_seconds, ...) are kept. Each
// measurement's counts (code objects, blocks, visits, findings, ...) are
// compared across rounds ("deterministic"), which also keeps the optimiser
// from dropping the work.
//
// -exclude=FILE names code objects, one a line: "RELPATH<TAB>INDEX", RELPATH
// relative to DIR and INDEX the code object's pre-order index in its file
// (forEachCodeObject's order). -only=NAME,... runs only those measurements
// (to profile one; the first is then the one the legacy keys describe).
// Exit 1 when the corpus cannot be loaded.
//
//===----------------------------------------------------------------------===//

#include "BenchCorpus.h"

#include "pyverify/Analysis/CodeAnalysis.h"
#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/Marshal.h"
#include "pyverify/CFG/CFG.h"
#include "pyverify/Check/CheckOptions.h"
#include "pyverify/Check/StackChecks.h"
#include "pyverify/Check/Verifier.h"
#include "pyverify/Check/WithHandlerChecks.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <memory>

using namespace pyverify;
using namespace pyverify::bench;

namespace {

llvm::cl::opt<std::string> CorpusDir(llvm::cl::Positional,
                                     llvm::cl::desc("[corpus directory]"),
                                     llvm::cl::init(""));
llvm::cl::opt<unsigned> Repeat("repeat",
                               llvm::cl::desc("Timed rounds (median)"),
                               llvm::cl::init(11));
llvm::cl::opt<unsigned> Warmup("warmup", llvm::cl::desc("Untimed rounds first"),
                               llvm::cl::init(1));
llvm::cl::opt<std::string>
    ChecksSpec("checks",
               llvm::cl::desc("Check spec for verifyCode (as pyverify check "
                              "--checks)"),
               llvm::cl::init(""));
llvm::cl::opt<std::string>
    ExcludeFile("exclude",
                llvm::cl::desc("Code objects left out of check_comparable: "
                               "lines RELPATH<TAB>INDEX"),
                llvm::cl::init(""));
llvm::cl::list<std::string>
    Only("only",
         llvm::cl::desc("Run only these measurements (comma-separated; for "
                        "profiling)"),
         llvm::cl::CommaSeparated);

/// How far the analysis goes on each code object.
enum class Level {
  Decode,      ///< Nothing after decoding.
  CFG,         ///< CFG::build.
  StackDepth,  ///< + computeStackDepth.
  StackChecks, ///< + checkStack (issue 3's passes).
  BlockStack,  ///< + BlockStack::compute.
  Context,     ///< + checkContextBalance and its checks (issue 4's).
  Verify,      ///< verifyCode(D, Options): the full check.
};

/// What one measurement saw; compared across rounds so that the optimiser
/// cannot drop the work and a nondeterministic pass would show.
struct PassCounts {
  uint64_t CodeObjects = 0, ReadErrors = 0, Excluded = 0, Instructions = 0,
           TableEntries = 0, Positions = 0, Analysed = 0, Blocks = 0, Edges = 0,
           DepthVisits = 0, ContextVisits = 0, BlockProblems = 0,
           AnalysisErrors = 0, Findings = 0;
  bool operator==(const PassCounts &) const = default;

  llvm::json::Object toJSON() const {
    return llvm::json::Object{{"code_objects", int64_t(CodeObjects)},
                              {"read_errors", int64_t(ReadErrors)},
                              {"excluded", int64_t(Excluded)},
                              {"instructions", int64_t(Instructions)},
                              {"table_entries", int64_t(TableEntries)},
                              {"positions", int64_t(Positions)},
                              {"analysed", int64_t(Analysed)},
                              {"blocks", int64_t(Blocks)},
                              {"edges", int64_t(Edges)},
                              {"depth_visits", int64_t(DepthVisits)},
                              {"context_visits", int64_t(ContextVisits)},
                              {"block_problems", int64_t(BlockProblems)},
                              {"analysis_errors", int64_t(AnalysisErrors)},
                              {"findings", int64_t(Findings)}};
  }
};

/// The passes up to \p L on one decoded code object, in verifyCode's order
/// and under its precondition (a well-formed DecodedCode), each from one
/// CodeAnalysis of it.
void analyse(const DecodedCode &D, Level L, const CheckOptions &Opts,
             PassCounts &N) {
  if (L == Level::Decode) {
    N.Findings += D.Findings.size();
    return;
  }
  CodeAnalysis A(D, Opts.Balance);
  if (L == Level::Verify) {
    N.Analysed += D.isWellFormed();
    N.Findings += verifyCode(A, Opts).size();
    return;
  }
  std::vector<Finding> All = D.Findings; // as verifyCode starts
  if (const CFG *G = A.cfg()) {
    ++N.Analysed;
    N.Blocks += G->size();
    N.Edges += G->edges().size();
    if (L > Level::CFG) {
      auto Depth = A.stackDepth();
      if (!Depth) {
        llvm::consumeError(Depth.takeError());
        ++N.AnalysisErrors;
      } else {
        N.DepthVisits += Depth->Visits;
        if (L >= Level::StackChecks)
          checkStack(*G, *Depth, All);
        if (L >= Level::BlockStack) {
          const BlockStack &Blocks = cantFail(A.blockStack());
          N.BlockProblems += Blocks.problems().size();
          if (L >= Level::Context) {
            auto Balance = A.contexts();
            if (Balance) {
              N.ContextVisits += Balance->Visits;
              appendContextFindings(*G, Blocks, *Balance, All);
            } else {
              llvm::consumeError(Balance.takeError());
              ++N.AnalysisErrors;
            }
          }
        }
      }
    }
  }
  N.Findings += All.size();
}

void countDecoded(const DecodedCode &D, PassCounts &N) {
  ++N.CodeObjects;
  N.Instructions += D.Insts.size();
  N.TableEntries += D.Table.size();
  // Positions are decoded lazily (DecodedCode::positions()); count the
  // units the validated table covers.
  N.Positions += D.LocationsDecoded ? D.Insts.codeSize() / 2 : 0;
}

/// Per corpus file: the sorted pre-order indices of excluded code objects.
using Exclusions = std::vector<std::vector<uint32_t>>;

/// readPyc, decode and the passes up to \p L, on every code object of every
/// file but those in \p Skip (if given); everything freed at the end.
PassCounts runFromBytes(const BenchCorpus &Corpus, Level L,
                        const CheckOptions &Opts,
                        const Exclusions *Skip = nullptr) {
  PassCounts N;
  for (size_t FI = 0; FI < Corpus.Files.size(); ++FI) {
    // The corpus keeps its bytes: the code objects view them, as the
    // CLI's view the file buffer they keep.
    auto P = readPyc(Corpus.Files[FI].Bytes, /*AnyVersion=*/true,
                     borrowedInput(Corpus.Files[FI].Bytes));
    if (!P) {
      llvm::consumeError(P.takeError());
      ++N.ReadErrors;
      continue;
    }
    const std::vector<uint32_t> *Out = Skip ? &(*Skip)[FI] : nullptr;
    size_t NextOut = 0;
    uint32_t Index = 0;
    forEachCodeObject(*P->Code, [&](const CodeObject &C, unsigned) {
      uint32_t I = Index++;
      if (Out && NextOut < Out->size() && (*Out)[NextOut] == I) {
        ++NextOut;
        ++N.Excluded;
        return;
      }
      DecodedCode D = DecodedCode::decode(C);
      countDecoded(D, N);
      analyse(D, L, Opts, N);
    });
  }
  return N;
}

PassCounts runReadOnly(const BenchCorpus &Corpus) {
  PassCounts N;
  for (const CorpusFile &F : Corpus.Files) {
    auto P = readPyc(F.Bytes, /*AnyVersion=*/true, borrowedInput(F.Bytes));
    if (!P) {
      llvm::consumeError(P.takeError());
      ++N.ReadErrors;
      continue;
    }
    N.CodeObjects += P->Code != nullptr; // keeps the result observable
  }
  return N;
}

double cpuSeconds() {
  timespec T;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &T);
  return double(T.tv_sec) + double(T.tv_nsec) * 1e-9;
}

/// Wall and CPU times of repeated runs.
struct Times {
  std::vector<double> Wall, Cpu;
  template <typename Fn> void measure(Fn &&F) {
    double Cpu0 = cpuSeconds();
    auto Wall0 = std::chrono::steady_clock::now();
    F();
    Wall.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Wall0)
            .count());
    Cpu.push_back(cpuSeconds() - Cpu0);
  }
};

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

/// One named measurement: a pass over the corpus returning its counts.
struct Measurement {
  std::string Name;
  std::function<PassCounts()> Run;
  Times T;
  PassCounts Expected;
  bool Stable = true;
};

std::string relativeTo(llvm::StringRef Path, llvm::StringRef Dir) {
  if (Path.consume_front(Dir))
    Path = Path.ltrim('/');
  return Path.str();
}

/// Reads \p File into per-file exclusions; counts lines naming no file.
llvm::Expected<Exclusions> loadExclusions(llvm::StringRef File,
                                          const BenchCorpus &Corpus,
                                          uint64_t &Unmatched,
                                          uint64_t &Listed) {
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read '%s': %s",
                                   File.str().c_str(),
                                   Buf.getError().message().c_str());
  llvm::StringMap<size_t> ByPath;
  for (size_t I = 0; I < Corpus.Files.size(); ++I)
    ByPath[relativeTo(Corpus.Files[I].Path, Corpus.Dir)] = I;
  Exclusions E(Corpus.Files.size());
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Line : Lines) {
    auto [Path, Idx] = Line.rtrim("\r").rsplit('\t');
    uint32_t Index;
    if (Idx.getAsInteger(10, Index))
      return llvm::createStringError(std::errc::invalid_argument,
                                     "%s: bad line '%s' (want "
                                     "RELPATH<TAB>INDEX)",
                                     File.str().c_str(), Line.str().c_str());
    ++Listed;
    auto It = ByPath.find(Path);
    if (It == ByPath.end()) {
      ++Unmatched;
      continue;
    }
    E[It->second].push_back(Index);
  }
  for (auto &V : E) {
    llvm::sort(V);
    V.erase(std::unique(V.begin(), V.end()), V.end());
  }
  return E;
}

} // namespace

int main(int Argc, char **Argv) {
  llvm::cl::ParseCommandLineOptions(
      Argc, Argv,
      "Times readPyc, decode and the check passes over an in-memory .pyc "
      "corpus\n");
  auto Fail = [](const llvm::Twine &Msg) {
    llvm::WithColor::error(llvm::errs(), "pyverify-corpus-bench")
        << Msg << "\n";
    return 1;
  };
  if (Repeat == 0)
    return Fail("-repeat must be at least 1");
  CheckOptions Opts;
  if (llvm::Error E = Opts.parseCheckSpec(ChecksSpec))
    return Fail(llvm::toString(std::move(E)));
  auto Corpus = loadBenchCorpus(findBenchCorpusDir(CorpusDir));
  if (!Corpus)
    return Fail(llvm::toString(Corpus.takeError()));

  uint64_t Unmatched = 0, Listed = 0;
  std::unique_ptr<Exclusions> Skip;
  if (!ExcludeFile.empty()) {
    auto E = loadExclusions(ExcludeFile, *Corpus, Unmatched, Listed);
    if (!E)
      return Fail(llvm::toString(E.takeError()));
    Skip = std::make_unique<Exclusions>(std::move(*E));
  }

  // Inputs of the splits, prepared once, before the first split runs (not at
  // all with -only naming none): the files read, and every code object
  // decoded (DecodedCode borrows its CodeObject from Read).
  std::vector<PycFile> Read;
  std::vector<DecodedCode> Decoded;
  auto Prepare = [&] {
    if (!Read.empty())
      return;
    for (const CorpusFile &F : Corpus->Files) {
      auto P = readPyc(F.Bytes, /*AnyVersion=*/true, borrowedInput(F.Bytes));
      if (P)
        Read.push_back(std::move(*P));
      else
        llvm::consumeError(P.takeError());
    }
    for (const PycFile &P : Read)
      forEachCodeObject(*P.Code, [&](const CodeObject &C, unsigned) {
        Decoded.push_back(DecodedCode::decode(C));
      });
  };
  auto OverDecoded = [&](Level L) {
    PassCounts N;
    for (const DecodedCode &D : Decoded) {
      countDecoded(D, N);
      analyse(D, L, Opts, N);
    }
    return N;
  };

  const BenchCorpus &C = *Corpus;
  std::vector<Measurement> Ms;
  auto Add = [&](std::string Name, std::function<PassCounts()> Fn) {
    Ms.push_back({std::move(Name), std::move(Fn), {}, {}, true});
  };
  Add("pipeline", [&] { return runFromBytes(C, Level::Decode, Opts); });
  Add("issue3", [&] { return runFromBytes(C, Level::StackChecks, Opts); });
  Add("issue4", [&] { return runFromBytes(C, Level::Context, Opts); });
  Add("check", [&] { return runFromBytes(C, Level::Verify, Opts); });
  if (Skip)
    Add("check_comparable",
        [&] { return runFromBytes(C, Level::Verify, Opts, Skip.get()); });
  Add("read", [&] { return runReadOnly(C); });
  Add("decode", [&] {
    PassCounts N;
    for (const PycFile &P : Read)
      forEachCodeObject(*P.Code, [&](const CodeObject &C, unsigned) {
        DecodedCode D = DecodedCode::decode(C);
        countDecoded(D, N);
        analyse(D, Level::Decode, Opts, N);
      });
    return N;
  });
  Add("split_cfg", [&] { return OverDecoded(Level::CFG); });
  Add("split_depth", [&] { return OverDecoded(Level::StackDepth); });
  Add("split_stackchecks", [&] { return OverDecoded(Level::StackChecks); });
  Add("split_blockstack", [&] { return OverDecoded(Level::BlockStack); });
  Add("split_context", [&] { return OverDecoded(Level::Context); });

  if (!Only.empty()) {
    for (const std::string &Name : Only)
      if (llvm::none_of(Ms,
                        [&](const Measurement &M) { return M.Name == Name; }))
        return Fail("-only: no measurement named '" + Name + "'");
    llvm::erase_if(Ms, [&](const Measurement &M) {
      return !llvm::is_contained(Only, M.Name);
    });
  }
  for (Measurement &M : Ms) {
    if (M.Name == "decode" || M.Name.rfind("split_", 0) == 0)
      Prepare();
    M.Expected = M.Run();
  }
  for (unsigned I = 1; I < Warmup; ++I)
    for (Measurement &M : Ms)
      M.Run();
  for (unsigned I = 0; I < Repeat; ++I)
    for (Measurement &M : Ms) {
      PassCounts N;
      M.T.measure([&] { N = M.Run(); });
      M.Stable &= N == M.Expected;
    }

  bool Stable = true;
  llvm::json::Object Counts;
  for (const Measurement &M : Ms) {
    Stable &= M.Stable;
    Counts[M.Name] = M.Expected.toJSON();
  }
  const Measurement &Pipe = Ms.front();
  const PassCounts &E = Pipe.Expected;
  llvm::json::Object Out{
      {"corpus", Corpus->Dir},
      {"files", int64_t(Corpus->Files.size())},
      {"bytes", int64_t(Corpus->totalBytes())},
      {"code_objects", int64_t(E.CodeObjects)},
      {"read_errors", int64_t(E.ReadErrors)},
      {"instructions", int64_t(E.Instructions)},
      {"table_entries", int64_t(E.TableEntries)},
      {"positions", int64_t(E.Positions)},
      {"findings", int64_t(E.Findings)},
      {"checks", ChecksSpec.getValue()},
      {"exclude_listed", int64_t(Listed)},
      {"exclude_unmatched", int64_t(Unmatched)},
      {"repeat", int64_t(Repeat)},
      {"deterministic", Stable},
      {"measurements",
       [&] {
         llvm::json::Array A;
         for (const Measurement &M : Ms)
           A.push_back(M.Name);
         return A;
       }()},
      {"counts", std::move(Counts)},
      // The first version's keys: the whole decode pipeline.
      {"seconds_median", median(Pipe.T.Wall)},
      {"seconds", toArray(Pipe.T.Wall)},
      {"cpu_seconds_median", median(Pipe.T.Cpu)},
      {"cpu_seconds", toArray(Pipe.T.Cpu)},
  };
  for (const Measurement &M : Ms) {
    Out[M.Name + "_seconds_median"] = median(M.T.Wall);
    Out[M.Name + "_cpu_seconds_median"] = median(M.T.Cpu);
    Out[M.Name + "_seconds"] = toArray(M.T.Wall);
    Out[M.Name + "_cpu_seconds"] = toArray(M.T.Cpu);
  }
  llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(Out)))
               << "\n";
  return 0;
}
