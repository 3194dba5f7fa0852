//===- Prover.cpp - Translation validation of emitted code ----------------===//
//
// The driver (docs/prove.md): for each emitted code object of a bundle, the
// properties it needs, each decided by one exploration and concluded in
// Verdicts.cpp. The pieces, one idea each (all private to lib/SMT):
//
//   SymbolicFrame   one code object run on symbolic values (Side);
//   FrameContexts   its context events; LoopBound its back edges;
//   Environment     the globals a rewriter installs (Environment.def);
//   PathExplorer    feasibility (Solver.h), statistics, counterexamples;
//   ExactlyOnce     every path of one code object;
//   MatchesEager    the resume function against the original;
//   ResumeEntry     where the resume function takes over;
//   Verdicts        how a result is concluded.
//
//===----------------------------------------------------------------------===//

#include "pyverify/SMT/Prover.h"
#include "ExactlyOnce.h"
#include "MatchesEager.h"

#include "ReplayPath.h"
#include "ResumeEntry.h"
#include "Verdicts.h"
#include "llvm/Support/FormatVariadic.h"

#include "pyverify/Analysis/ContextBalance.h"
#include "pyverify/Check/BreakLocation.h"
#include "pyverify/Check/BundleVerifier.h"

#include <chrono>

using namespace pyverify;
using namespace pyverify::smt;
using namespace pyverify::smt::prover;

llvm::StringRef pyverify::getVerdictName(Verdict V) {
  switch (V) {
  case Verdict::Proved:
    return "proved";
  case Verdict::Refuted:
    return "refuted";
  case Verdict::Unknown:
    return "unknown";
  }
  return "unknown";
}

llvm::StringRef pyverify::getFindingStatusName(FindingStatus S) {
  switch (S) {
  case FindingStatus::Confirmed:
    return "confirmed";
  case FindingStatus::Discharged:
    return "discharged";
  case FindingStatus::Undecided:
    return "undecided";
  }
  return "undecided";
}

namespace {

CodeInfo makeInfo(std::string Name, const CodeObject &Code,
                  CodeRole Role = CodeRole::Plain) {
  CodeInfo C;
  C.Name = std::move(Name);
  C.Code = &Code;
  C.Role = Role;
  ContextBalanceOptions Opts;
  Opts.Role = Role;
  C.Analysis = std::make_unique<CodeAnalysis>(Code, Opts);
  return C;
}

std::vector<CtxKind> toCtxKinds(llvm::ArrayRef<ContextKind> Ks) {
  std::vector<CtxKind> Out;
  for (ContextKind K : Ks)
    Out.push_back(K == ContextKind::Mode ? CtxKind::Mode : CtxKind::With);
  return Out;
}

/// One proof: its result, solver and clock.
struct Proof {
  ProofResult R;
  TermTable Terms;
  Budget Bud;
  PathSolver S;
  std::chrono::steady_clock::time_point T0 = std::chrono::steady_clock::now();

  Proof(const ProveOptions &O, llvm::StringRef File, const CodeInfo &C)
      : Bud{O.MaxSteps, O.MaxStates},
        S(Terms, O.Rlimit, O.TimeoutMs, O.Solver) {
    R.File = File.str();
    R.Target = C.Name;
    R.QualName = C.Code->QualName;
    R.FirstLine = C.Code->FirstLineNo;
  }

  /// well-formed: refuted by any dataflow error; unknown when the only
  /// errors say that checks did not run (checks-not-run, analysis-limit: a
  /// check that did not run refutes nothing and proves nothing). Returns
  /// whether it holds.
  bool wellFormed(const CodeInfo &C, llvm::StringRef File) {
    R.Findings = wellFormedErrors(C, File, &R.ContextFindings);
    if (R.Findings.empty())
      return true;
    R.Property = "well-formed";
    auto Violation = [](const Diagnostic &D) { return D.NotRun.empty(); };
    auto First = llvm::find_if(R.Findings, Violation);
    if (First == R.Findings.end()) {
      R.V = Verdict::Unknown;
      R.Reason =
          llvm::formatv("checks did not run ({0} finding(s)), first: {1} [{2}]",
                        R.Findings.size(), R.Findings[0].Message,
                        getCheckName(R.Findings[0].Check));
      return false;
    }
    R.V = Verdict::Refuted;
    R.Reason = llvm::formatv("{0} dataflow error(s), first: {1} [{2}]",
                             llvm::count_if(R.Findings, Violation),
                             First->Message, getCheckName(First->Check));
    return false;
  }

  ProofResult finish(std::initializer_list<llvm::StringRef> Required) {
    decide(R, Required);
    settleContextFindings(R);
    R.RlimitUsed = S.rlimitUsed();
    R.Steps = Bud.Steps;
    R.States = Bud.PeakStates;
    R.Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
            .count();
    return std::move(R);
  }
};

/// What a frame passes its resume functions (FrameHandOff), when every
/// path of the frame was explored; else why not.
struct FrameHandOffs {
  std::map<uint32_t, HandOff> ByOffset;
  std::string Why; ///< Empty when ByOffset covers every path.
};

/// exactly-once (and, for a frame, the break check) on one code object;
/// a frame's hand-over to its resume functions goes to \p Out.
void exactlyOnce(const ProveOptions &O, CodeInfo &C, Proof &P,
                 const std::vector<ProofStep> &Eager, int64_t BreakIndex,
                 FrameHandOffs *Out = nullptr) {
  Feasibility F{P.S, "feasible:" + C.Name + ":exactly-once"};
  SingleExplorer X{O, F, {}, {}, {}};
  Side Start(C, P.Terms, P.Bud);
  Start.CurrentSuppress = !O.AssumeNoSuppress;
  Start.TierTracing = O.TierTracing;
  Start.TierEvalBreaker = O.TierEvalBreaker;
  Start.bindParameters();
  Start.BreakIndex = BreakIndex;
  X.run(std::move(Start));
  P.R.Paths += X.Stats.Paths;
  P.R.Queries += F.Count;
  if (Out) {
    Out->ByOffset = std::move(X.HandOffs);
    if (X.Stats.Limit)
      Out->Why = "not every path of the frame was explored (path limit)";
    else if (!X.Stats.OverBudget.empty())
      Out->Why = "not every path of the frame was explored (" +
                 X.Stats.OverBudget + ")";
    else if (X.Stats.Cut)
      Out->Why = "a path of the frame was cut (" + X.Stats.CutWhy + ")";
    else if (F.Unknown)
      Out->Why = "the solver could not decide a path of the frame";
  }
  // check's findings at an offset where a path violates exactly-once are
  // confirmed by that path (the rest are settled with the verdict).
  for (CheckedFinding &CF : P.R.ContextFindings)
    if (CF.D.Target == C.Name && llvm::is_contained(X.ViolationAt, CF.D.Offset))
      CF.Status = FindingStatus::Confirmed;
  std::optional<Counterexample> Cex, ApproxCex;
  std::string Prop = "exactly-once", ApproxWhy;
  auto CexOf = [&](const Side &W) {
    return singleCex(W, W.Bad->Property == "matches-eager"
                            ? Eager
                            : std::vector<ProofStep>{});
  };
  if (X.Worst) {
    Prop = X.Worst->Bad->Property;
    Cex = CexOf(*X.Worst);
  } else if (X.WorstApprox) {
    Prop = X.WorstApprox->Bad->Property;
    ApproxCex = CexOf(*X.WorstApprox);
    ApproxWhy = X.WorstApprox->Approximations.front();
  }
  conclude(P.R, X.Stats, F, std::move(Cex), Prop, std::move(ApproxCex),
           ApproxWhy);
}

/// A well-formed refutation whose every dataflow error is safe to run
/// (ReplayPath.h) gets exactly-once's counterexample as its path when that
/// path raises at one of the errors: its replay runs it. The verdict, the
/// property and the reason stay those of well-formed.
void pathThroughSafeErrors(const ProveOptions &O, CodeInfo &C, Proof &P) {
  if (P.R.V != Verdict::Refuted || !runsSafely(P.R.Findings, C.D()))
    return;
  // The raise tiers off: the path wanted raises at the error by itself, not
  // through a trace function's raise somewhere before it.
  ProveOptions NoTiers = O;
  NoTiers.TierTracing = NoTiers.TierEvalBreaker = false;
  Proof Q(NoTiers, P.R.File, C);
  exactlyOnce(NoTiers, C, Q, {}, -1);
  P.R.Paths += Q.R.Paths;
  P.R.Queries += Q.R.Queries;
  if (Q.R.V == Verdict::Refuted && Q.R.Cex &&
      raisesAtFinding(*Q.R.Cex, P.R.Findings, C.D(), C.Name))
    P.R.Cex = std::move(Q.R.Cex);
}

struct BundleProver {
  const Bundle &B;
  const ProveOptions &O;
  CodeInfo Orig;
  bool OrigOk;
  std::vector<ContextKind> FrameKinds;
  /// What the frame passes its resume functions (frame() fills it).
  FrameHandOffs HandOffs{{}, "the bundle has no frame"};

  BundleProver(const Bundle &B, const ProveOptions &O)
      : B(B), O(O), Orig(makeInfo("original", *B.Original)),
        OrigOk(wellFormedErrors(Orig, B.Path).empty()) {
    if (!B.Resumes.empty())
      for (const BundleContext &Cx : B.Resumes[0].Contexts)
        FrameKinds.push_back(Cx.Kind);
  }

  ProofResult frame();
  ProofResult resume(size_t RI);
  /// Rc's parameters: what the frame passes for each (HandedBits).
  void handedTo(CodeInfo &Rc, const BundleResume &Res) const;
  ProofResult originalOnly();
  /// matches-eager of the resume function \p Rc, after exactly-once.
  void matchesEager(CodeInfo &Rc, const BundleResume &Res, Proof &P);
};

ProofResult BundleProver::frame() {
  CodeInfo Fr = makeInfo("frame", *B.Frame, CodeRole::Emitted);
  Fr.IsFrame = true;
  Fr.ClaimedKinds = FrameKinds;
  Proof P(O, B.Path, Fr);
  P.R.Assumptions = assumptions(O, false, {&Fr.D()});
  if (llvm::is_contained(FrameKinds, ContextKind::Mode))
    P.R.Assumptions.push_back(
        "the frame's wrapper code while modes are replayed (context "
        "constructors before the break instruction, __enter__ and "
        "__exit__ calls) does not raise, by itself or through a trace "
        "function or the eval breaker (its contexts are explicit enters and "
        "replayed modes, not with statements)");
  HandOffs.Why = "the frame is not well-formed, or checks did not run on it";
  if (!P.wellFormed(Fr, B.Path)) {
    pathThroughSafeErrors(O, Fr, P);
    return P.finish({"exactly-once"});
  }
  HandOffs.Why.clear();
  int64_t BreakIndex = -1;
  std::string BreakWhy;
  std::vector<ProofStep> Eager;
  int64_t OI = Orig.D().Insts.indexAtStart(B.BreakOffset);
  if (OI >= 0 && OrigOk) {
    BreakLocation Loc =
        locateFrameBreak(Fr.D(), Orig.D(), OI, B.FrameBreakOffset);
    BreakIndex = Loc.Index;
    BreakWhy = Loc.Why;
    auto Active = activeWithContexts(*Orig.Analysis, B.BreakOffset);
    if (!Active) {
      llvm::consumeError(Active.takeError());
    } else if (BreakIndex >= 0) {
      std::vector<ContextKind> Ks;
      for (size_t K = 0; K < Active->size(); ++K)
        Ks.push_back(K < FrameKinds.size() &&
                             Active->size() == FrameKinds.size()
                         ? FrameKinds[K]
                         : ContextKind::With);
      Fr.ExpectedAtBreak = toCtxKinds(Ks);
      const Instruction &OB = Orig.D().Insts[OI];
      Eager.push_back({"original", OB.Offset, OB.name().str(),
                       "break instruction; active " + kindsText(Ks)});
    }
    // Without the break instruction only exactly-once is checked.
  }
  exactlyOnce(O, Fr, P, Eager, BreakIndex, &HandOffs);
  if (P.R.V != Verdict::Refuted && BreakIndex < 0 && OrigOk) {
    P.R.V = Verdict::Unknown;
    P.R.Property = "matches-eager";
    P.R.Reason = "cannot locate the break instruction in the frame: " +
                 (BreakWhy.empty() ? std::string("break_offset is not an "
                                                 "instruction of the original")
                                   : BreakWhy);
  }
  return P.finish({"exactly-once"});
}

void BundleProver::matchesEager(CodeInfo &Rc, const BundleResume &Res,
                                Proof &P) {
  auto Unknown = [&](std::string Why) {
    P.R.V = Verdict::Unknown;
    P.R.Property = "matches-eager";
    P.R.Reason = std::move(Why);
  };
  int64_t OI = Orig.D().Insts.indexAtStart(Res.OriginalOffset);
  Orig.ClaimedKinds = Rc.ClaimedKinds;
  if (!OrigOk)
    return Unknown("the original is not well-formed, or checks did not run "
                   "on it");
  if (OI < 0)
    return Unknown("original_offset is not an instruction start");
  Side B2(Rc, P.Terms, P.Bud);
  B2.CurrentSuppress = !O.AssumeNoSuppress;
  B2.bindParameters();
  if (std::string Why = runResumePrologue(B2, O.Unroll); !Why.empty())
    return Unknown(Why);
  // O at original_offset with the resume function's values.
  Side A(Orig, P.Terms, P.Bud);
  A.CurrentSuppress = !O.AssumeNoSuppress;
  if (std::string Why = startOriginalAt(A, B, OI, B2, Rc.ClaimedKinds);
      !Why.empty())
    return Unknown(Why);
  // The body must start with the original's instruction at p.
  std::string DA = A.syncDesc(), DB = B2.syncDesc();
  Feasibility F{P.S, "feasible:" + Rc.Name + ":matches-eager"};
  // Values computed from here on are stamped from 0 on both sides.
  A.Ordinal = B2.Ordinal = 0;
  if (DA != DB) {
    Counterexample C;
    C.Eager.push_back({"original", A.inst().Offset, A.inst().name().str(), ""});
    C.Emitted.push_back(
        {Rc.Name, B2.inst().Offset, B2.inst().name().str(), ""});
    C.Explanation = "the resume body does not start with the original's "
                    "instruction at original_offset: " +
                    DA + " vs " + DB;
    conclude(P.R, {}, F, std::move(C), "matches-eager");
    return;
  }
  B2.Steps.clear();
  PairExplorer X{O, F, {}, {}, {}, {}};
  X.run(std::move(A), std::move(B2));
  P.R.Paths += X.Stats.Paths;
  P.R.Queries += F.Count;
  conclude(P.R, X.Stats, F, std::move(X.Best), "matches-eager",
           std::move(X.BestApprox), X.ApproxWhy);
}

void BundleProver::handedTo(CodeInfo &Rc, const BundleResume &Res) const {
  const CodeObject &Co = *Res.Code;
  size_t NParams = size_t(Co.ArgCount + Co.KwOnlyArgCount) +
                   ((Co.Flags & CoVarArgs) ? 1 : 0) +
                   ((Co.Flags & CoVarKeywords) ? 1 : 0);
  NParams = std::min(NParams, Co.LocalsPlusNames.size());
  Rc.ParamHanded.assign(NParams, HandedUntraced);
  Rc.ParamHandedText.assign(NParams, "");
  if (!HandOffs.Why.empty()) {
    Rc.HandedWhy = HandOffs.Why;
    return;
  }
  auto It = HandOffs.ByOffset.find(Res.OriginalOffset);
  if (It == HandOffs.ByOffset.end()) {
    Rc.HandedWhy = "no path of the frame calls the resume function for "
                   "original_offset " +
                   std::to_string(Res.OriginalOffset);
    return;
  }
  const HandOff &H = It->second;
  // Positional arguments, in order (the frame's CALL passes no keywords).
  for (size_t K = 0; K < NParams && K < H.Bits.size(); ++K) {
    Rc.ParamHanded[K] = H.Bits[K];
    Rc.ParamHandedText[K] = H.Text[K];
  }
  Rc.HandedWhy = "the frame's resume call passes fewer arguments than the "
                 "resume function has parameters";
}

ProofResult BundleProver::resume(size_t RI) {
  const BundleResume &Res = B.Resumes[RI];
  CodeInfo Rc =
      makeInfo("resume:" + std::to_string(RI), *Res.Code, CodeRole::Emitted);
  Rc.IsResume = true;
  for (const BundleContext &Cx : Res.Contexts)
    Rc.ClaimedKinds.push_back(Cx.Kind);
  handedTo(Rc, Res);
  Proof P(O, B.Path, Rc);
  P.R.Assumptions = assumptions(O, true, {&Rc.D(), &Orig.D()});
  if (!P.wellFormed(Rc, B.Path)) {
    pathThroughSafeErrors(O, Rc, P);
    return P.finish({"exactly-once", "matches-eager"});
  }
  exactlyOnce(O, Rc, P, {}, -1);
  // Over budget, matches-eager would only stop at once and hide which
  // property ran out.
  if (P.R.V != Verdict::Refuted && !P.Bud.exceeded())
    matchesEager(Rc, Res, P);
  return P.finish({"exactly-once", "matches-eager"});
}

/// Whether plain code \p D delegates or forwards a context
/// (docs/context-balance.md): an explicit __enter__ / __exit__ load that is
/// no context event.
static bool delegates(const DecodedCode &D) {
  for (uint32_t K = 0; K < D.Insts.size(); ++K) {
    const Instruction &I = D.Insts[K];
    if (!I.Valid)
      continue;
    for (const MicroOp &Op : lowerInstruction(I)) {
      std::optional<uint32_t> Name;
      if (const auto *A = std::get_if<uop::LoadAttr>(&Op))
        Name = A->Name;
      else if (const auto *M = std::get_if<uop::LoadMethod>(&Op))
        Name = M->Name;
      if (Name && *Name < D.Code->Names.size() &&
          (D.Code->Names[*Name] == "__enter__" ||
           D.Code->Names[*Name] == "__exit__") &&
          !isTrackedManagerAttribute(D, K, CodeRole::Plain))
        return true;
    }
  }
  return false;
}

ProofResult BundleProver::originalOnly() {
  Proof P(O, B.Path, Orig);
  P.R.Assumptions = assumptions(O, false, {&Orig.D()});
  if (delegates(Orig.D()))
    P.R.Assumptions.push_back(
        "an explicit __enter__ or __exit__ call on anything but a local "
        "whose __enter__ and __exit__ this code both calls is delegation or "
        "forwarding: that context is the caller's, not this code object's");
  if (P.wellFormed(Orig, B.Path))
    exactlyOnce(O, Orig, P, {}, -1);
  else
    pathThroughSafeErrors(O, Orig, P);
  return P.finish({"exactly-once"});
}

} // namespace

/// One unknown result per target proveBundle() would prove.
static std::vector<ProofResult>
mixedVersions(const Bundle &B, PythonVersion Ref, PythonVersion V) {
  std::vector<ProofResult> Out;
  auto Add = [&](const CodeObject &C, std::string Target) {
    ProofResult R;
    R.File = B.Path;
    R.Target = std::move(Target);
    R.QualName = C.QualName;
    R.FirstLine = C.FirstLineNo;
    R.V = Verdict::Unknown;
    R.Property = "exactly-once";
    R.Reason = llvm::formatv("the bundle mixes CPython {0} and {1} code "
                             "objects: one interpreter runs them all",
                             pythonVersionName(Ref), pythonVersionName(V))
                   .str();
    Out.push_back(std::move(R));
  };
  if (B.Frame)
    Add(*B.Frame, "frame");
  for (size_t RI = 0; RI < B.Resumes.size(); ++RI)
    Add(*B.Resumes[RI].Code, "resume:" + std::to_string(RI));
  if (!B.Frame && B.Resumes.empty())
    Add(*B.Original, "original");
  return Out;
}

std::vector<ProofResult> pyverify::proveBundle(const Bundle &B,
                                               const ProveOptions &O) {
  // Every code object's own version, not only the bundle's (a bundle built
  // through the API need not say).
  PythonVersion Ref = B.Original ? B.Original->Version : B.Version;
  for (const CodeObject *C : {B.Original.get(), B.Frame.get()})
    if (C && C->Version != Ref)
      return mixedVersions(B, Ref, C->Version);
  for (const BundleResume &R : B.Resumes)
    if (R.Code->Version != Ref)
      return mixedVersions(B, Ref, R.Code->Version);
  std::vector<ProofResult> Out;
  BundleProver P(B, O);
  if (B.Frame)
    Out.push_back(P.frame());
  for (size_t RI = 0; RI < B.Resumes.size(); ++RI)
    Out.push_back(P.resume(RI));
  // A bundle with neither frame nor resumes: exactly-once on the original.
  if (!B.Frame && B.Resumes.empty())
    Out.push_back(P.originalOnly());
  return Out;
}
std::vector<ProofResult> pyverify::proveCodeFile(const CodeFile &F,
                                                 const ProveOptions &O) {
  std::vector<ProofResult> Out;
  uint32_t Index = 0;
  CodeObjectWalk Walk;
  for (const auto &Root : F.Roots)
    Walk.visit(*Root, [&](const CodeObject &C, unsigned) {
      Bundle B;
      B.Path = F.Path;
      B.Version = C.Version;
      B.Original = std::shared_ptr<const CodeObject>(Root, &C);
      std::vector<ProofResult> Rs = proveBundle(B, O);
      for (ProofResult &R : Rs) {
        R.Target = Index == 0 ? "original" : "code:" + std::to_string(Index);
        Out.push_back(std::move(R));
      }
      ++Index;
    });
  return Out;
}
