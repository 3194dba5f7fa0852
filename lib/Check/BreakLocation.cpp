//===- BreakLocation.cpp - The frame's break instruction ------------------===//

#include "pyverify/Check/BreakLocation.h"

#include "pyverify/Analysis/Environment.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Bytecode/OperandRules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <vector>

using namespace pyverify;

namespace {

/// What the forward walk knows of a stack slot.
enum class Slot : uint8_t { Other, Null, Break, Resume };

struct WalkState {
  uint32_t Pc;
  std::vector<Slot> Stack;      ///< The slots above the walk's start.
  std::vector<uint32_t> Locals; ///< Locals holding the break's result.
};

/// The walk over normal edges from the producer of the break's result.
class ResultWalk {
public:
  explicit ResultWalk(const DecodedCode &D) : D(D) {}

  bool run(uint32_t Producer) {
    WalkState S{Producer, {}, {}};
    // The producer itself: its pushes, the last of them the result.
    const Instruction &P = D.Insts[Producer];
    StackIO IO = getStackIO(P.info(), P.Arg, false);
    pop(S, IO.Pops);
    for (int64_t K = 0; K < IO.Pushes; ++K)
      S.Stack.push_back(K + 1 == IO.Pushes ? Slot::Break : Slot::Other);
    S.Pc = Producer + 1;
    std::vector<WalkState> Work{std::move(S)};
    std::vector<bool> Seen(D.Insts.size());
    while (!Work.empty()) {
      WalkState W = std::move(Work.back());
      Work.pop_back();
      while (W.Pc < D.Insts.size() && !Seen[W.Pc]) {
        Seen[W.Pc] = true;
        if (step(W, Work))
          return true;
        if (W.Pc == UINT32_MAX)
          break;
      }
    }
    return false;
  }

private:
  const DecodedCode &D;

  static Slot pop(WalkState &S) {
    if (S.Stack.empty())
      return Slot::Other;
    Slot X = S.Stack.back();
    S.Stack.pop_back();
    return X;
  }
  static void pop(WalkState &S, int64_t N) {
    for (int64_t K = 0; K < N; ++K)
      pop(S);
  }
  /// The slots below the walk's start are Other: materialise them so that
  /// SWAP can move values across (bounded: no real SWAP goes this deep).
  static constexpr uint32_t MaxSwap = 1024;
  static void reach(WalkState &S, uint32_t N) {
    if (S.Stack.size() < N)
      S.Stack.insert(S.Stack.begin(), N - S.Stack.size(), Slot::Other);
  }
  static Slot peek(const WalkState &S, uint32_t N) { // N >= 1
    return N <= S.Stack.size() ? S.Stack[S.Stack.size() - N] : Slot::Other;
  }

  bool isResumeGlobal(uint32_t Name) const {
    if (Name >= D.Code->Names.size())
      return false;
    const EnvGlobal *G = lookupGlobal(D.Code->Names[Name]);
    return G && G->Role == GlobalRole::ResumeFunction;
  }

  /// Does call \p C (its arguments on top of \p S) call the resume function
  /// with the break's result?
  bool resumeCallTakesBreak(const WalkState &S, const uop::Call &C) const {
    uint32_t Top = C.KwNamesOnTop ? 1 : 0, N = C.NArgs;
    Slot Deeper = peek(S, Top + N + 2), Upper = peek(S, Top + N + 1);
    bool CalleeDeeper = C.calleeSlot(Deeper == Slot::Null) == 0;
    if ((CalleeDeeper ? Deeper : Upper) != Slot::Resume)
      return false;
    // The other slot is an argument when it is not NULL (self).
    if (CalleeDeeper && Upper == Slot::Break)
      return true;
    for (uint32_t K = Top + 1; K <= Top + N; ++K)
      if (peek(S, K) == Slot::Break)
        return true;
    return false;
  }

  /// One micro-operation of the walk; true when the result reached the
  /// resume call.
  bool apply(WalkState &W, const MicroOp &Op) const {
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
              if (pop(W) == Slot::Break)
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
            [&](uop::LoadMethod) {
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
              uop::Effect E = movementOf(O);
              pop(W, E.Pops);
              W.Stack.insert(W.Stack.end(),
                             size_t(std::max<int64_t>(E.Pushes, 0)),
                             Slot::Other);
              return false;
            },
            [&](uop::Effect E) {
              pop(W, E.Pops);
              W.Stack.insert(W.Stack.end(),
                             size_t(std::max<int64_t>(E.Pushes, 0)),
                             Slot::Other);
              return false;
            }},
        Op);
  }

  /// Executes W's instruction; true when the result reached the resume
  /// call. Sets W.Pc to the next instruction (UINT32_MAX: the path ends)
  /// and queues a conditional jump's other edge.
  bool step(WalkState &W, std::vector<WalkState> &Work) {
    const Instruction &I = D.Insts[W.Pc];
    if (!I.Valid) {
      W.Pc = UINT32_MAX;
      return false;
    }
    const OpcodeInfo &Info = I.info();
    if (Info.Terminator && !Info.isJump()) {
      W.Pc = UINT32_MAX; // RETURN_VALUE, RAISE_VARARGS, RERAISE
      return false;
    }
    if (Info.isJump() && I.Target >= 0) {
      int64_t T = D.Insts.indexAtStart(uint64_t(I.landing()));
      WalkState Taken = W;
      for (const MicroOp &Op : lowerInstruction(I, /*JumpEdge=*/true))
        apply(Taken, Op);
      Taken.Pc = T >= 0 ? uint32_t(T) : UINT32_MAX;
      if (!Info.isConditionalJump()) {
        W = std::move(Taken);
        return false;
      }
      if (T >= 0)
        Work.push_back(std::move(Taken));
    }
    for (const MicroOp &Op : lowerInstruction(I))
      if (apply(W, Op))
        return true;
    ++W.Pc;
    return false;
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

bool pyverify::flowsIntoResumeCall(const DecodedCode &Frame, int64_t Index) {
  int64_t P = producerOf(Frame, Index);
  return P >= 0 && ResultWalk(Frame).run(uint32_t(P));
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
  for (int64_t K : Cands)
    if (flowsIntoResumeCall(Frame, K))
      Flow.push_back(K);
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
