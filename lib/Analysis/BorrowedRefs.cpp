//===- BorrowedRefs.cpp - Borrowed references that outlive their local ----===//

#include "pyverify/Analysis/BorrowedRefs.h"
#include "LowerKind.h"
#include "pyverify/Analysis/CFGFixpointGraph.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Fixpoint/FixpointIterator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

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
  LLVM_ATTRIBUTE_ALWAYS_INLINE bool join(const Holds &O) {
    bool Changed = O.MayOwn && !MayOwn;
    MayOwn |= O.MayOwn;
    if (O.Borrows.empty()) // most slots hold no borrow: inline
      return Changed;
    return mergeBorrows(O) || Changed;
  }
  LLVM_ATTRIBUTE_NOINLINE bool mergeBorrows(const Holds &O) {
    bool Changed = false;
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
  /// Owning is or-ed, borrows unite in order, the shorter stack is kept: no
  /// state that arrived first is kept (FixpointIterator.h).
  static constexpr bool JoinIsOrderFree = true;
  bool operator==(const BorrowState &O) const {
    return Bottom == O.Bottom && Stack == O.Stack && Locals == O.Locals;
  }
};

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

/// Whether running \p I on edge \p JumpEdge from \p S could record a use:
/// only when \p S holds a killed borrow or \p I kills one (a use records
/// killed borrows only, and a borrow pushed is live until a kill).
bool mayRecordUse(const Instruction &I, bool JumpEdge, const BorrowState &S) {
  for (const auto *V : {&S.Stack, &S.Locals})
    for (const Holds &H : *V)
      for (const Origin &O : H.Borrows)
        if (O.Kill != Live)
          return true;
  bool Kills = false;
  lowering::lowerEach(I, JumpEdge, [&](const auto &Op) {
    using T = std::decay_t<decltype(Op)>;
    Kills |= std::is_same_v<T, uop::StoreLocal> ||
             std::is_same_v<T, uop::DeleteLocal> ||
             std::is_same_v<T, uop::MakeCell>;
  });
  return Kills;
}

/// The uses found by the transfers, each with its block. A block's are
/// dropped when it is visited again: the engine visits a block again
/// whenever its entry state grows, and transfers its edges right after it,
/// so what is left after the fixpoint is every block's from its final
/// entry state -- what a walk of each block from it would find, without
/// that walk.
struct UseLog {
  std::vector<std::pair<unsigned, BorrowAfterKill>> All;

  void reset(unsigned B) {
    if (!All.empty()) // most code objects find none
      llvm::erase_if(All, [B](const auto &P) { return P.first == B; });
  }
};

/// Runs instructions on a state; records uses into Log (as block Block's)
/// when given.
class Machine {
public:
  Machine(const InstructionStream &Insts, BorrowState &S, UseLog *Log,
          unsigned Block)
      : Insts(Insts), S(S), Log(Log), Block(Block) {}

  void run(uint32_t Idx, bool JumpEdge) {
    const Instruction &I = Insts[Idx];
    Cur = Idx;
    Low = S.Stack.size();
    Written.clear();
    const StackIO IO = getStackIO(I.info(), I.Arg, JumpEdge);
    // A borrowing load: its borrowed LoadLocals, when they are all it
    // pushes. Only the fall-through lowering of an instruction the table
    // marks (isBorrowingLoad) holds one; a jump edge's holds no LoadLocal.
    if (!JumpEdge && isBorrowingLoad(I) && IO.Pops == 0) {
      llvm::SmallVector<uint32_t, 2> Borrowed;
      lowering::lowerEach(I, false, [&](const auto &Op) {
        if constexpr (std::is_same_v<std::decay_t<decltype(Op)>,
                                     uop::LoadLocal>)
          if (Op.Borrowed)
            Borrowed.push_back(Op.Local);
      });
      if (!Borrowed.empty() && IO.Pushes == int64_t(Borrowed.size())) {
        for (uint32_t L : Borrowed)
          pushBorrow(L);
        return;
      }
    }
    // Values read in place below the pops (LIST_APPEND's list), unless the
    // instruction only moves slots (COPY, SWAP).
    if (IO.Reads > IO.Pops && !onlyMoves(I, JumpEdge))
      for (int64_t K = IO.Pops; K < IO.Reads; ++K)
        if (size_t(K) < S.Stack.size())
          use(S.Stack[S.Stack.size() - 1 - K]);
    std::optional<Holds> Top, Under;
    if (IO.Pops >= 1 && !S.Stack.empty() && passesTopThrough(I))
      Top = S.Stack.back();
    if (!S.Stack.empty() && passesUnderTopThrough(I, IO))
      Under = S.Stack.back();
    lowering::lowerEach(I, JumpEdge, [&](const auto &Op) { step(Op); });
    if (Top && IO.Pushes >= 1 && !S.Stack.empty()) {
      wroteSlot(S.Stack.size() - 1);
      S.Stack.back().join(*Top);
    }
    if (Under && S.Stack.size() >= 2) {
      wroteSlot(S.Stack.size() - 2);
      S.Stack[S.Stack.size() - 2].join(*Under);
    }
  }

  /// Joins the state into \p Joined, which holds (covers) the state as it
  /// was before the last run(): only the slots that run wrote can add
  /// anything (the join of the rest is the identity), so only they are
  /// joined -- BorrowState::join() of the whole state, made cheaper.
  void joinWrittenInto(BorrowState &Joined) const {
    if (S.Stack.size() < Joined.Stack.size())
      Joined.Stack.truncate(S.Stack.size());
    for (size_t K = Low; K < Joined.Stack.size(); ++K)
      Joined.Stack[K].join(S.Stack[K]);
    for (uint32_t L : Written)
      if (L < Joined.Locals.size() && L < S.Locals.size())
        Joined.Locals[L].join(S.Locals[L]);
  }

private:
  const InstructionStream &Insts;
  BorrowState &S;
  UseLog *Log;
  unsigned Block;
  uint32_t Cur = 0;
  /// What the last run() wrote: the stack slots from Low up (pushes are
  /// above the lowest slot popped or written), and the locals in Written.
  size_t Low = 0;
  llvm::SmallVector<uint32_t, 4> Written;

  void wroteSlot(size_t K) { Low = std::min(Low, K); }

  static bool onlyMoves(const Instruction &I, bool JumpEdge) {
    bool Only = true;
    lowering::lowerEach(I, JumpEdge, [&](const auto &Op) {
      using T = std::decay_t<decltype(Op)>;
      Only &= std::is_same_v<T, uop::Copy> || std::is_same_v<T, uop::Swap>;
    });
    return Only;
  }
  /// Local \p L, to write.
  Holds &written(uint32_t L) {
    Written.push_back(L);
    return local(L);
  }
  Holds &local(uint32_t L) {
    if (L >= S.Locals.size())
      S.Locals.resize(L + 1);
    return S.Locals[L];
  }
  void pushBorrow(uint32_t L) {
    if (local(L).Borrows.empty()) {
      // The local holds no borrow (most): the slot holds the new one alone,
      // what the join below gives, built in place.
      Holds &H = S.Stack.emplace_back();
      H.MayOwn = false;
      H.Borrows.push_back({L, Cur, Live});
      return;
    }
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
    wroteSlot(S.Stack.size());
    return H;
  }
  LLVM_ATTRIBUTE_ALWAYS_INLINE void use(const Holds &H) {
    if (Log && !H.Borrows.empty()) // most slots hold no borrow
      record(H);
  }
  LLVM_ATTRIBUTE_NOINLINE void record(const Holds &H) {
    bool Possible = H.MayOwn || H.Borrows.size() > 1;
    for (const Origin &O : H.Borrows)
      if (O.Kill != Live)
        Log->All.push_back(
            {Block, BorrowAfterKill{O.Load, O.Local, O.Kill, Cur, Possible}});
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
      return Any;
    };
    for (size_t K = 0; K < S.Stack.size(); ++K)
      if (KillIn(S.Stack[K]))
        wroteSlot(K);
    for (size_t K = 0; K < S.Locals.size(); ++K)
      if (KillIn(S.Locals[K]))
        Written.push_back(uint32_t(K));
  }
  void copy(uint32_t N) {
    if (N >= 1 && N <= S.Stack.size())
      S.Stack.push_back(S.Stack[S.Stack.size() - N]);
    else
      S.Stack.emplace_back();
  }
  void swap(uint32_t N) {
    if (N >= 1 && N <= S.Stack.size()) {
      wroteSlot(S.Stack.size() - N);
      std::swap(S.Stack.back(), S.Stack[S.Stack.size() - N]);
    }
  }
  void loadMethod(const uop::LoadMethod &M) {
    Holds Self = pop();
    use(Self);
    Self.MayOwn = true; // or NULL
    if (M.nullSlot() == 0) {
      S.Stack.push_back(std::move(Self));
      S.Stack.emplace_back();
    } else {
      S.Stack.emplace_back();
      S.Stack.push_back(std::move(Self));
    }
  }
  void effect(const uop::Effect &E) {
    // The popped slots, used where they lie (top first) and joined into
    // Passed only when an output passes them through (NullOut); popping
    // past the bottom pops owned slots, which Passed (owned) holds already.
    size_t Have = S.Stack.size();
    size_t Pops =
        size_t(std::min<int64_t>(std::max<int64_t>(E.Pops, 0), int64_t(Have)));
    for (size_t K = 0; K < Pops; ++K)
      use(S.Stack[Have - 1 - K]);
    if (!E.NullOut) { // every output owned (most)
      S.Stack.truncate(Have - Pops);
      wroteSlot(Have - Pops);
      for (int64_t K = 0; K < E.Pushes; ++K)
        S.Stack.emplace_back();
      return;
    }
    Holds Passed = Holds::owned();
    for (size_t K = 0; K < Pops; ++K)
      Passed.join(S.Stack[Have - 1 - K]);
    S.Stack.truncate(Have - Pops);
    wroteSlot(Have - Pops);
    // An output the table marks possibly NULL is a self passed through
    // (LOAD_SPECIAL, LOAD_SUPER_ATTR); the other pass-throughs are
    // passesTopThrough()'s. Every other output is owned (taking every output
    // as possibly any input gives 1390 false alarms on the 3.14 stdlib).
    for (int64_t K = 0; K < E.Pushes; ++K) {
      if ((E.NullOut >> K) & 1)
        S.Stack.push_back(Passed);
      else
        S.Stack.emplace_back();
    }
  }
  /// One micro-operation, as lowerEach() hands it over.
  void step(const uop::LoadLocal &L) { S.Stack.push_back(local(L.Local)); }
  void step(const uop::StoreLocal &L) {
    written(L.Local) = pop();
    kill(L.Local);
  }
  void step(const uop::DeleteLocal &L) {
    kill(L.Local);
    written(L.Local) = Holds::owned();
  }
  void step(const uop::MakeCell &L) {
    kill(L.Local);
    written(L.Local) = Holds::owned();
  }
  void step(const uop::Copy &C) { copy(C.N); }
  void step(const uop::Swap &W) { swap(W.N); }
  void step(const uop::LoadMethod &M) { loadMethod(M); }
  void step(const uop::Effect &E) { effect(E); }
  template <typename Other> void step(const Other &O) { effect(movementOf(O)); }
};

/// The analysis for the fixpoint engine: a block's out state is the state
/// before its last instruction, which each normal edge runs on its side.
/// The transfers record the uses they meet (UseLog): a block's
/// instructions before the last in transferNode(), the last one on its
/// normal edges, and where no edge runs it on the fall-through (return,
/// raise) or on the jump of a jump, in transferNode() -- the runs a walk of
/// the block for its uses makes.
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
    Log.reset(B);
    BorrowState S = working(In);
    const BasicBlock &BB = G.block(B);
    EdgeFacts F = edgeFacts(BB);
    Machine M(Insts, S, &Log, B);
    if (F.Exceptions) {
      // The handlers' state, joined on the way (handlerState()).
      Walked.Block = B;
      Walked.In = &In;
      Walked.Left = F.Exceptions;
      Walked.Joined = In; // its buffers reused
      for (uint32_t I = BB.Begin; I < BB.last(); ++I) {
        M.run(I, false);
        M.joinWrittenInto(Walked.Joined);
      }
    } else {
      for (uint32_t I = BB.Begin; I < BB.last(); ++I)
        M.run(I, false);
    }
    const Instruction &Last = Insts[BB.last()];
    if (Last.Valid && Last.info().isJump() && !F.Jump)
      lastUses(B, S, /*Jump=*/true);
    if (!F.FallThrough) {
      // Without a normal edge, the state returned is read by no edge
      // (exception edges read the entry state): the last runs in place.
      if (F.Jump)
        lastUses(B, S, /*Jump=*/false);
      else
        M.run(BB.last(), false);
    }
    return S;
  }
  Domain transferEdge(unsigned E, const Domain &In, const Domain &Out) const {
    const CFGEdge &Edge = G.edge(E);
    if (Edge.isException())
      return handlerState(Edge, In);
    BorrowState S = working(Out);
    const BasicBlock &BB = G.block(Edge.Source);
    bool Jump = isJumpEdge(Edge);
    // Its uses, when a walk of the block would run it so: the fall-through
    // always, the jump edge of a jump.
    const Instruction &Last = Insts[BB.last()];
    bool Records = !Jump || (Last.Valid && Last.info().isJump());
    Machine(Insts, S, Records ? &Log : nullptr, Edge.Source)
        .run(BB.last(), Jump);
    return S;
  }

  /// The uses found, in no order (duplicates possible).
  std::vector<BorrowAfterKill> takeUses() const {
    std::vector<BorrowAfterKill> Out;
    Out.reserve(Log.All.size());
    for (const auto &P : Log.All)
      Out.push_back(P.second);
    return Out;
  }

private:
  const CFG &G;
  const InstructionStream &Insts;
  mutable UseLog Log;
  /// The handlers' state of the block transferNode() walked last, from the
  /// entry state it walked from (the engine's own, not a copy), and how
  /// many of its exception edges have yet to take it: the engine transfers
  /// a block's edges right after the block; any other caller walks again.
  /// Should a self-loop's join grow that entry state between the block and
  /// its exception edges, those edges take the state from the smaller one:
  /// the grown block is queued again and its last visit gives the state
  /// from its final one, which covers it (the transfer is monotone), so
  /// the fixpoint is the same.
  mutable struct {
    unsigned Block = ~0u;
    const BorrowState *In = nullptr;
    unsigned Left = 0;
    BorrowState Joined{true};
  } Walked;

  struct EdgeFacts {
    unsigned Exceptions = 0;
    bool FallThrough = false; ///< A normal edge runs the fall-through.
    bool Jump = false;        ///< A normal edge runs the jump.
  };
  static bool isJumpEdge(const CFGEdge &E) {
    return E.Kind == EdgeKind::Jump || E.Kind == EdgeKind::BranchTaken;
  }
  EdgeFacts edgeFacts(const BasicBlock &BB) const {
    EdgeFacts F;
    for (unsigned EI : BB.Succs) {
      const CFGEdge &E = G.edge(EI);
      if (E.isException())
        ++F.Exceptions;
      else if (isJumpEdge(E))
        F.Jump = true;
      else
        F.FallThrough = true;
    }
    return F;
  }

  /// Records the uses of block \p B's last instruction on edge \p Jump
  /// from \p S, the state before it, which stays as it is.
  void lastUses(unsigned B, const BorrowState &S, bool Jump) const {
    uint32_t Last = G.block(B).last();
    if (!mayRecordUse(Insts[Last], Jump, S))
      return;
    BorrowState X = working(S);
    Machine(Insts, X, &Log, B).run(Last, Jump);
  }

  /// A copy of \p In to run instructions on. No capacity is reserved: a
  /// stack held inline (most) allocates only when a push grows it past
  /// that (measured: reserving the frame's co_stacksize allocates on every
  /// copy of a deeper frame and costs more).
  BorrowState working(const BorrowState &In) const { return In; }

  /// The handler's entry state on exception edge \p Edge: the join of the
  /// states before every instruction of its block, cut to the entry's
  /// depth, the lasti and the exception pushed.
  Domain handlerState(const CFGEdge &Edge, const Domain &In) const {
    BorrowState Joined(true);
    if (Walked.Block == Edge.Source && Walked.In == &In) {
      if (--Walked.Left == 0) {
        Joined = std::move(Walked.Joined);
        Walked.Block = ~0u;
      } else {
        Joined = Walked.Joined;
      }
    } else {
      const BasicBlock &BB = G.block(Edge.Source);
      BorrowState S = working(In);
      Joined = working(In);
      Machine M(Insts, S, nullptr, Edge.Source);
      for (uint32_t I = BB.Begin; I < BB.last(); ++I) {
        M.run(I, false);
        Joined.join(S);
      }
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
  auto Fix = runForwardFixpoint(CFGFixpointGraph(G), A);
  if (!Fix)
    return Fix.takeError();
  std::vector<BorrowAfterKill> Sink = A.takeUses();
  llvm::sort(Sink);
  Sink.erase(std::unique(Sink.begin(), Sink.end()), Sink.end());
  R.Uses = std::move(Sink);
  return R;
}
