//===- ProofPrinterTest.cpp - pyverify/SMT/ProofPrinter.h -----------------===//
//
// The three renderings of ProofResults built by hand (no prover involved):
// the text is asserted verbatim -- it is what `pyverify prove` prints -- and
// the JSON and SARIF are checked key by key against docs/prove-cli.md.
//
//===----------------------------------------------------------------------===//

#include "pyverify/SMT/ProofPrinter.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>

using namespace pyverify;

namespace {

ProofStep step(const char *Code, uint32_t Offset, const char *Op,
               const char *Event = "") {
  return ProofStep{Code, Offset, Op, Event};
}

ProofResult refutedMatchesEager() {
  ProofResult R;
  R.File = "b.pvb";
  R.Target = "resume:0";
  R.V = Verdict::Refuted;
  R.Property = "matches-eager";
  R.Reason = "the resume function exits ctx#0 twice";
  R.Assumptions = {"__exit__ never suppresses", "unroll 2"};
  Counterexample C;
  C.Eager = {step("original", 24, "CALL", "returns"),
             step("original", 32, "LOAD_FAST"),
             step("original", 110, "CALL", "exit ctx#0")};
  C.Emitted = {step("resume:0", 0, "RESUME"), step("resume:0", 8, "LOAD_FAST"),
               step("resume:0", 40, "CALL", "exit ctx#0"),
               step("resume:0", 52, "CALL", "exit ctx#0")};
  C.Divergence = 3;
  C.Explanation = "the original returns; the resume function exits ctx#0 "
                  "again";
  R.Cex = std::move(C);
  R.Seconds = 0.25;
  R.RlimitUsed = 1234;
  R.Paths = 3;
  R.Queries = 7;
  return R;
}

std::string text(const ProofResult &R) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printProofResult(OS, R);
  return OS.str();
}

TEST(ProofPrinterTest, ProvedIsOneLinePlusAssumptions) {
  ProofResult R;
  R.File = "b.pvb";
  R.Target = "frame";
  R.V = Verdict::Proved;
  R.Seconds = 1.5; // never printed in text
  EXPECT_EQ(text(R), "b.pvb: [frame] proved\n");
  R.Assumptions = {"__exit__ never suppresses"};
  EXPECT_EQ(text(R), "b.pvb: [frame] proved\n"
                     "  assuming: __exit__ never suppresses\n");
}

TEST(ProofPrinterTest, UnknownShowsReason) {
  ProofResult R;
  R.File = "b.pvb";
  R.Target = "resume:1";
  R.V = Verdict::Unknown;
  R.Property = "exactly-once";
  R.Reason = "the unroll bound cut a path";
  EXPECT_EQ(text(R), "b.pvb: [resume:1] unknown: exactly-once: the unroll "
                     "bound cut a path\n");
  R.Property.clear();
  EXPECT_EQ(text(R),
            "b.pvb: [resume:1] unknown: the unroll bound cut a path\n");
}

TEST(ProofPrinterTest, CounterexampleColumnsAndDivergence) {
  EXPECT_EQ(text(refutedMatchesEager()),
            "b.pvb: [resume:0] refuted: matches-eager: the resume function "
            "exits ctx#0 twice\n"
            "  assuming: __exit__ never suppresses; unroll 2\n"
            "  eager (original from 24)  emitted (resume:0)\n"
            "    24 CALL [returns]        0 RESUME\n"
            "    32 LOAD_FAST             8 LOAD_FAST\n"
            "   110 CALL [exit ctx#0]    40 CALL [exit ctx#0]\n"
            ">>                          52 CALL [exit ctx#0]\n"
            "  first divergence: the original returns; the resume function "
            "exits ctx#0 again\n");
}

TEST(ProofPrinterTest, DivergenceMidTableAndPastTheEnd) {
  ProofResult R = refutedMatchesEager();
  R.Assumptions.clear();
  R.Cex->Divergence = 1;
  EXPECT_EQ(text(R),
            "b.pvb: [resume:0] refuted: matches-eager: the resume function "
            "exits ctx#0 twice\n"
            "  eager (original from 24)  emitted (resume:0)\n"
            "    24 CALL [returns]        0 RESUME\n"
            ">>  32 LOAD_FAST             8 LOAD_FAST\n"
            "  first divergence: the original returns; the resume function "
            "exits ctx#0 again\n"
            "   110 CALL [exit ctx#0]    40 CALL [exit ctx#0]\n"
            "                            52 CALL [exit ctx#0]\n");
  R.Cex->Eager.clear();
  R.Cex->Emitted.resize(1);
  R.Cex->Divergence = 5;
  R.Cex->Explanation = "x";
  EXPECT_EQ(text(R), "b.pvb: [resume:0] refuted: matches-eager: the resume "
                     "function exits ctx#0 twice\n"
                     "  eager (original)  emitted (resume:0)\n"
                     "                    0 RESUME\n"
                     "  first divergence: x\n");
}

TEST(ProofPrinterTest, WellFormedFindingsAreIndented) {
  ProofResult R;
  R.File = "b.pvb";
  R.Target = "frame";
  R.V = Verdict::Refuted;
  R.Property = "well-formed";
  R.Reason = "1 dataflow error";
  Diagnostic D;
  D.Check = CheckId::StacksizeTooSmall;
  D.Sev = Severity::Error;
  D.File = "b.pvb";
  D.QualName = "f";
  D.Target = "frame";
  D.FirstLineNo = 3;
  D.Offset = 4;
  D.Line = 4;
  D.Col = 0;
  D.Instruction = "LOAD_FAST 0";
  D.Message = "the stack reaches depth 2";
  R.Findings.push_back(D);
  EXPECT_EQ(text(R), "b.pvb: [frame] refuted: well-formed: 1 dataflow error\n"
                     "  b.pvb:4:1: error: the stack reaches depth 2 "
                     "[stacksize-too-small]\n"
                     "    in [frame] f (line 3) at offset 4: LOAD_FAST 0\n");
}

TEST(ProofPrinterTest, JSONContract) {
  llvm::json::Value V(proofResultToJSON(refutedMatchesEager()));
  const llvm::json::Object &O = *V.getAsObject();
  EXPECT_EQ(O.getString("file"), llvm::StringRef("b.pvb"));
  EXPECT_EQ(O.getString("target"), llvm::StringRef("resume:0"));
  EXPECT_EQ(O.getString("verdict"), llvm::StringRef("refuted"));
  EXPECT_EQ(O.getString("property"), llvm::StringRef("matches-eager"));
  EXPECT_EQ(O.getNumber("seconds"), 0.25);
  EXPECT_EQ(O.getInteger("rlimit_used"), int64_t(1234));
  EXPECT_EQ(O.getInteger("paths"), int64_t(3));
  EXPECT_EQ(O.getInteger("queries"), int64_t(7));
  ASSERT_TRUE(O.getArray("assumptions"));
  EXPECT_EQ(O.getArray("assumptions")->size(), 2u);
  const llvm::json::Object *C = O.getObject("counterexample");
  ASSERT_TRUE(C);
  EXPECT_EQ(C->getInteger("divergence"), int64_t(3));
  EXPECT_TRUE(C->getString("explanation"));
  ASSERT_EQ(C->getArray("eager")->size(), 3u);
  ASSERT_EQ(C->getArray("emitted")->size(), 4u);
  const llvm::json::Object &S0 = *(*C->getArray("eager"))[0].getAsObject();
  EXPECT_EQ(S0.getString("code"), llvm::StringRef("original"));
  EXPECT_EQ(S0.getInteger("offset"), int64_t(24));
  EXPECT_EQ(S0.getString("opname"), llvm::StringRef("CALL"));
  EXPECT_EQ(S0.getString("event"), llvm::StringRef("returns"));
  const llvm::json::Object &S1 = *(*C->getArray("eager"))[1].getAsObject();
  EXPECT_TRUE(S1.get("event")->getAsNull());

  ProofResult P;
  P.File = "b.pvb";
  P.Target = "frame";
  P.V = Verdict::Proved;
  llvm::json::Value PV(proofResultToJSON(P));
  const llvm::json::Object &PO = *PV.getAsObject();
  EXPECT_TRUE(PO.get("reason")->getAsNull());
  EXPECT_TRUE(PO.get("property")->getAsNull());
  EXPECT_TRUE(PO.get("counterexample")->getAsNull());
  EXPECT_EQ(PO.getString("verdict"), llvm::StringRef("proved"));
  // Exactly the contract's keys plus the documented extras.
  std::vector<std::string> Keys;
  for (const auto &KV : PO)
    Keys.push_back(KV.first.str());
  llvm::sort(Keys);
  EXPECT_EQ(Keys, (std::vector<std::string>{
                      "assumptions", "check_findings", "code", "counterexample",
                      "file", "line", "paths", "property", "queries", "reason",
                      "rlimit_used", "seconds", "states", "steps", "target",
                      "verdict"}));
  // No qualified name: "code" is null (the Target still names the result).
  EXPECT_TRUE(PO.get("code")->getAsNull());
}

TEST(ProofPrinterTest, SARIF) {
  ProofResult Proved;
  Proved.File = "a.pvb";
  Proved.Target = "frame";
  Proved.V = Verdict::Proved;
  ProofResult Unknown;
  Unknown.File = "a.pvb";
  Unknown.Target = "resume:0";
  Unknown.V = Verdict::Unknown;
  Unknown.Reason = "solver limit";
  std::vector<ProofResult> Rs = {Proved, Unknown, refutedMatchesEager()};
  llvm::json::Value Log = proofResultsToSARIF(Rs, "9.9");
  const llvm::json::Object &Run =
      *(*Log.getAsObject()->getArray("runs"))[0].getAsObject();
  const llvm::json::Array &Rules =
      *Run.getObject("tool")->getObject("driver")->getArray("rules");
  ASSERT_EQ(Rules.size(), 4u);
  EXPECT_EQ(Rules[0].getAsObject()->getString("id"),
            llvm::StringRef("well-formed"));
  EXPECT_EQ(Rules[3].getAsObject()->getString("id"),
            llvm::StringRef("unknown"));
  const llvm::json::Array &Results = *Run.getArray("results");
  ASSERT_EQ(Results.size(), 2u); // proved results are not reported
  const llvm::json::Object &U = *Results[0].getAsObject();
  EXPECT_EQ(U.getString("ruleId"), llvm::StringRef("unknown"));
  EXPECT_EQ(U.getInteger("ruleIndex"), int64_t(3));
  EXPECT_EQ(U.getString("level"), llvm::StringRef("warning"));
  EXPECT_EQ(U.getObject("message")->getString("text"),
            llvm::StringRef("solver limit"));
  const llvm::json::Object &E = *Results[1].getAsObject();
  EXPECT_EQ(E.getString("ruleId"), llvm::StringRef("matches-eager"));
  EXPECT_EQ(E.getInteger("ruleIndex"), int64_t(2));
  EXPECT_EQ(E.getString("level"), llvm::StringRef("error"));
  const llvm::json::Object &Flow = *(*E.getArray("codeFlows"))[0].getAsObject();
  const llvm::json::Object &Thread =
      *(*Flow.getArray("threadFlows"))[0].getAsObject();
  EXPECT_EQ(Thread.getString("id"), llvm::StringRef("emitted"));
  const llvm::json::Array &Locs = *Thread.getArray("locations");
  ASSERT_EQ(Locs.size(), 4u);
  EXPECT_EQ(Locs[3].getAsObject()->getString("importance"),
            llvm::StringRef("essential"));
  EXPECT_EQ(Locs[3]
                .getAsObject()
                ->getObject("location")
                ->getObject("message")
                ->getString("text"),
            llvm::StringRef("52 CALL [exit ctx#0]"));
}

TEST(ProofPrinterTest, Deterministic) {
  ProofResult R = refutedMatchesEager();
  std::string First = text(R);
  std::string FirstJSON;
  llvm::raw_string_ostream(FirstJSON)
      << llvm::json::Value(proofResultToJSON(R));
  for (int I = 0; I < 5; ++I) {
    EXPECT_EQ(text(R), First);
    std::string J;
    llvm::raw_string_ostream(J) << llvm::json::Value(proofResultToJSON(R));
    EXPECT_EQ(J, FirstJSON);
  }
}

} // namespace
