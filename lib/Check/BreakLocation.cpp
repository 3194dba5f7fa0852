//===- BreakLocation.cpp - The frame's break instruction ------------------===//

#include "pyverify/Check/BreakLocation.h"

#include "pyverify/Analysis/Environment.h"
#include "pyverify/Bytecode/Opcode.h"

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

  bool isResumeGlobal(const Instruction &I) const {
    uint32_t Name = I.Arg >> 1;
    if (Name >= D.Code->Names.size())
      return false;
    const EnvGlobal *G = lookupGlobal(D.Code->Names[Name]);
    return G && G->Role == GlobalRole::ResumeFunction;
  }

  /// CALL n: does it call the resume function with the break's result?
  bool resumeCallTakesBreak(const WalkState &S, uint32_t N) const {
    Slot A = peek(S, N + 2), B = peek(S, N + 1);
    Slot Callee = A == Slot::Null ? B : A;
    if (Callee != Slot::Resume)
      return false;
    if (A != Slot::Null && B == Slot::Break)
      return true; // the self slot of a method call
    for (uint32_t K = 1; K <= N; ++K)
      if (peek(S, K) == Slot::Break)
        return true;
    return false;
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
    switch (I.op()) {
    case Opcode::CALL:
      if (resumeCallTakesBreak(W, I.Arg))
        return true;
      break;
    case Opcode::LOAD_GLOBAL:
      if (I.Arg & 1)
        W.Stack.push_back(Slot::Null);
      W.Stack.push_back(isResumeGlobal(I) ? Slot::Resume : Slot::Other);
      ++W.Pc;
      return false;
    case Opcode::PUSH_NULL:
      W.Stack.push_back(Slot::Null);
      ++W.Pc;
      return false;
    case Opcode::LOAD_FAST:
      W.Stack.push_back(llvm::is_contained(W.Locals, I.Arg) ? Slot::Break
                                                            : Slot::Other);
      ++W.Pc;
      return false;
    case Opcode::STORE_FAST: {
      llvm::erase_value(W.Locals, I.Arg);
      if (pop(W) == Slot::Break)
        W.Locals.push_back(I.Arg);
      ++W.Pc;
      return false;
    }
    case Opcode::COPY:
      W.Stack.push_back(peek(W, I.Arg));
      ++W.Pc;
      return false;
    case Opcode::SWAP:
      if (I.Arg >= 1 && I.Arg <= MaxSwap) {
        reach(W, I.Arg);
        std::swap(W.Stack.back(), W.Stack[W.Stack.size() - I.Arg]);
      }
      ++W.Pc;
      return false;
    default:
      break;
    }
    if (Info.Terminator && !Info.isJump()) {
      W.Pc = UINT32_MAX; // RETURN_VALUE, RAISE_VARARGS, RERAISE
      return false;
    }
    if (Info.isJump() && I.Target >= 0) {
      int64_t T = D.Insts.indexAtStart(uint32_t(I.Target));
      StackIO J = getStackIO(I.info(), I.Arg, true);
      if (Info.isConditionalJump() && T >= 0) {
        WalkState Taken = W;
        pop(Taken, J.Pops);
        Taken.Stack.insert(Taken.Stack.end(), size_t(J.Pushes), Slot::Other);
        Taken.Pc = uint32_t(T);
        Work.push_back(std::move(Taken));
      } else if (!Info.isConditionalJump()) {
        pop(W, J.Pops);
        W.Stack.insert(W.Stack.end(), size_t(J.Pushes), Slot::Other);
        W.Pc = T >= 0 ? uint32_t(T) : UINT32_MAX;
        return false;
      }
    }
    StackIO IO = getStackIO(I.info(), I.Arg, false);
    pop(W, IO.Pops);
    W.Stack.insert(W.Stack.end(), size_t(std::max<int64_t>(IO.Pushes, 0)),
                   Slot::Other);
    ++W.Pc;
    return false;
  }
};

/// The instruction whose pushed value is the call's result: \p Index, or
/// for PRECALL / KW_NAMES the CALL completing it; -1 if none.
int64_t producerOf(const DecodedCode &D, int64_t Index) {
  for (int64_t K = Index; K < int64_t(D.Insts.size()); ++K) {
    const Instruction &I = D.Insts[size_t(K)];
    if (!I.Valid)
      return -1;
    if (!I.is(Opcode::PRECALL) && !I.is(Opcode::KW_NAMES))
      return K;
  }
  return -1;
}

bool sameOperation(const Instruction &A, const Instruction &B) {
  return A.Valid && B.Valid && A.OpByte == B.OpByte && A.Arg == B.Arg;
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
    if (!sameOperation(Frame.Insts[size_t(K)], OB))
      return {-1, llvm::formatv("the frame's instruction at "
                                "frame_break_offset {0} is {1}, not the "
                                "original's {2} {3} at break_offset",
                                *Named, Frame.Insts[size_t(K)].name(),
                                OB.name(), OB.Arg)};
    return {K, ""};
  }
  std::vector<int64_t> Cands;
  for (size_t K = 0; K < Frame.Insts.size(); ++K)
    if (sameOperation(Frame.Insts[K], OB))
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
