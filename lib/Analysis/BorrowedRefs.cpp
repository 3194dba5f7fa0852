//===- BorrowedRefs.cpp - Borrowed references that outlive their local ----===//

#include "pyverify/Analysis/BorrowedRefs.h"
#include "pyverify/Analysis/CFGFixpointGraph.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Fixpoint/FixpointIterator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <optional>
#include <tuple>

using namespace pyverify;

bool BorrowAfterKill::operator<(const BorrowAfterKill &O) const {
  return std::tie(Kill, Load, Local, Use, Possible) <
         std::tie(O.Kill, O.Load, O.Local, O.Use, O.Possible);
}
bool BorrowAfterKill::operator==(const BorrowAfterKill &O) const {
  return std::tie(Kill, Load, Local, Use, Possible) ==
         std::tie(O.Kill, O.Load, O.Local, O.Use, O.Possible);
}

namespace {

constexpr uint32_t Live = ~uint32_t(0);

/// A borrow: from Local, pushed by Load, and the kill of Local since (Live:
/// none).
struct Origin {
  uint32_t Local, Load, Kill;
  bool operator<(const Origin &O) const {
    return std::tie(Local, Load, Kill) < std::tie(O.Local, O.Load, O.Kill);
  }
  bool operator==(const Origin &O) const {
    return std::tie(Local, Load, Kill) == std::tie(O.Local, O.Load, O.Kill);
  }
};

/// What a slot or a local may hold: borrows (sorted, unique), and whether it
/// may hold something else (an owned value).
struct Holds {
  llvm::SmallVector<Origin, 1> Borrows;
  bool MayOwn = true;

  static Holds owned() { return Holds(); }
  /// Merges \p O's borrows into the sorted, unique list in place: a join
  /// that adds nothing (most of them) neither grows nor allocates.
  bool join(const Holds &O) {
    bool Changed = O.MayOwn && !MayOwn;
    MayOwn |= O.MayOwn;
    for (const Origin &B : O.Borrows) {
      auto *It = llvm::lower_bound(Borrows, B);
      if (It == Borrows.end() || !(*It == B)) {
        Borrows.insert(It, B);
        Changed = true;
      }
    }
    return Changed;
  }
  bool operator==(const Holds &O) const {
    return MayOwn == O.MayOwn && Borrows == O.Borrows;
  }
};

/// The state at a program point.
struct BorrowState {
  bool Bottom = true;
  /// Inline up to what most frames hold: a state is copied per block and
  /// edge, and a copy that fits allocates nothing.
  llvm::SmallVector<Holds, 8> Stack;
  llvm::SmallVector<Holds, 8> Locals;

  explicit BorrowState(bool Bottom) : Bottom(Bottom) {}
  bool isBottom() const { return Bottom; }
  bool join(const BorrowState &O) {
    if (O.Bottom)
      return false;
    if (Bottom) {
      *this = O;
      return true;
    }
    bool Changed = false;
    // Depths agree (the pass runs on consistent depths); keep the shorter.
    if (O.Stack.size() < Stack.size())
      Stack.resize(O.Stack.size()), Changed = true;
    for (size_t I = 0; I < Stack.size(); ++I)
      Changed |= Stack[I].join(O.Stack[I]);
    for (size_t I = 0; I < Locals.size() && I < O.Locals.size(); ++I)
      Changed |= Locals[I].join(O.Locals[I]);
    return Changed;
  }
  bool widen(const BorrowState &O) { return join(O); } // finite height
  bool operator==(const BorrowState &O) const {
    return Bottom == O.Bottom && Stack == O.Stack && Locals == O.Locals;
  }
};

/// The locals a borrowing load pushes, in push order (none: not one): the
/// borrowed LoadLocals of its lowering \p Ops (MicroOps.h).
llvm::SmallVector<uint32_t, 2> borrowedLocals(const MicroOps &Ops) {
  llvm::SmallVector<uint32_t, 2> Out;
  for (const MicroOp &Op : Ops)
    if (const auto *L = std::get_if<uop::LoadLocal>(&Op); L && L->Borrowed)
      Out.push_back(L->Local);
  return Out;
}

/// Whether \p I may push its top input itself as its top output (CPython
/// moves the stack reference): FORMAT_SIMPLE of an exact str, END_SEND's
/// value, SET_FUNCTION_ATTRIBUTE's function, PUSH_EXC_INFO's exception --
/// the opcodes CPython's own optimize_load_fast passes a reference through,
/// but GET_ITER, which a later version adds (3.14.2's compiler borrows
/// across GET_ITER: unittest/case.py's `for x in cls`). The opcode tables
/// have no such column yet.
bool passesTopThrough(const Instruction &I) {
  switch (I.op()) {
  case Opcode::FORMAT_SIMPLE:
  case Opcode::END_SEND:
  case Opcode::SET_FUNCTION_ATTRIBUTE:
  case Opcode::PUSH_EXC_INFO:
    return true;
  default:
    return false;
  }
}

/// Whether \p I, which pushes \p IO, may push its input itself under its top
/// output: GET_ITER where it pushes an index above the iterable (3.15's
/// table: a list or tuple is iterated in place, the index a tagged int).
bool passesUnderTopThrough(const Instruction &I, const StackIO &IO) {
  return I.is(Opcode::GET_ITER) && IO.Pops == 1 && IO.Pushes == 2;
}

using UseSink = std::vector<BorrowAfterKill>;

/// Runs instructions on a state; records uses into Sink when given.
class Machine {
public:
  Machine(const InstructionStream &Insts, BorrowState &S, UseSink *Sink)
      : Insts(Insts), S(S), Sink(Sink) {}

  void run(uint32_t Idx, bool JumpEdge) {
    const Instruction &I = Insts[Idx];
    Cur = Idx;
    StackIO IO;
    MicroOps Ops = lowerInstruction(I, JumpEdge, &IO);
    llvm::SmallVector<uint32_t, 2> Borrowed = borrowedLocals(Ops);
    if (!Borrowed.empty() && IO.Pops == 0 &&
        IO.Pushes == int64_t(Borrowed.size())) {
      for (uint32_t L : Borrowed)
        pushBorrow(L);
      return;
    }
    bool OnlyMoves = llvm::all_of(Ops, [](const MicroOp &Op) {
      return std::holds_alternative<uop::Copy>(Op) ||
             std::holds_alternative<uop::Swap>(Op);
    });
    // Values read in place below the pops (LIST_APPEND's list).
    if (!OnlyMoves)
      for (int64_t K = IO.Pops; K < IO.Reads; ++K)
        if (size_t(K) < S.Stack.size())
          use(S.Stack[S.Stack.size() - 1 - K]);
    std::optional<Holds> Top, Under;
    if (IO.Pops >= 1 && !S.Stack.empty() && passesTopThrough(I))
      Top = S.Stack.back();
    if (!S.Stack.empty() && passesUnderTopThrough(I, IO))
      Under = S.Stack.back();
    for (const MicroOp &Op : Ops)
      step(Op);
    if (Top && IO.Pushes >= 1 && !S.Stack.empty())
      S.Stack.back().join(*Top);
    if (Under && S.Stack.size() >= 2)
      S.Stack[S.Stack.size() - 2].join(*Under);
  }

private:
  const InstructionStream &Insts;
  BorrowState &S;
  UseSink *Sink;
  uint32_t Cur = 0;

  Holds &local(uint32_t L) {
    if (L >= S.Locals.size())
      S.Locals.resize(L + 1);
    return S.Locals[L];
  }
  void pushBorrow(uint32_t L) {
    Holds H = local(L);
    H.MayOwn = false;
    Holds Own;
    Own.MayOwn = false;
    Own.Borrows.push_back({L, Cur, Live});
    H.join(Own);
    S.Stack.push_back(std::move(H));
  }
  Holds pop() {
    if (S.Stack.empty())
      return Holds::owned();
    Holds H = std::move(S.Stack.back());
    S.Stack.pop_back();
    return H;
  }
  void use(const Holds &H) {
    if (!Sink)
      return;
    bool Possible = H.MayOwn || H.Borrows.size() > 1;
    for (const Origin &O : H.Borrows)
      if (O.Kill != Live)
        Sink->push_back({O.Load, O.Local, O.Kill, Cur, Possible});
  }
  void kill(uint32_t L) {
    auto KillIn = [&](Holds &H) {
      bool Any = false;
      for (Origin &O : H.Borrows)
        if (O.Local == L && O.Kill == Live)
          O.Kill = Cur, Any = true;
      if (Any) {
        llvm::sort(H.Borrows);
        H.Borrows.erase(std::unique(H.Borrows.begin(), H.Borrows.end()),
                        H.Borrows.end());
      }
    };
    for (Holds &H : S.Stack)
      KillIn(H);
    for (Holds &H : S.Locals)
      KillIn(H);
  }
  void copy(uint32_t N) {
    if (N >= 1 && N <= S.Stack.size())
      S.Stack.push_back(S.Stack[S.Stack.size() - N]);
    else
      S.Stack.push_back(Holds::owned());
  }
  void swap(uint32_t N) {
    if (N >= 1 && N <= S.Stack.size())
      std::swap(S.Stack.back(), S.Stack[S.Stack.size() - N]);
  }
  void loadMethod(const uop::LoadMethod &M) {
    Holds Self = pop();
    use(Self);
    Self.MayOwn = true; // or NULL
    if (M.nullSlot() == 0) {
      S.Stack.push_back(std::move(Self));
      S.Stack.push_back(Holds::owned());
    } else {
      S.Stack.push_back(Holds::owned());
      S.Stack.push_back(std::move(Self));
    }
  }
  void effect(const uop::Effect &E) {
    Holds Passed = Holds::owned();
    for (int64_t K = 0; K < E.Pops; ++K) {
      Holds H = pop();
      use(H);
      Passed.join(H);
    }
    // An output the table marks possibly NULL is a self passed through
    // (LOAD_SPECIAL, LOAD_SUPER_ATTR); the other pass-throughs are
    // passesTopThrough()'s. Every other output is owned (taking every output
    // as possibly any input gives 1390 false alarms on the 3.14 stdlib).
    for (int64_t K = 0; K < E.Pushes; ++K)
      S.Stack.push_back((E.NullOut >> K) & 1 ? Passed : Holds::owned());
  }
  void step(const MicroOp &Op) {
    std::visit(
        Overloaded{
            [&](const uop::LoadLocal &L) { S.Stack.push_back(local(L.Local)); },
            [&](const uop::StoreLocal &L) {
              local(L.Local) = pop();
              kill(L.Local);
            },
            [&](const uop::DeleteLocal &L) {
              kill(L.Local);
              local(L.Local) = Holds::owned();
            },
            [&](const uop::MakeCell &L) {
              kill(L.Local);
              local(L.Local) = Holds::owned();
            },
            [&](const uop::Copy &C) { copy(C.N); },
            [&](const uop::Swap &W) { swap(W.N); },
            [&](const uop::LoadMethod &M) { loadMethod(M); },
            [&](const auto &Other) { effect(movementOf(Other)); },
        },
        Op);
  }
};

/// The analysis for the fixpoint engine: a block's out state is the state
/// before its last instruction, which each normal edge runs on its side.
class BorrowAnalysis {
public:
  using Domain = BorrowState;
  explicit BorrowAnalysis(const CFG &G) : G(G), Insts(G.code().Insts) {}

  Domain bottom() const { return BorrowState(true); }
  Domain entryState() const {
    BorrowState S(false);
    S.Stack.assign(
        size_t(std::max<int64_t>(0, entryStackDepth(*G.code().Code))),
        Holds::owned());
    S.Locals.assign(G.code().Code->LocalsPlusNames.size(), Holds::owned());
    return S;
  }
  Domain transferNode(unsigned B, const Domain &In) const {
    BorrowState S = working(In);
    const BasicBlock &BB = G.block(B);
    Machine M(Insts, S, nullptr);
    for (uint32_t I = BB.Begin; I < BB.last(); ++I)
      M.run(I, false);
    return S;
  }
  Domain transferEdge(unsigned E, const Domain &In, const Domain &Out) const {
    const CFGEdge &Edge = G.edge(E);
    if (Edge.isException())
      return handlerState(Edge, In);
    BorrowState S = working(Out);
    bool Jump =
        Edge.Kind == EdgeKind::Jump || Edge.Kind == EdgeKind::BranchTaken;
    Machine(Insts, S, nullptr).run(G.block(Edge.Source).last(), Jump);
    return S;
  }

  /// Replays block \p B from \p In, recording every use into \p Sink.
  void replay(unsigned B, const Domain &In, UseSink &Sink) const {
    const BasicBlock &BB = G.block(B);
    BorrowState S = working(In);
    Machine M(Insts, S, &Sink);
    for (uint32_t I = BB.Begin; I < BB.last(); ++I)
      M.run(I, false);
    const Instruction &Last = Insts[BB.last()];
    if (Last.Valid && Last.info().isJump()) {
      BorrowState J = working(S);
      Machine(Insts, J, &Sink).run(BB.last(), true);
    }
    M.run(BB.last(), false);
  }

private:
  const CFG &G;
  const InstructionStream &Insts;

  /// A copy of \p In to run instructions on, its stack's capacity the
  /// frame's (co_stacksize, and the two slots a handler's entry pushes), so
  /// that no push reallocates it. co_stacksize is the input's claim, so it
  /// is clamped: an absurd one must not reserve absurd memory (a deeper
  /// stack still grows as needed).
  BorrowState working(const BorrowState &In) const {
    constexpr int64_t MaxReserved = 256;
    BorrowState S(In.Bottom);
    S.Stack.reserve(
        std::max<size_t>(In.Stack.size(),
                         size_t(std::clamp<int64_t>(G.code().Code->StackSize, 0,
                                                    MaxReserved))) +
        2);
    S.Stack = In.Stack;
    S.Locals = In.Locals;
    return S;
  }

  Domain handlerState(const CFGEdge &Edge, const Domain &In) const {
    const BasicBlock &BB = G.block(Edge.Source);
    BorrowState S = working(In), Joined = working(In);
    Machine M(Insts, S, nullptr);
    for (uint32_t I = BB.Begin; I < BB.last(); ++I) {
      M.run(I, false);
      Joined.join(S);
    }
    const ExceptionTableEntry &T = G.code().Table[size_t(Edge.Entry)];
    Joined.Stack.resize(T.Depth, Holds::owned());
    if (T.Lasti)
      Joined.Stack.push_back(Holds::owned());
    Joined.Stack.push_back(Holds::owned());
    return Joined;
  }
};

} // namespace

llvm::Expected<BorrowResult>
pyverify::findBorrowsOutlivingLocals(const CFG &G) {
  BorrowResult R;
  const InstructionStream &Insts = G.code().Insts;
  if (!versionMayLowerTo(G.code().Code->Version, LowersTo::BorrowedLoad))
    return R; // no opcode of the version borrows
  for (uint32_t I = 0; I < Insts.size(); ++I)
    if (isBorrowingLoad(Insts[I])) // a table lookup: no lowering
      ++R.BorrowLoads;
  if (!R.BorrowLoads)
    return R;
  BorrowAnalysis A(G);
  UseSink Sink;
  auto Fix = runForwardFixpoint(
      CFGFixpointGraph(G), A, {},
      [&](unsigned B, const BorrowState &In, llvm::ArrayRef<BorrowState>) {
        A.replay(B, In, Sink);
      });
  if (!Fix)
    return Fix.takeError();
  llvm::sort(Sink);
  Sink.erase(std::unique(Sink.begin(), Sink.end()), Sink.end());
  R.Uses = std::move(Sink);
  return R;
}
