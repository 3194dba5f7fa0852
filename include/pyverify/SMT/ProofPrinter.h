//===- ProofPrinter.h - Text, JSON and SARIF output of proofs ---*- C++ -*-===//
//
// Contract: the three renderings of ProofResults (Prover.h), all
// deterministic -- the same results give the same bytes, whatever the thread
// or the run (the text never shows timing; JSON carries "seconds" only as a
// value of its own key):
//
//  * printProofResult(): one block per result --
//      FILE: [TARGET] proved
//      FILE: [TARGET] refuted: PROPERTY: REASON
//        in QUALNAME (line FIRSTLINE)
//        assuming: A1; A2
//        eager (original from 24)  emitted (resume:0)
//          24 CALL [returns]        0 RESUME
//      >>  32 LOAD_FAST             8 LOAD_CONST
//        first divergence: EXPLANATION
//         110 CALL [exit ctx#0]    40 CALL [exit ctx#0]
//        FILE: error: ... [check-id]        (the findings, indented)
//    The assumptions line is left out when there are none; with an
//    AssumptionLegend (one per run) it reads "assuming: [1] [2] [5]" and
//    each assumption's text is printed once, "  [5] TEXT", under the first
//    result that rests on it. The columns are
//    the two step lists aligned by index, each cell "OFFSET OPNAME [EVENT]
//    (line N)" (a missing step prints blank); the row at the divergence index
//    is marked ">>" and followed by the explanation (printed after the table
//    when the index is past both lists).
//  * proofResultToJSON(): the `pyverify prove --format=json` item
//    (docs/prove-cli.md): file, target, verdict, reason / property (null when
//    empty), counterexample (null, or eager / emitted step lists, divergence
//    and explanation), seconds, rlimit_used, assumptions, paths, queries,
//    steps, states.
//  * proofResultsToSARIF(): a SARIF 2.1.0 log with one run, a rule per
//    property (well-formed, exactly-once, matches-eager, unknown, then any
//    other property in order of first appearance) and a result per refuted
//    (level error) or unknown (level warning) ProofResult; a counterexample
//    becomes a codeFlow whose threadFlows are the emitted path ("emitted",
//    first) and the eager one ("eager"), each left out when empty.
//
// Nothing here talks to Z3 or prints anywhere but the stream it is given.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SMT_PROOFPRINTER_H
#define PYVERIFY_SMT_PROOFPRINTER_H

#include "pyverify/SMT/Prover.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <utility>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace pyverify {

/// The assumptions of one run, numbered from 1 in order of first use.
class AssumptionLegend {
public:
  /// The number of \p A, and whether this is its first use.
  std::pair<size_t, bool> number(const std::string &A);
  const std::vector<std::string> &all() const { return Seen; }

private:
  std::vector<std::string> Seen;
};

void printProofResult(llvm::raw_ostream &OS, const ProofResult &R,
                      AssumptionLegend *Legend = nullptr);
llvm::json::Object proofResultToJSON(const ProofResult &R);
llvm::json::Value proofResultsToSARIF(llvm::ArrayRef<ProofResult> Results,
                                      llvm::StringRef ToolVersion);

} // namespace pyverify

#endif
