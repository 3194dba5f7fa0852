//===- ProveCommand.cpp - pyverify prove ----------------------------------===//
//
// pyverify prove [--unroll=K] [--rlimit=N] [--timeout=MS] [--jobs=N]
//                [--solver=literals|z3] [--format=text|json|sarif]
//                [--no-assume=suppress,tracing,eval-breaker] PATH...
//
// Proves the emitted code objects of .pvb bundles (Prover.h: well-formed,
// exactly-once, matches-eager) and exactly-once for .pyc, .py and marshal
// files; directories are walked as for every command (InputFiles.h: .pvb,
// .pyc, .py; what is skipped is said on stderr). Results come in input
// order (the sorted file list), then in the order proveBundle() returns
// them, so the output is identical for every --jobs value. Exit 0 when
// everything is proved, 1 when anything is refuted, 3 when something is
// unknown and nothing refuted, 2 on usage errors or unreadable input (2
// wins; the readable files are still reported). docs/prove-cli.md.
//
//===----------------------------------------------------------------------===//

#include "CodeInputs.h"
#include "Commands.h"
#include "InputFiles.h"
#include "OtherVersions.h"

#include "pyverify/SMT/ProofPrinter.h"
#include "pyverify/SMT/Prover.h"
#include "pyverify/SMT/Replay.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>

using namespace pyverify;
using namespace llvm;

namespace pyverify::tool {

cl::SubCommand ProveCmd("prove",
                        "Prove emitted code objects against the original");

namespace {

enum class Format { Text, Json, Sarif };

cl::list<std::string> Inputs(cl::Positional, cl::desc("<path>..."),
                             cl::sub(ProveCmd));
cl::opt<Format> OutputFormat(
    "format", cl::desc("Output format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "verdicts and counterexamples"),
               clEnumValN(Format::Json, "json", "the JSON contract"),
               clEnumValN(Format::Sarif, "sarif", "SARIF 2.1.0")),
    cl::sub(ProveCmd));
cl::opt<unsigned> Unroll("unroll",
                         cl::desc("Times each loop back edge is taken "
                                  "(default 2)"),
                         cl::init(ProveOptions().Unroll), cl::sub(ProveCmd));
cl::opt<uint64_t> Rlimit("rlimit",
                         cl::desc("Z3 resource limit per query, with "
                                  "--solver=z3 (default 2000000)"),
                         cl::init(ProveOptions().Rlimit), cl::sub(ProveCmd));
cl::opt<unsigned> TimeoutMs("timeout",
                            cl::desc("Time limit per Z3 query in "
                                     "milliseconds, with --solver=z3 "
                                     "(default 5000)"),
                            cl::init(ProveOptions().TimeoutMs),
                            cl::sub(ProveCmd));
cl::opt<uint64_t> MaxPaths("max-paths",
                           cl::desc("Paths (or path pairs) explored per "
                                    "property before giving up with "
                                    "'unknown' (default 5000)"),
                           cl::init(ProveOptions().MaxPaths),
                           cl::sub(ProveCmd));
cl::opt<uint64_t> MaxSteps("max-steps",
                           cl::desc("Instructions executed symbolically per "
                                    "result before giving up with 'unknown' "
                                    "(default 1000000)"),
                           cl::init(ProveOptions().MaxSteps),
                           cl::sub(ProveCmd));
cl::opt<uint64_t> MaxStates("max-states",
                            cl::desc("Paths held for exploration at once per "
                                     "result before giving up with 'unknown' "
                                     "(default 20000)"),
                            cl::init(ProveOptions().MaxStates),
                            cl::sub(ProveCmd));
cl::opt<smt::SolverMode>
    Solver("solver",
           cl::desc("Who decides path feasibility (the same answers)"),
           cl::init(ProveOptions().Solver),
           cl::values(clEnumValN(smt::SolverMode::Literals, "literals",
                                 "the complementary-literal rule (default)"),
                      clEnumValN(smt::SolverMode::Z3, "z3",
                                 "Z3, with --rlimit and --timeout per query")),
           cl::sub(ProveCmd));
cl::opt<unsigned> Jobs("jobs",
                       cl::desc("Files proved in parallel (0: all cores)"),
                       cl::init(1), cl::sub(ProveCmd));
cl::opt<bool> Progress("progress",
                       cl::desc("Print progress to stderr (default: when "
                                "stderr is a terminal)"),
                       cl::init(false), cl::sub(ProveCmd));
cl::list<std::string>
    NoAssume("no-assume",
             cl::desc("Drop an assumption: 'suppress' (__exit__ may "
                      "suppress an exception); narrow the raise tiers: "
                      "'tracing' (no trace function raises), 'eval-breaker' "
                      "(no signal or asynchronous exception at back edges)"),
             cl::CommaSeparated, cl::sub(ProveCmd));

cl::opt<std::string>
    ReplayDir("replay",
              cl::desc("Write a runnable python3.11 replay script for every "
                       "refuted result into <dir>"),
              cl::value_desc("dir"), cl::sub(ProveCmd));

/// --replay: a script per refuted result of one file (Replay.h). A write
/// error is printed (with the path) and makes the exit status 2.
std::atomic<bool> ReplayFailed{false};
template <typename Input>
void writeReplays(const std::string &Path, const std::vector<ProofResult> &Rs,
                  const Input &In, bool IsSource = false) {
  if (ReplayDir.empty() || llvm::none_of(Rs, needsReplay))
    return;
  static std::mutex ErrM;
  auto Fail = [&](const std::string &Msg) {
    std::lock_guard<std::mutex> Lock(ErrM);
    WithColor::error(errs(), "pyverify") << "prove: --replay: " << Msg << "\n";
    ReplayFailed = true;
  };
  auto Buf = readInput(Path);
  if (!Buf)
    return Fail(toString(Buf.takeError()));
  ReplayInput RI;
  if constexpr (std::is_same_v<Input, Bundle>)
    RI = makeReplayInput(In, (*Buf)->getBuffer());
  else
    RI = makeReplayInput(In, (*Buf)->getBuffer(), IsSource);
  for (const ProofResult &R : Rs)
    if (needsReplay(R))
      if (Error E = writeReplayFile(ReplayDir, R, RI))
        Fail(toString(std::move(E)));
}

struct FileOutcome {
  std::vector<ProofResult> Results;
  std::string InputError; ///< Non-empty when the file could not be read.
  std::string Path;
  /// OtherVersions.h: the code looks like another Python's ("" if not).
  std::string VersionNote;
};

FileOutcome proveOne(const std::string &Path, const ProveOptions &Opts,
                     InputVersions Versions) {
  FileOutcome O;
  O.Path = displayName(Path);
  if (inputKind(Path) == InputKind::Bundle) {
    Expected<Bundle> B = loadBundleInput(Path, Versions);
    if (!B) {
      O.InputError = toString(B.takeError());
      return O;
    }
    O.VersionNote = otherVersionNote(bundleTargets(*B));
    O.Results = proveBundle(*B, Opts);
    writeReplays(Path, O.Results, *B);
    return O;
  }
  Expected<CodeFile> F = loadInput(Path, Versions);
  if (!F) {
    O.InputError = toString(F.takeError());
    return O;
  }
  std::vector<const CodeObject *> Roots;
  for (const auto &Root : F->Roots)
    Roots.push_back(Root.get());
  O.VersionNote = otherVersionNote(Roots);
  O.Results = proveCodeFile(*F, Opts);
  writeReplays(Path, O.Results, *F, inputKind(Path) == InputKind::Source);
  return O;
}

/// Prints the results in input order as soon as every earlier file is done
/// (streamed, and the same bytes for every --jobs value), with progress on
/// stderr for long runs. done() may be called from any thread.
class Reporter {
public:
  explicit Reporter(size_t N) : Outcomes(N), Done(N), Start(Clock::now()) {
    ShowProgress = Progress || (errs().is_displayed() && N > 1);
    if (OutputFormat == Format::Json) {
      J.emplace(outs(), 2);
      J->objectBegin();
      J->attributeBegin("results");
      J->arrayBegin();
    }
  }

  void done(size_t I, FileOutcome O) {
    std::lock_guard<std::mutex> Lock(M);
    Outcomes[I] = std::move(O);
    Done[I] = true;
    ++Finished;
    while (Next < Outcomes.size() && Done[Next]) {
      report(Outcomes[Next]);
      Outcomes[Next] = FileOutcome();
      ++Next;
    }
    outs().flush();
    progress(false);
  }

  void finish(double Seconds) {
    progress(true);
    switch (OutputFormat) {
    case Format::Text:
      outs() << "pyverify: " << Read << " file(s), " << Count
             << " result(s): " << Proved << " proved, " << Refuted
             << " refuted, " << Unknown << " unknown\n";
      break;
    case Format::Json: {
      J->arrayEnd();
      J->attributeEnd();
      json::Array As;
      for (const std::string &A : Legend.all())
        As.push_back(A);
      J->attribute("assumptions", std::move(As));
      J->attribute("summary", json::Object{{"bundles", int64_t(Read)},
                                           {"proved", int64_t(Proved)},
                                           {"refuted", int64_t(Refuted)},
                                           {"unknown", int64_t(Unknown)},
                                           {"seconds", Seconds}});
      J->objectEnd();
      outs() << "\n";
      break;
    }
    case Format::Sarif:
      outs() << formatv("{0:2}", proofResultsToSARIF(All, "0.1.0")) << "\n";
      break;
    }
  }

  uint64_t Read = 0, Count = 0, Proved = 0, Refuted = 0, Unknown = 0;
  unsigned InputErrors = 0;

private:
  using Clock = std::chrono::steady_clock;

  void report(FileOutcome &O) {
    if (!O.InputError.empty()) {
      WithColor::error(errs(), "pyverify") << O.InputError << "\n";
      ++InputErrors;
      return;
    }
    if (!O.VersionNote.empty())
      WithColor::note(errs(), "pyverify")
          << O.Path << ": " << O.VersionNote << "\n";
    ++Read;
    for (ProofResult &R : O.Results) {
      ++Count;
      Proved += R.V == Verdict::Proved;
      Refuted += R.V == Verdict::Refuted;
      Unknown += R.V == Verdict::Unknown;
      switch (OutputFormat) {
      case Format::Text:
        printProofResult(outs(), R, &Legend);
        break;
      case Format::Json:
        for (const std::string &A : R.Assumptions)
          Legend.number(A);
        J->value(proofResultToJSON(R));
        break;
      case Format::Sarif:
        All.push_back(std::move(R));
        break;
      }
    }
  }

  /// "[k/N files] ..." at most once a second, and at the end.
  void progress(bool Final) {
    if (!ShowProgress)
      return;
    auto Now = Clock::now();
    if (!Final && Now - LastProgress < std::chrono::seconds(1))
      return;
    LastProgress = Now;
    errs() << formatv("pyverify prove: [{0}/{1} files] {2} proved, {3} "
                      "refuted, {4} unknown, {5:f1} s\n",
                      Finished, Outcomes.size(), Proved, Refuted, Unknown,
                      std::chrono::duration<double>(Now - Start).count());
  }

  std::mutex M;
  std::vector<FileOutcome> Outcomes;
  std::vector<bool> Done;
  size_t Next = 0, Finished = 0;
  AssumptionLegend Legend;
  std::optional<json::OStream> J;
  std::vector<ProofResult> All; ///< SARIF only: one log at the end.
  bool ShowProgress = false;
  Clock::time_point Start, LastProgress;
};

} // namespace

int runProve() {
  if (Inputs.empty()) {
    WithColor::error(errs(), "pyverify") << "prove: no input paths given\n";
    return ExitUsage;
  }
  ProveOptions Opts;
  Opts.Unroll = Unroll;
  Opts.MaxPaths = MaxPaths;
  Opts.MaxSteps = MaxSteps;
  Opts.MaxStates = MaxStates;
  Opts.Rlimit = Rlimit;
  Opts.TimeoutMs = TimeoutMs;
  Opts.Solver = Solver;
  for (const std::string &A : NoAssume) {
    if (A == "suppress") {
      Opts.AssumeNoSuppress = false;
    } else if (A == "tracing") {
      Opts.TierTracing = false;
    } else if (A == "eval-breaker") {
      Opts.TierEvalBreaker = false;
    } else {
      WithColor::error(errs(), "pyverify")
          << "prove: --no-assume accepts 'suppress', 'tracing' and "
             "'eval-breaker', not '"
          << A << "'\n";
      return ExitUsage;
    }
  }

  Expected<InputVersions> Versions = versionsFromOptions();
  if (!Versions) {
    WithColor::error(errs(), "pyverify")
        << "prove: " << toString(Versions.takeError()) << "\n";
    return ExitUsage;
  }

  if (!ReplayDir.empty())
    if (std::error_code EC = sys::fs::create_directories(ReplayDir)) {
      WithColor::error(errs(), "pyverify")
          << "prove: --replay: cannot create directory '" << ReplayDir
          << "': " << EC.message() << "\n";
      return ExitUsage;
    }

  auto Start = std::chrono::steady_clock::now();
  ExpandedInputs In = selectInputs(Inputs, *Versions);
  int Status = reportInputs(In) ? ExitUsage : ExitClean;
  const std::vector<std::string> &Files = In.Files;

  Reporter Rep(Files.size());
  unsigned Threads = Jobs == 0
                         ? llvm::hardware_concurrency().compute_thread_count()
                         : unsigned(Jobs);
  if (Threads <= 1 || Files.size() <= 1) {
    for (size_t I = 0; I < Files.size(); ++I)
      Rep.done(I, proveOne(Files[I], Opts, *Versions));
  } else {
    ThreadPool Pool(llvm::hardware_concurrency(Threads));
    for (size_t I = 0; I < Files.size(); ++I)
      Pool.async([&, I] { Rep.done(I, proveOne(Files[I], Opts, *Versions)); });
    Pool.wait();
  }
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  Rep.finish(Seconds);
  if (Rep.InputErrors || ReplayFailed)
    Status = ExitUsage;
  uint64_t Refuted = Rep.Refuted, Unknown = Rep.Unknown;
  if (Status != ExitClean)
    return Status;
  if (Refuted)
    return ExitFindings;
  if (Unknown)
    return ExitUnknown;
  return ExitClean;
}

} // namespace pyverify::tool
