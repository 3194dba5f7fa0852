//===- ResumeEntry.cpp - Where the resume function takes over -------------===//

#include "ResumeEntry.h"

#include "pyverify/Analysis/CFGFixpointGraph.h"
#include "pyverify/Analysis/ContextBalance.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Check/BundleVerifier.h"
#include "pyverify/Domain/MustMayDomain.h"
#include "pyverify/Fixpoint/FixpointIterator.h"

using namespace pyverify;
using namespace pyverify::smt;
using namespace pyverify::smt::prover;

namespace {

/// Which locals are assigned (MustMaySet over localsplus) on the CFG, as
/// the fixpoint engine runs it: a store binds its local (one that may store
/// NULL binds it on some paths only); a deletion, or a read that clears,
/// unbinds it. An exception edge leaves its block anywhere: bound only where
/// bound at the block's start and not unbound in it.
class AssignedAnalysis {
public:
  using Domain = MustMaySet;
  AssignedAnalysis(const CFG &G, const CodeObject &Code)
      : G(G), Insts(G.code().Insts), N(Code.LocalsPlusNames.size()) {
    unsigned NArgs = unsigned(Code.ArgCount + Code.KwOnlyArgCount) +
                     ((Code.Flags & CoVarArgs) ? 1 : 0) +
                     ((Code.Flags & CoVarKeywords) ? 1 : 0);
    llvm::BitVector Params(N);
    for (unsigned I = 0; I < NArgs && I < N; ++I)
      Params.set(I);
    Entry = Params;
  }

  Domain bottom() const { return MustMaySet::bottom(N); }
  Domain entryState() const { return MustMaySet::of(Entry, Entry); }
  Domain transferNode(unsigned B, const Domain &In) const {
    return through(In, G.blocks()[B].Begin, G.blocks()[B].End);
  }
  Domain transferEdge(unsigned E, const Domain &NodeIn,
                      const Domain &NodeOut) const {
    const CFGEdge &Edge = G.edge(E);
    if (!Edge.isException() || NodeIn.isBottom())
      return NodeOut;
    llvm::BitVector Must = NodeIn.must();
    const BasicBlock &Blk = G.blocks()[Edge.Source];
    MustMaySet S = MustMaySet::of(std::move(Must), NodeOut.may());
    for (uint32_t I = Blk.Begin; I < Blk.End; ++I)
      apply(S, Insts[I], /*DeletesOnly=*/true);
    return S;
  }
  /// \p In carried through instructions [From, To).
  Domain through(Domain S, uint32_t From, uint32_t To) const {
    if (S.isBottom())
      return S;
    for (uint32_t I = From; I < To; ++I)
      apply(S, Insts[I], /*DeletesOnly=*/false);
    return S;
  }

private:
  void apply(MustMaySet &S, const Instruction &In, bool DeletesOnly) const {
    if (!In.Valid)
      return;
    for (const MicroOp &Op : lowerInstruction(In)) {
      if (const auto *St = std::get_if<uop::StoreLocal>(&Op);
          St && St->Local < N && !DeletesOnly) {
        if (St->NullOk)
          S.setMaybe(St->Local);
        else
          S.set(St->Local);
      } else if (const auto *D = std::get_if<uop::DeleteLocal>(&Op);
                 D && D->Local < N) {
        S.resetMust(D->Local);
      }
    }
  }

  const CFG &G;
  const InstructionStream &Insts;
  size_t N;
  llvm::BitVector Entry;
};

} // namespace

llvm::Expected<Assigned>
prover::assignedBefore(const CFG &G, const CodeObject &Code, uint32_t At) {
  AssignedAnalysis A(G, Code);
  auto R = runForwardFixpoint(CFGFixpointGraph(G), A);
  if (!R)
    return R.takeError();
  uint32_t B = G.blockOf(At);
  MustMaySet In = R->In[B];
  // Unreached: as at entry (the caller has found At reachable already).
  MustMaySet S =
      In.isBottom() ? A.entryState() : A.through(In, G.blocks()[B].Begin, At);
  return Assigned{S.must(), S.may()};
}

std::string prover::runResumePrologue(Side &B2, unsigned Unroll) {
  B2.StopAtForwardJump = true;
  while (true) {
    if (!B2.advance(Unroll))
      return B2.Bud->exceeded() ? B2.Bud->Exceeded
                                : "the resume function ends in its prologue";
    const Instruction &I = B2.inst();
    if (I.info().Jump == JumpKind::Forward) {
      B2.pushStep("jumps into the body");
      int64_t T = B2.C->D().Insts.indexAtStart(uint64_t(I.landing()));
      if (T < 0)
        return "the prologue jumps to a non-instruction";
      B2.Pc = uint32_t(T);
      B2.StopAtForwardJump = false;
      return "";
    }
    if (B2.isBranch())
      return "a conditional branch in the resume prologue";
    B2.pushStep();
    B2.execSync(false);
  }
}

std::string prover::startOriginalAt(Side &A, const Bundle &B, int64_t OI,
                                    const Side &B2,
                                    llvm::ArrayRef<ContextKind> Claimed) {
  const CodeInfo &Orig = *A.C;
  // original_offset: where the instruction starts (its EXTENDED_ARG prefix).
  uint32_t Offset = Orig.D().Insts[OI].Start;
  const CFG *G = Orig.Analysis->cfg();
  if (!G)
    return "the original is not well-formed";
  auto Depth = Orig.Analysis->stackDepth();
  auto Active = activeWithContexts(*Orig.Analysis, Offset);
  if (!Depth)
    return "no stack depth for the original: " +
           llvm::toString(Depth.takeError());
  if (!Active)
    return "no contexts for the original at the offset: " +
           llvm::toString(Active.takeError());
  if (!Depth->Before[OI])
    return "original_offset is unreachable in the original";
  // The original's locals at p: bound when assigned on every path there;
  // unbound when on none; when on some paths only, as the resume function
  // receives them (the rewriter's reading).
  A.initLocals();
  llvm::Expected<Assigned> AsOr = assignedBefore(*G, *B.Original, uint32_t(OI));
  if (!AsOr)
    return "which locals the original has assigned at the offset is not "
           "known: " +
           llvm::toString(AsOr.takeError());
  Assigned AS = std::move(*AsOr);
  for (size_t K = 0; K < A.Locals.size(); ++K) {
    llvm::StringRef Name = B.Original->LocalsPlusNames[K];
    bool Bound = AS.Must.test(K);
    if (!Bound && AS.May.test(K)) {
      int64_t RK = B2.localIndex(Name);
      Bound = RK >= 0 && B2.Locals[RK].has_value();
    }
    if (Bound)
      A.Locals[K] = A.sym(Side::symbolForName(Name));
  }
  A.Pc = uint32_t(OI);
  int64_t D = *Depth->Before[OI];
  for (size_t K = 0; K < Active->size(); ++K) {
    CtxKind Kd = K < Claimed.size() && Claimed[K] == ContextKind::Mode
                     ? CtxKind::Mode
                     : CtxKind::With;
    A.Ctxs.push_back({int32_t(K), Kd, std::nullopt, false});
    A.Active.push_back(int32_t(K));
  }
  A.NextLabel = int32_t(Active->size());
  for (int64_t J = 0; J < D; ++J) {
    int32_t Ctx = -1;
    for (size_t K = 0; K < Active->size(); ++K)
      if ((*Active)[K].StackIndex == uint32_t(J))
        Ctx = int32_t(K);
    if (Ctx >= 0) {
      // The same bound __exit__ value as the resume function's.
      SVal X = size_t(J) < B2.Stack.size() && B2.Stack[J].K == Tag::ExitSlot
                   ? B2.Stack[J]
                   : A.sym("exit_slot:" + std::to_string(J));
      X.K = Tag::ExitSlot;
      X.Ctx = Ctx;
      A.Stack.push_back(X);
    } else if (size_t(J) < B2.Stack.size() && B2.Stack[J].K != Tag::ExitSlot) {
      A.Stack.push_back(B2.Stack[J]); // the value passed in
    } else {
      A.Stack.push_back(A.sym("stack:" + std::to_string(J)));
    }
  }
  return "";
}
