//===- BreakLocation.cpp - The frame's break instruction ------------------===//

#include "pyverify/Check/BreakLocation.h"

#include "pyverify/Analysis/Environment.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Bytecode/OperandRules.h"
#include "pyverify/Check/FrameModes.h"
#include "pyverify/Fixpoint/FixpointIterator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <vector>

using namespace pyverify;

bool BreakFlowState::join(const BreakFlowState &O) {
  if (O.isBottom() || isInconsistent())
    return false;
  if (isBottom()) {
    *this = O;
    return true;
  }
  if (O.isInconsistent() || height() != O.height()) {
    *this = inconsistent();
    return true;
  }
  // O knows deeper slots: ours are Other there (the same value, spelled out).
  if (size_t N = O.Stack.size(); N > Stack.size()) {
    Below += int64_t(N - Stack.size());
    Stack.insert(Stack.begin(), N - Stack.size(), Other);
  }
  bool Changed = false;
  for (uint32_t K = 1; K <= Stack.size(); ++K) {
    uint8_t &A = Stack[Stack.size() - K];
    if (uint8_t B = O.peek(K); (A | B) != A) {
      A |= B;
      Changed = true;
    }
  }
  for (uint32_t L : O.Locals)
    if (!llvm::is_contained(Locals, L)) {
      Locals.push_back(L);
      Changed = true;
    }
  return Changed;
}

bool BreakFlowState::operator==(const BreakFlowState &O) const {
  if (S != O.S)
    return false;
  if (!isReached())
    return true;
  if (height() != O.height() || Locals.size() != O.Locals.size())
    return false;
  for (uint32_t K = 1; K <= std::max(Stack.size(), O.Stack.size()); ++K)
    if (peek(K) != O.peek(K))
      return false;
  return llvm::all_of(
      Locals, [&](uint32_t L) { return llvm::is_contained(O.Locals, L); });
}

namespace {

/// What a slot may be (BreakFlowState's sets).
using Slot = BreakFlowState;

/// The forward flow of the break's result (the contract's step 3), as the
/// Fixpoint engine runs it on FrameInstructionGraph from the instruction
/// after the producer: a node passes its state on, an edge applies its
/// instruction on that edge.
class ResultWalk {
public:
  using Domain = BreakFlowState;

  ResultWalk(const DecodedCode &D, uint32_t Producer)
      : D(D), Producer(Producer) {}

  BreakFlowState bottom() const { return BreakFlowState::bottom(); }
  /// After the producer: its pushes, the last of them the result.
  BreakFlowState entryState() const {
    BreakFlowState S = BreakFlowState::start();
    const Instruction &P = D.Insts[Producer];
    StackIO IO = getStackIO(P.info(), P.Arg, false);
    pop(S, IO.Pops);
    for (int64_t K = 0; K < IO.Pushes; ++K)
      S.Stack.push_back(K + 1 == IO.Pushes ? Slot::Break : Slot::Other);
    return S;
  }
  BreakFlowState transferNode(unsigned, const BreakFlowState &In) const {
    return In;
  }
  BreakFlowState transferEdge(const FrameInstructionGraph::Edge &E,
                              const BreakFlowState &,
                              const BreakFlowState &Out) const {
    if (!Out.isReached())
      return Out;
    BreakFlowState W = Out;
    for (const MicroOp &Op : lowerInstruction(D.Insts[E.Source], E.Jump))
      apply(W, Op);
    return W;
  }

  /// Whether instruction \p Pc, entered with \p In, passes the result to
  /// the resume call.
  bool reachesResume(uint32_t Pc, const BreakFlowState &In) const {
    const Instruction &I = D.Insts[Pc];
    if (!I.Valid)
      return false;
    const OpcodeInfo &Info = I.info();
    if (Info.Terminator && !Info.isJump())
      return false; // RETURN_VALUE, RAISE_VARARGS, RERAISE
    if (Info.isJump() && I.Target >= 0 && !Info.isConditionalJump())
      return false;
    BreakFlowState W = In;
    for (const MicroOp &Op : lowerInstruction(I))
      if (apply(W, Op))
        return true;
    return false;
  }

private:
  const DecodedCode &D;
  uint32_t Producer;

  static uint8_t pop(BreakFlowState &S) {
    if (S.Stack.empty()) {
      ++S.Below; // below the start: another value
      return Slot::Other;
    }
    uint8_t X = S.Stack.back();
    S.Stack.pop_back();
    return X;
  }
  static void pop(BreakFlowState &S, int64_t N) {
    for (int64_t K = 0; K < N; ++K)
      pop(S);
  }
  /// The slots below the walk's start are Other: materialise them so that
  /// SWAP can move values across (bounded: no real SWAP goes this deep).
  static constexpr uint32_t MaxSwap = 1024;
  static void reach(BreakFlowState &S, uint32_t N) {
    if (S.Stack.size() < N) {
      S.Below += int64_t(N - S.Stack.size());
      S.Stack.insert(S.Stack.begin(), N - S.Stack.size(), Slot::Other);
    }
  }
  static uint8_t peek(const BreakFlowState &S, uint32_t N) { // N >= 1
    return S.peek(N);
  }

  bool isResumeGlobal(uint32_t Name) const {
    if (Name >= D.Code->Names.size())
      return false;
    const EnvGlobal *G = lookupGlobal(D.Code->Names[Name]);
    return G && G->Role == GlobalRole::ResumeFunction;
  }

  /// May call \p C (its arguments on top of \p S) call the resume function
  /// with the break's result? Each layout the slots allow is tried: the
  /// deeper call slot NULL (when it may be) or not (when it may be).
  bool resumeCallTakesBreak(const BreakFlowState &S, const uop::Call &C) const {
    uint32_t Top = C.KwNamesOnTop ? 1 : 0, N = C.NArgs;
    uint8_t Deeper = peek(S, Top + N + 2), Upper = peek(S, Top + N + 1);
    bool ArgIsBreak = false;
    for (uint32_t K = Top + 1; K <= Top + N; ++K)
      ArgIsBreak |= (peek(S, K) & Slot::Break) != 0;
    for (bool DeeperNull : {false, true}) {
      if (!(Deeper & (DeeperNull ? uint8_t(Slot::Null) : uint8_t(~Slot::Null))))
        continue;
      bool CalleeDeeper = C.calleeSlot(DeeperNull) == 0;
      if (!((CalleeDeeper ? Deeper : Upper) & Slot::Resume))
        continue;
      // The other slot is an argument when it is not NULL (self).
      if ((CalleeDeeper && (Upper & Slot::Break)) || ArgIsBreak)
        return true;
    }
    return false;
  }

  /// Values the walk does not follow: \p E's pops, then as many other
  /// values as it pushes. False: no resume call is made here.
  static bool moveOthers(BreakFlowState &W, uop::Effect E) {
    pop(W, E.Pops);
    W.Stack.insert(W.Stack.end(), size_t(std::max<int64_t>(E.Pushes, 0)),
                   Slot::Other);
    return false;
  }

  /// One micro-operation of the walk; true when the result reached the
  /// resume call.
  bool apply(BreakFlowState &W, const MicroOp &Op) const {
    return std::visit(
        Overloaded{
            [&](const uop::Call &C) {
              if (resumeCallTakesBreak(W, C))
                return true;
              pop(W, int64_t(C.NArgs) + 2 + (C.KwNamesOnTop ? 1 : 0));
              W.Stack.push_back(Slot::Other);
              return false;
            },
            [&](uop::LoadGlobal G) {
              W.Stack.push_back(isResumeGlobal(G.Name) ? Slot::Resume
                                                       : Slot::Other);
              return false;
            },
            [&](uop::PushNull) {
              W.Stack.push_back(Slot::Null);
              return false;
            },
            [&](uop::LoadLocal L) {
              W.Stack.push_back(llvm::is_contained(W.Locals, L.Local)
                                    ? Slot::Break
                                    : Slot::Other);
              return false;
            },
            [&](uop::StoreLocal L) {
              llvm::erase_value(W.Locals, L.Local);
              if (pop(W) & Slot::Break)
                W.Locals.push_back(L.Local);
              return false;
            },
            [&](uop::DeleteLocal L) {
              llvm::erase_value(W.Locals, L.Local);
              return false;
            },
            [&](uop::LoadConst) {
              W.Stack.push_back(Slot::Other);
              return false;
            },
            [&](uop::MakeCell C) {
              llvm::erase_value(W.Locals, C.Local);
              return false;
            },
            // At the entry only: no result of the break is there.
            [&](uop::CopyFreeVars) { return false; },
            [&](uop::PopExcept) {
              pop(W);
              return false;
            },
            [&](uop::Copy C) {
              W.Stack.push_back(peek(W, C.N));
              return false;
            },
            [&](uop::Swap S) {
              if (S.N >= 1 && S.N <= MaxSwap) {
                reach(W, S.N);
                std::swap(W.Stack.back(), W.Stack[W.Stack.size() - S.N]);
              }
              return false;
            },
            [&](uop::LoadAttr) {
              pop(W);
              W.Stack.push_back(Slot::Other);
              return false;
            },
            [&](const OneOf<uop::LoadMethod, uop::LoadSpecial> auto &) {
              pop(W);
              W.Stack.insert(W.Stack.end(), 2, Slot::Other);
              return false;
            },
            [&](uop::CallPrepare) { return false; },
            [&](uop::UnpackSequence U) {
              pop(W);
              W.Stack.insert(W.Stack.end(), U.N, Slot::Other);
              return false;
            },
            [&](uop::Subscript) {
              pop(W, 2);
              W.Stack.push_back(Slot::Other);
              return false;
            },
            [&](uop::BuildSequence B) {
              pop(W, B.N);
              W.Stack.push_back(Slot::Other);
              return false;
            },
            [&](const OneOf<
                uop::Test, uop::Next, uop::Return, uop::Raise, uop::EnterWith,
                uop::ExitCallStart, uop::PushExcInfo, uop::ExcMatch, uop::Not,
                uop::ToBool, uop::LoadCell, uop::StoreCell, uop::Nop> auto &O) {
              return moveOthers(W, movementOf(O));
            },
            [&](uop::Effect E) { return moveOthers(W, E); }},
        Op);
  }
};

/// The instruction whose pushed value is the call's result: \p Index, or
/// for a part of the next call (PRECALL, KW_NAMES) the call completing it;
/// -1 if none.
int64_t producerOf(const DecodedCode &D, int64_t Index) {
  for (int64_t K = Index; K < int64_t(D.Insts.size()); ++K) {
    const Instruction &I = D.Insts[size_t(K)];
    if (!I.Valid)
      return -1;
    if (!isCallPrepare(I))
      return K;
  }
  return -1;
}

/// Whether instruction \p A of \p CA does what \p B of \p CB does: the same
/// opcode on the same operands resolved against each one's tables (two
/// code objects number their constants and names apart).
bool sameOperation(const CodeObject &CA, const Instruction &A,
                   const CodeObject &CB, const Instruction &B) {
  return A.Valid && B.Valid && A.Op == B.Op &&
         resolvedOperands(CA, A) == resolvedOperands(CB, B);
}

} // namespace

llvm::Expected<bool> pyverify::flowsIntoResumeCall(const DecodedCode &Frame,
                                                   int64_t Index) {
  int64_t P = producerOf(Frame, Index);
  if (P < 0 || size_t(P) + 1 >= Frame.Insts.size())
    return false;
  ResultWalk W(Frame, uint32_t(P));
  bool Flows = false;
  std::optional<uint32_t> Conflict;
  auto Fix =
      runForwardFixpoint(FrameInstructionGraph(Frame, uint32_t(P) + 1), W, {},
                         [&](unsigned Pc, const BreakFlowState &In,
                             llvm::ArrayRef<BreakFlowState>) {
                           if (In.isInconsistent())
                             Conflict = Conflict.value_or(Pc);
                           else
                             Flows = Flows || W.reachesResume(Pc, In);
                         });
  if (!Fix)
    return Fix.takeError();
  // A flow found on consistent states is one; its absence is not known
  // past stacks of different depths.
  if (Flows || !Conflict)
    return Flows;
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "paths from the result of %s at offset %u meet at offset %u with "
      "stacks of different depths",
      Frame.Insts[size_t(P)].name().str().c_str(),
      unsigned(Frame.Insts[size_t(P)].Offset),
      unsigned(Frame.Insts[*Conflict].Offset));
}

BreakLocation pyverify::locateFrameBreak(const DecodedCode &Frame,
                                         const DecodedCode &Original,
                                         int64_t OriginalIndex,
                                         std::optional<uint32_t> Named) {
  assert(OriginalIndex >= 0 && size_t(OriginalIndex) < Original.Insts.size() &&
         "not an index");
  const Instruction &OB = Original.Insts[size_t(OriginalIndex)];
  if (Named) {
    int64_t K = Frame.Insts.indexAtStart(*Named);
    if (K < 0)
      return {-1, llvm::formatv("frame_break_offset {0} is not an "
                                "instruction of the frame",
                                *Named)};
    if (!sameOperation(*Frame.Code, Frame.Insts[size_t(K)], *Original.Code, OB))
      return {-1, llvm::formatv("the frame's instruction at "
                                "frame_break_offset {0} is {1}, not the "
                                "original's {2} {3} at break_offset",
                                *Named, Frame.Insts[size_t(K)].name(),
                                OB.name(), OB.Arg)};
    return {K, ""};
  }
  std::vector<int64_t> Cands;
  for (size_t K = 0; K < Frame.Insts.size(); ++K)
    if (sameOperation(*Frame.Code, Frame.Insts[K], *Original.Code, OB))
      Cands.push_back(int64_t(K));
  if (Cands.empty())
    return {-1, llvm::formatv("no instruction of the frame is the "
                              "original's {0} {1} at break_offset",
                              OB.name(), OB.Arg)};
  if (Cands.size() == 1)
    return {Cands[0], ""};
  std::vector<int64_t> Flow;
  for (int64_t K : Cands) {
    llvm::Expected<bool> Flows = flowsIntoResumeCall(Frame, K);
    if (!Flows)
      return {-1, llvm::formatv("{0} instructions of the frame are the "
                                "original's {1} {2}, and whether the one at "
                                "offset {3} flows into the resume call is "
                                "unknown: {4} (name it with "
                                "frame_break_offset)",
                                Cands.size(), OB.name(), OB.Arg,
                                Frame.Insts[size_t(K)].Offset,
                                llvm::toString(Flows.takeError()))};
    if (*Flows)
      Flow.push_back(K);
  }
  if (Flow.size() == 1)
    return {Flow[0], ""};
  // A tie: source positions decide, among those that flow (or all).
  const std::vector<int64_t> &Tied = Flow.empty() ? Cands : Flow;
  Position Want = Original.positionAt(OB.Offset);
  std::vector<int64_t> Same;
  if (Want.Line)
    for (int64_t K : Tied)
      if (Frame.positionAt(Frame.Insts[size_t(K)].Offset) == Want)
        Same.push_back(K);
  if (Same.size() == 1)
    return {Same[0], ""};
  return {-1, llvm::formatv("{0} instructions of the frame are the "
                            "original's {1} {2}; {3} of them flow into the "
                            "resume call and source positions do not decide "
                            "(name it with frame_break_offset)",
                            Cands.size(), OB.name(), OB.Arg, Flow.size())};
}
