//===- Prover.h - Translation validation of emitted code --------*- C++ -*-===//
//
// Contract: proveBundle() decides, for each emitted code object of a bundle
// (the rewritten frame F and each resume function R), the properties of
// docs/prove.md by bounded symbolic execution with uninterpreted values and
// an exact path-feasibility check (Solver.h; Z3 with ProveOptions::Solver):
//
//   well-formed   no error from the dataflow checks (other than the context
//                 checks the proof decides itself);
//   exactly-once  on every path of the code object (every branch outcome,
//                 every may-raise instruction continuing or raising), each
//                 context it enters is exited exactly once, LIFO, never an
//                 exit of a context it does not hold; F may hand its
//                 torch-function modes to the resume call, R pops them;
//   matches-eager R after its prologue and the original O started at
//                 original_offset (with the contexts active there) make the
//                 same observable steps -- calls, attribute, subscript and
//                 other user-code instructions, branches, returns and
//                 raises -- with the same context events and the same active
//                 contexts at each, on every pair of corresponding paths;
//                 for F: the active contexts at its break instruction are
//                 O's at break_offset and, at the resume call, only modes.
//
// Results are kept apart: Proved, Refuted (with a counterexample: the two
// aligned step lists and the index of the first divergence), Unknown (with
// the reason: the unroll bound cut a path, a solver limit, the complexity
// budget, an unsupported opcode). Every input gets its results: the budget
// (ProveOptions::MaxSteps, MaxStates) ends every exploration, however the
// code loops. Unknown is never Proved. Everything is deterministic: the same
// bundle gives the same results and the same counterexample, whatever the
// thread; each proof owns its own solver.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SMT_PROVER_H
#define PYVERIFY_SMT_PROVER_H

#include "pyverify/Bytecode/Bundle.h"
#include "pyverify/Bytecode/CodeFile.h"
#include "pyverify/Check/Diagnostic.h"
#include "pyverify/SMT/Solver.h"

#include <optional>
#include <string>
#include <vector>

namespace pyverify {

enum class Verdict { Proved, Refuted, Unknown };
llvm::StringRef getVerdictName(Verdict V);

struct ProveOptions {
  unsigned Unroll = 2;          ///< Times each loop back edge is taken.
  uint64_t Rlimit = 2'000'000;  ///< Z3 resource limit per query (Z3 mode).
  unsigned TimeoutMs = 5000;    ///< Time limit per query (Z3 mode).
  bool AssumeNoSuppress = true; ///< __exit__ never suppresses.
  /// The raise tiers exactly-once explores at with-body instructions that
  /// do not raise by themselves (RaiseModel.h, docs/prove.md): a trace
  /// function's exception, the eval breaker's at back edges. On by default
  /// (the sound choice: CPython's compiler guards every with-body
  /// instruction); --no-assume=tracing / eval-breaker narrows it.
  bool TierTracing = true;
  bool TierEvalBreaker = true;
  uint64_t MaxPaths = 5'000; ///< Paths explored per property.
  /// The complexity budget of one result (its explorations together),
  /// counted, never timed: instructions its sides execute, and paths (or
  /// path pairs) held for exploration at once. Beyond either the result is
  /// unknown, naming the budget. They bound its memory: TermTable and steps
  /// grow with MaxSteps, the work lists with MaxStates (docs/prove-cli.md).
  uint64_t MaxSteps = 1'000'000;
  uint64_t MaxStates = 20'000;
  /// Who decides path feasibility (Solver.h): the same answers either way.
  smt::SolverMode Solver = smt::SolverMode::Literals;
};

/// One step of a path. Code is "original", "frame" or "resume:<i>".
struct ProofStep {
  std::string Code;
  uint32_t Offset = 0;
  std::string OpName;
  std::string Event; ///< e.g. "branch taken", "raises", "enter ctx#0".
  std::optional<int32_t> Line; ///< Source line, when the code has one.
};

struct Counterexample {
  std::vector<ProofStep> Eager;   ///< O from the resume offset (if any).
  std::vector<ProofStep> Emitted; ///< F, or R.
  /// Index of the first divergent step (into both lists: they are aligned
  /// step by step up to it).
  int32_t Divergence = 0;
  std::string Explanation;
};

/// What the proof says of one context finding `check` made on the target:
/// a possible finding (some merged paths) is upgraded to the result's
/// counterexample or discharged by its proof.
enum class FindingStatus {
  Confirmed,  ///< exactly-once refuted: the counterexample is a real path.
  Discharged, ///< exactly-once proved: no feasible path has the fault.
  Undecided,  ///< The proof reached no conclusion on exactly-once.
};
llvm::StringRef getFindingStatusName(FindingStatus S);

struct CheckedFinding {
  Diagnostic D;
  FindingStatus Status = FindingStatus::Undecided;
};

struct ProofResult {
  std::string File;
  std::string Target;    ///< "frame", "resume:<i>", or "original".
  std::string QualName;  ///< The target code object's co_qualname.
  int32_t FirstLine = 0; ///< Its co_firstlineno.
  Verdict V = Verdict::Unknown;
  std::string Reason;   ///< Why refuted or unknown ("" when proved).
  std::string Property; ///< The property that failed ("" when proved).
  std::optional<Counterexample> Cex;
  std::vector<Diagnostic> Findings; ///< The dataflow errors (well-formed).
  /// `check`'s context findings on the target (the ones exactly-once
  /// decides), each with what the proof made of it.
  std::vector<CheckedFinding> ContextFindings;
  std::vector<std::string> Assumptions;
  /// The properties an exploration concluded proved (every path covered, no
  /// violation, no limit): V is Proved only when each property the target
  /// needs is here, never by default.
  std::vector<std::string> ProvedProperties;
  double Seconds = 0;
  uint64_t RlimitUsed = 0;
  uint64_t Paths = 0;   ///< Paths (or path pairs) explored.
  uint64_t Queries = 0; ///< Solver queries made.
  uint64_t Steps = 0;   ///< Instructions executed (ProveOptions::MaxSteps).
  uint64_t States = 0;  ///< Most paths held at once (MaxStates).
};

/// Proves every emitted code object of \p B.
std::vector<ProofResult> proveBundle(const Bundle &B, const ProveOptions &O);

/// exactly-once for every code object of a plain file (Target "original",
/// "code:<index>" for nested ones).
std::vector<ProofResult> proveCodeFile(const CodeFile &F,
                                       const ProveOptions &O);

} // namespace pyverify

#endif
