//===- StackChecks.cpp - Findings from the stack-depth analysis -----------===//

#include "pyverify/Check/StackChecks.h"
#include "pyverify/Analysis/CallSlots.h"
#include "pyverify/Bytecode/RaiseModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace pyverify;

std::string pyverify::describeInstruction(const Instruction &I) {
  if (I.Valid && I.info().hasArg())
    return (I.name() + " " + llvm::Twine(I.Arg)).str();
  return I.name().str();
}

static std::string describeEdgeSource(const CFG &G, const CFGEdge &E) {
  const DecodedCode &D = G.code();
  const Instruction &Last = D.Insts[G.raisePointOf(E)];
  switch (E.Kind) {
  case EdgeKind::Exception: {
    const ExceptionTableEntry &T = D.Table[E.Entry];
    return llvm::formatv("exception unwinding from {0} {1} "
                         "(entry {2} to {3} -> {4} [{5}]{6})",
                         Last.Offset, describeInstruction(Last), T.Start,
                         T.End - 2, T.Target, T.Depth, T.Lasti ? " lasti" : "")
        .str();
  }
  case EdgeKind::FallThrough:
  case EdgeKind::BranchNotTaken:
    return llvm::formatv("falling through from {0} {1}", Last.Offset,
                         describeInstruction(Last))
        .str();
  case EdgeKind::Jump:
  case EdgeKind::BranchTaken:
    return llvm::formatv("the jump at {0} {1}", Last.Offset,
                         describeInstruction(Last))
        .str();
  }
  llvm_unreachable("unknown edge kind");
}

/// If block \p B is reachable only through exception edges, the exception
/// edge into the handler region that holds it (the first found walking back
/// over normal edges); else null.
static const CFGEdge *findEnteringHandlerEdge(const CFG &G, unsigned B) {
  llvm::BitVector NormalReach(G.size());
  llvm::SmallVector<unsigned, 32> Work{0};
  NormalReach.set(0);
  while (!Work.empty()) {
    unsigned X = Work.pop_back_val();
    for (unsigned EI : G.block(X).Succs) {
      const CFGEdge &E = G.edge(EI);
      if (!E.isException() && !NormalReach.test(E.Target)) {
        NormalReach.set(E.Target);
        Work.push_back(E.Target);
      }
    }
  }
  if (NormalReach.test(B))
    return nullptr;
  llvm::BitVector Seen(G.size());
  Work.push_back(B);
  Seen.set(B);
  while (!Work.empty()) {
    unsigned X = Work.pop_back_val();
    for (unsigned EI : G.block(X).Preds) {
      const CFGEdge &E = G.edge(EI);
      if (E.isException())
        return &E;
      if (!Seen.test(E.Source)) {
        Seen.set(E.Source);
        Work.push_back(E.Source);
      }
    }
  }
  return nullptr;
}

namespace {

/// call-without-null: each call found the root cause of an underflow.
void reportCallsWithoutNull(const CFG &G, llvm::ArrayRef<CallWithoutNull> Calls,
                            std::vector<Finding> &Out) {
  const InstructionStream &Insts = G.code().Insts;
  for (const CallWithoutNull &C : Calls) {
    const Instruction &Call = Insts[C.Call], &Callee = Insts[C.Callee],
                      &Taken = Insts[C.Taken], &U = Insts[C.Underflow];
    Finding F(
        CheckId::CallWithoutNull, Call.Offset,
        llvm::formatv(
            "{0} {1} finds no NULL below its {2} argument(s): the callable "
            "{3} (offset {4}) was pushed without one, so {5} calls the value "
            "below it, {6} (offset {7}), with the callable as its first "
            "argument; the call takes one value more than the code pushed "
            "for it, and {8} {9}, which takes the call's result, finds the "
            "stack one value short",
            Call.Offset, describeInstruction(Call), Call.Arg,
            describeInstruction(Callee), Callee.Offset, Call.name(),
            describeInstruction(Taken), Taken.Offset, U.Offset,
            describeInstruction(U)));
    F.note(Taken.Offset, "the value taken as the callable: a value of the "
                         "enclosing expression");
    F.note(
        Callee.Offset,
        llvm::formatv("the callable, pushed with no NULL {0} it",
                      traits(Call.Ver).NullAfterCallable ? "after" : "before"));
    F.note(U.Offset, "the underflow this causes");
    Out.push_back(std::move(F));
  }
}

/// stack-underflow: each instruction that pops or reads below the stack;
/// one that a call without its NULL causes names the call.
void reportUnderflows(const CFG &G, const StackDepthResult &R,
                      llvm::ArrayRef<CallWithoutNull> Calls,
                      std::vector<Finding> &Out) {
  const InstructionStream &Insts = G.code().Insts;
  for (const StackUnderflow &U : R.Underflows) {
    const Instruction &I = Insts[U.Inst];
    std::string Msg =
        U.Pops > U.Depth
            ? llvm::formatv("{0} needs {1} stack value(s) but only {2} are on "
                            "the stack",
                            describeInstruction(I), U.Pops, U.Depth)
                  .str()
            : llvm::formatv("{0} reads the stack {1} value(s) deep (PEEK({1})) "
                            "but only {2} are on the stack",
                            describeInstruction(I), U.Reads, U.Depth)
                  .str();
    Finding F(CheckId::StackUnderflow, I.Offset, Msg);
    const BasicBlock &B = G.block(G.blockOf(U.Inst));
    if (!B.Preds.empty()) {
      const CFGEdge &E = G.edge(B.Preds.front());
      F.note(Insts[G.raisePointOf(E)].Offset,
             "the block is entered by " + describeEdgeSource(G, E));
    }
    for (const CallWithoutNull &C : Calls)
      if (C.Underflow == U.Inst)
        F.note(Insts[C.Call].Offset,
               llvm::formatv("caused by {0} {1}, which took a value of the "
                             "enclosing expression as its callable "
                             "(call-without-null)",
                             Insts[C.Call].Offset,
                             describeInstruction(Insts[C.Call])));
    Out.push_back(std::move(F));
  }
}

/// stack-depth-conflict: each join reached at two depths.
void reportConflicts(const CFG &G, const StackDepthResult &R,
                     std::vector<Finding> &Out) {
  const InstructionStream &Insts = G.code().Insts;
  for (const StackDepthConflict &K : R.Conflicts) {
    const Instruction &At = Insts[G.block(K.Block).Begin];
    const CFGEdge &A = G.edge(K.EdgeA), &B = G.edge(K.EdgeB);
    Finding F(CheckId::StackDepthConflict, At.Offset,
              llvm::formatv("{0} is reached at stack depth {1} and at depth "
                            "{2}; CPython requires one depth per instruction",
                            describeInstruction(At), K.DepthA, K.DepthB));
    F.note(
        Insts[G.raisePointOf(A)].Offset,
        llvm::formatv("depth {0} by {1}", K.DepthA, describeEdgeSource(G, A)));
    F.note(
        Insts[G.raisePointOf(B)].Offset,
        llvm::formatv("depth {0} by {1}", K.DepthB, describeEdgeSource(G, B)));
    Out.push_back(std::move(F));
  }
}

/// stacksize-too-small and stacksize-larger-than-needed.
void reportStackSize(const CFG &G, const StackDepthResult &R,
                     std::vector<Finding> &Out) {
  const DecodedCode &D = G.code();
  const InstructionStream &Insts = D.Insts;
  const CodeObject &C = *D.Code;
  // Some instruction has a depth: the entry's, unless nothing is reached.
  bool AnyDepth = R.Before.any();
  if (AnyDepth && R.MaxDepth > C.StackSize) {
    const Instruction &I = Insts[R.MaxDepthInst];
    Finding F(CheckId::StacksizeTooSmall, I.Offset,
              llvm::formatv("the stack reaches depth {0} at {1} but "
                            "co_stacksize is {2}; the frame is too small and "
                            "the interpreter will write past it "
                            "(co_stacksize must be at least {0})",
                            R.MaxDepth, describeInstruction(I), C.StackSize));
    // Point at the handler when the deepest point is inside one -- code
    // reached only through an exception edge, the bug class of a stack size
    // computed without them. Walk back over normal edges to the block a
    // handler enters.
    if (const CFGEdge *E =
            findEnteringHandlerEdge(G, G.blockOf(R.MaxDepthInst))) {
      const ExceptionTableEntry &T = D.Table[E->Entry];
      F.note(T.Target,
             llvm::formatv("this code is a handler, reached only through "
                           "the exception table at depth {0} "
                           "(depth {1} + lasti {2} + 1); count handler "
                           "edges when computing co_stacksize",
                           T.handlerDepth(), T.Depth, unsigned(T.Lasti)));
    }
    Out.push_back(std::move(F));
  } else if (AnyDepth && R.MaxDepth < C.StackSize) {
    Finding F(CheckId::StacksizeLargerThanNeeded, Insts[R.MaxDepthInst].Offset,
              llvm::formatv("co_stacksize is {0} but no reachable instruction "
                            "needs more than {1}",
                            C.StackSize, R.MaxDepth));
    F.note(Insts[R.MaxDepthInst].Offset, "the deepest point");
    Out.push_back(std::move(F));
  }
}

/// handler-depth-exceeds-stack: covered reachable instructions. The live
/// depth is the lower of the depths before and after an instruction, and,
/// where it may raise, the depth its exception unwinds from (raisePops,
/// RaiseModel.h).
void reportHandlerDepths(const CFG &G, const StackDepthResult &R,
                         std::vector<Finding> &Out) {
  const DecodedCode &D = G.code();
  const InstructionStream &Insts = D.Insts;
  const llvm::BitVector &Reach = G.reachable();
  for (const BasicBlock &B : G.blocks()) {
    if (!Reach.test(B.Id))
      continue;
    int32_t Entry = -1;
    for (unsigned EI : B.Succs)
      if (G.edge(EI).isException() && !G.edge(EI).FromBackEdge)
        Entry = G.edge(EI).Entry;
    if (Entry < 0)
      continue;
    const ExceptionTableEntry &T = D.Table[Entry];
    for (uint32_t I = B.Begin; I < B.End; ++I) {
      if (!R.Before[I])
        continue;
      int64_t Live = *R.Before[I];
      if (R.After[I])
        Live = std::min(Live, *R.After[I]);
      if (G.mayRaiseAt(I))
        Live = std::min(Live, *R.Before[I] - raisePops(Insts[I]));
      if (Live >= int64_t(T.Depth))
        continue;
      Finding F(CheckId::HandlerDepthExceedsStack, Insts[I].Offset,
                llvm::formatv("{0} is covered by entry {1} to {2} -> {3} [{4}]"
                              "{5}, whose depth {4} is above the live stack "
                              "depth {6} here; unwinding would keep slots this "
                              "instruction already popped",
                              describeInstruction(Insts[I]), T.Start, T.End - 2,
                              T.Target, T.Depth, T.Lasti ? " lasti" : "",
                              Live));
      F.note(T.Target, "handler");
      // One wrong entry depth, seen at every instruction it covers.
      F.Cause = "entry " + std::to_string(Entry);
      F.AlsoNote = llvm::formatv("also covered: {0}, at live stack depth {1}",
                                 describeInstruction(Insts[I]), Live);
      Out.push_back(std::move(F));
    }
  }
}

} // namespace

void pyverify::checkReachability(const CFG &G, std::vector<Finding> &Out) {
  const InstructionStream &Insts = G.code().Insts;
  const llvm::BitVector &Reach = G.reachable();
  size_t FirstOut = Out.size();
  // Falling off the end; empty code (one empty block) starts there.
  if (Insts.size() == 0) {
    Out.emplace_back(CheckId::FallsOffEnd, 0,
                     "co_code is empty: a call executes past the end of the "
                     "code");
    return;
  }
  const BasicBlock &LastB = G.block(G.size() - 1);
  if (LastB.size() && Reach.test(LastB.Id)) {
    const Instruction &I = Insts[LastB.last()];
    const OpcodeInfo &Info = I.info();
    if (!Info.Terminator)
      Out.emplace_back(CheckId::FallsOffEnd, I.Offset,
                       llvm::formatv("{0} is the last instruction and can fall "
                                     "through past the end of the code",
                                     describeInstruction(I)));
  }

  // Unreachable ranges: the runs of instructions in unreachable blocks,
  // read block by block (the blocks tile the instructions in order; an
  // empty block holds none, so it never ends a run).
  auto Unreached = [&](unsigned B) {
    return G.block(B).size() == 0 || !Reach.test(B);
  };
  for (unsigned B = 0; B < G.size();) {
    if (G.block(B).size() == 0 || Reach.test(B)) { // no run starts here
      ++B;
      continue;
    }
    uint32_t I = G.block(B).Begin, J = G.block(B).End;
    for (++B; B < G.size() && Unreached(B); ++B)
      J = std::max(J, G.block(B).End);
    Out.emplace_back(CheckId::UnreachableCode, Insts[I].Offset,
                     llvm::formatv("{0} instruction(s) from {1} to {2} are "
                                   "unreachable",
                                   J - I, Insts[I].Offset,
                                   Insts[J - 1].Offset));
  }
  std::stable_sort(
      Out.begin() + FirstOut, Out.end(),
      [](const Finding &A, const Finding &B) { return A.Offset < B.Offset; });
}

void pyverify::checkFrameSize(const CodeObject &C, std::vector<Finding> &Out) {
  int64_t Locals = int64_t(C.LocalsPlusNames.size());
  int64_t Slots = int64_t(C.StackSize) + Locals;
  if (Slots <= MaxFrameSlots)
    return;
  Out.emplace_back(
      CheckId::StacksizeTooLarge, 0,
      llvm::formatv("co_stacksize {0} and {1} local slot(s) make a frame of "
                    "{2} slots; CPython cannot allocate a frame of more than "
                    "{3} (its data-stack chunk size overflows: the call "
                    "hangs, crashes or raises MemoryError)",
                    C.StackSize, Locals, Slots, MaxFrameSlots));
}

void pyverify::checkStack(const CFG &G, const StackDepthResult &R,
                          std::vector<Finding> &Out) {
  size_t FirstOut = Out.size();
  std::vector<CallWithoutNull> Calls;
  if (!R.Underflows.empty())
    Calls = findCallsWithoutNull(G, R);
  reportCallsWithoutNull(G, Calls, Out);
  reportUnderflows(G, R, Calls, Out);
  reportConflicts(G, R, Out);
  reportStackSize(G, R, Out);
  reportHandlerDepths(G, R, Out);
  std::stable_sort(
      Out.begin() + FirstOut, Out.end(),
      [](const Finding &A, const Finding &B) { return A.Offset < B.Offset; });
}
