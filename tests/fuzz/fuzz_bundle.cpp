//===- fuzz_bundle.cpp - Fuzz bundles through the checks and prover -------===//
//
// Input: any bytes, read as a .pvb bundle (parseBundle); the seeds are the
// rewriter's fixture bundles, correct and buggy (make_seeds.py). A bundle
// that loads goes through what `pyverify check` and `pyverify prove` do with
// it: verifyBundle() with every check, then proveBundle() with small limits
// (so that one execution stays in the milliseconds), then the three printers.
//
// Checks: a malformed bundle is an llvm::Error whose message names the key or
// the byte offset; proveBundle() gives one result for the frame (if any) and
// one per resume function, in order; a refuted result names its property and
// a reason, an unknown one its reason, a proved one neither; a
// counterexample's divergence lies within its paths; every result lists its
// assumptions; the JSON serialises to text that parses back to the same
// value, and so does the SARIF log; the text printer ends each result with
// a newline.
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"

#include "pyverify/Bytecode/Bundle.h"
#include "pyverify/Check/BundleVerifier.h"
#include "pyverify/Check/CheckOptions.h"
#include "pyverify/SMT/ProofPrinter.h"
#include "pyverify/SMT/Prover.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace pyverify;

namespace {

void checkResult(const ProofResult &R) {
  FUZZ_CHECK(!R.Target.empty(), "a result without a target");
  FUZZ_CHECK(!R.Assumptions.empty(), "%s: no assumptions listed",
             R.Target.c_str());
  switch (R.V) {
  case Verdict::Proved:
    FUZZ_CHECK(R.Property.empty() && !R.Cex, "%s: proved with property '%s'",
               R.Target.c_str(), R.Property.c_str());
    break;
  case Verdict::Refuted:
    FUZZ_CHECK(!R.Property.empty() && !R.Reason.empty(),
               "%s: refuted without property or reason", R.Target.c_str());
    break;
  case Verdict::Unknown:
    FUZZ_CHECK(!R.Reason.empty() && !R.Cex, "%s: unknown without a reason",
               R.Target.c_str());
    break;
  }
  if (R.Cex) {
    size_t Longest = std::max(R.Cex->Eager.size(), R.Cex->Emitted.size());
    FUZZ_CHECK(R.Cex->Divergence >= 0 &&
                   (Longest == 0 || size_t(R.Cex->Divergence) <= Longest),
               "%s: divergence %d outside paths of %zu steps", R.Target.c_str(),
               R.Cex->Divergence, Longest);
  }
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  printProofResult(OS, R);
  OS.flush();
  FUZZ_CHECK(!Text.empty() && Text.back() == '\n',
             "%s: text output does not end a line", R.Target.c_str());
  llvm::json::Value J(proofResultToJSON(R));
  std::string S = llvm::formatv("{0}", J);
  llvm::Expected<llvm::json::Value> Back = llvm::json::parse(S);
  if (!Back)
    llvm::consumeError(Back.takeError());
  FUZZ_CHECK(bool(Back), "%s: JSON does not parse back", R.Target.c_str());
  FUZZ_CHECK(*Back == J, "%s: JSON changes on a round trip", R.Target.c_str());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<Bundle> B = parseBundle("fuzz.pvb", Bytes);
  if (!B) {
    std::string Msg = llvm::toString(B.takeError());
    FUZZ_CHECK(!Msg.empty(), "an error without a message");
    return 0;
  }

  CheckOptions Checks;
  FileReport FR = verifyBundle(*B, Checks);
  (void)FR;

  ProveOptions O;
  O.Unroll = 1;
  O.MaxPaths = 64;
  // The same bounded prover as the CLI's, on a smaller budget: an
  // exception-table cycle (regressions/handler-cycle-slow-prove.pvb) runs
  // into it in about 10 ms instead of the CLI's 1,000,000 steps.
  O.MaxSteps = 20'000;
  O.MaxStates = 1'000;
  O.Rlimit = 20'000;
  O.TimeoutMs = 200;
  std::vector<ProofResult> Results = proveBundle(*B, O);
  size_t Expected = (B->Frame ? 1 : 0) + B->Resumes.size();
  if (Expected == 0)
    Expected = Results.size(); // exactly-once on the original's code objects
  FUZZ_CHECK(Results.size() == Expected,
             "%zu results for a frame and %zu resume function(s)",
             Results.size(), B->Resumes.size());
  size_t Next = 0;
  if (B->Frame) {
    FUZZ_CHECK(Results[0].Target == "frame", "first result is '%s'",
               Results[0].Target.c_str());
    Next = 1;
  }
  for (size_t I = 0; I < B->Resumes.size(); ++I)
    FUZZ_CHECK(Results[Next + I].Target == "resume:" + std::to_string(I),
               "result %zu is '%s'", Next + I,
               Results[Next + I].Target.c_str());
  for (const ProofResult &R : Results)
    checkResult(R);
  llvm::json::Value Sarif = proofResultsToSARIF(Results, "fuzz");
  std::string SarifText = llvm::formatv("{0}", Sarif);
  llvm::Expected<llvm::json::Value> SarifBack = llvm::json::parse(SarifText);
  if (!SarifBack)
    llvm::consumeError(SarifBack.takeError());
  FUZZ_CHECK(bool(SarifBack), "SARIF output does not parse back");
  return 0;
}
