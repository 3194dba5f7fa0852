//===- ResumeEntry.cpp - Where the resume function takes over -------------===//

#include "ResumeEntry.h"

#include "pyverify/Analysis/ContextBalance.h"
#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Check/BundleVerifier.h"

using namespace pyverify;
using namespace pyverify::smt;
using namespace pyverify::smt::prover;

Assigned prover::assignedBefore(const CFG &G, const CodeObject &Code,
                                uint32_t At) {
  const InstructionStream &Insts = G.code().Insts;
  size_t N = Code.LocalsPlusNames.size();
  unsigned NArgs = unsigned(Code.ArgCount + Code.KwOnlyArgCount) +
                   ((Code.Flags & CoVarArgs) ? 1 : 0) +
                   ((Code.Flags & CoVarKeywords) ? 1 : 0);
  size_t NB = G.blocks().size();
  std::vector<std::optional<Assigned>> In(NB);
  Assigned Entry{llvm::BitVector(N), llvm::BitVector(N)};
  for (unsigned I = 0; I < NArgs && I < N; ++I) {
    Entry.Must.set(I);
    Entry.May.set(I);
  }
  // A store binds its local (one that may store NULL binds it on some
  // paths only); a deletion, or a read that clears, unbinds it.
  auto Apply = [&](Assigned &S, const Instruction &In_, bool DeletesOnly) {
    if (!In_.Valid)
      return;
    for (const MicroOp &Op : lowerInstruction(In_)) {
      if (const auto *St = std::get_if<uop::StoreLocal>(&Op);
          St && St->Local < N && !DeletesOnly) {
        S.May.set(St->Local);
        if (St->NullOk)
          S.Must.reset(St->Local);
        else
          S.Must.set(St->Local);
      } else if (const auto *D = std::get_if<uop::DeleteLocal>(&Op);
                 D && D->Local < N) {
        S.Must.reset(D->Local);
      }
    }
  };
  auto Transfer = [&](Assigned S, uint32_t From, uint32_t To) {
    for (uint32_t I = From; I < To; ++I)
      Apply(S, Insts[I], false);
    return S;
  };
  In[G.entry().Id] = Entry;
  std::vector<unsigned> Work{G.entry().Id};
  while (!Work.empty()) {
    unsigned B = Work.back();
    Work.pop_back();
    const BasicBlock &Blk = G.blocks()[B];
    Assigned Out = Transfer(*In[B], Blk.Begin, Blk.End);
    for (unsigned EI : Blk.Succs) {
      const CFGEdge &E = G.edge(EI);
      Assigned S = Out;
      if (E.isException()) {
        // Raised anywhere in the block: bound only where bound at its
        // start and not unbound in it.
        S.Must = In[B]->Must;
        for (uint32_t I = Blk.Begin; I < Blk.End; ++I)
          Apply(S, Insts[I], /*DeletesOnly=*/true);
      }
      std::optional<Assigned> &T = In[E.Target];
      if (!T) {
        T = S;
        Work.push_back(E.Target);
        continue;
      }
      llvm::BitVector Must = T->Must, May = T->May;
      Must &= S.Must;
      May |= S.May;
      if (Must != T->Must || May != T->May) {
        T = Assigned{Must, May};
        Work.push_back(E.Target);
      }
    }
  }
  uint32_t B = G.blockOf(At);
  if (!In[B])
    return Entry;
  return Transfer(*In[B], G.blocks()[B].Begin, At);
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
  Assigned AS = assignedBefore(*G, *B.Original, uint32_t(OI));
  for (size_t K = 0; K < A.Locals.size(); ++K) {
    const std::string &Name = B.Original->LocalsPlusNames[K];
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
