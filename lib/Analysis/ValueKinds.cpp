//===- ValueKinds.cpp - NULL on the stack, unbound locals -----------------===//

#include "pyverify/Analysis/ValueKinds.h"
#include "LowerKind.h"
#include "ValueMoves.h"
#include "pyverify/Analysis/CFGFixpointGraph.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Analysis/SlotKinds.h"
#include "pyverify/Analysis/StackDepth.h"
#include "pyverify/Fixpoint/FixpointIterator.h"
#include "pyverify/Support/SpareBlock.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>
#include <optional>
#include <tuple>
#include <type_traits>

using namespace pyverify;

using namespace pyverify::values;

ValueState ValueState::reached(size_t Depth, size_t NumLocals) {
  ValueState S(Shape::Reached);
  S.Stack.assign(Depth, ValueSlot());
  S.Locals.assign(NumLocals, Null);
  return S;
}

namespace {
/// \p To holds \p From's elements. A state holds a few: up to the inline
/// capacity, whole 16-byte chunks are copied (both buffers hold at least
/// that capacity, a multiple of 16 bytes), cheaper than SmallVector's
/// generic assignment and a call to memcpy.
template <typename T, unsigned N>
LLVM_ATTRIBUTE_ALWAYS_INLINE void
copySlots(llvm::SmallVector<T, N> &To, const llvm::SmallVector<T, N> &From) {
  static_assert(std::is_trivially_copyable_v<T> && N * sizeof(T) % 16 == 0);
  size_t Size = From.size();
  To.resize_for_overwrite(Size);
  if (Size > N) {
    std::copy(From.begin(), From.end(), To.begin());
    return;
  }
  const char *Src = reinterpret_cast<const char *>(From.data());
  char *Dst = reinterpret_cast<char *>(To.data());
  for (size_t Off = 0; Off < Size * sizeof(T); Off += 16)
    std::memcpy(Dst + Off, Src + Off, 16);
}
} // namespace

ValueState &ValueState::operator=(const ValueState &O) {
  S = O.S;
  Handler = O.Handler;
  copySlots(Stack, O.Stack);
  copySlots(Locals, O.Locals);
  return *this;
}

ValueState &ValueState::operator=(ValueState &&O) {
  S = O.S;
  Handler = O.Handler;
  // Held inline: copied; on the heap: taken.
  if (O.Stack.size() <= InlineSlots)
    copySlots(Stack, O.Stack);
  else
    Stack = std::move(O.Stack);
  if (O.Locals.size() <= InlineLocals)
    copySlots(Locals, O.Locals);
  else
    Locals = std::move(O.Locals);
  return *this;
}

bool ValueState::join(const ValueState &O) {
  if (O.isBottom() || isInconsistent())
    return false;
  if (isBottom()) {
    *this = O;
    return true;
  }
  if (O.isInconsistent() || Stack.size() != O.Stack.size() ||
      Locals.size() != O.Locals.size()) {
    *this = inconsistent();
    return true;
  }
  bool Changed = false;
  auto Merge = [&](SlotKinds &A, SlotKinds B) {
    if ((A | B) != A) {
      A |= B;
      Changed = true;
    }
  };
  for (size_t K = 0; K < Stack.size(); ++K) {
    Merge(Stack[K].K, O.Stack[K].K);
    if (Stack[K].Id != O.Stack[K].Id && Stack[K].Id) {
      Stack[K].Id = 0;
      Changed = true;
    }
  }
  for (size_t K = 0; K < Locals.size(); ++K)
    Merge(Locals[K], O.Locals[K]);
  if (O.Handler && !Handler)
    Handler = Changed = true;
  return Changed;
}

bool ValueState::operator==(const ValueState &O) const {
  if (S != O.S)
    return false;
  return !isReached() ||
         (Handler == O.Handler && Stack == O.Stack && Locals == O.Locals);
}

namespace {

/// The analysis the Fixpoint engine runs: a block's transfer walks it up to
/// its last instruction; an edge's steps the last instruction on it, or
/// unwinds to the handler.
class ValueKinds {
public:
  using Domain = ValueState;

  explicit ValueKinds(const CFG &G) : G(G), D(G.code()), Insts(D.Insts) {}

  llvm::Expected<std::vector<ValueIssue>> run() const {
    if (Insts.size() == 0)
      return std::vector<ValueIssue>();
    std::vector<ValueIssue> Issues;
    std::optional<unsigned> Conflict; // a block reached at two depths
    FoundAt.assign(G.size(), {0, 0});
#ifndef NDEBUG
    FoundFrom.assign(G.size(), ValueState::bottom());
#endif
    auto Fix = runForwardFixpoint(
        CFGFixpointGraph(G), *this, {},
        [&](unsigned B, const ValueState &In, llvm::ArrayRef<ValueState> All) {
          if (In.isReached()) {
            assert(FoundFrom[B] == In && "a block's last visit is not final");
            closeFound();
            Issues.insert(Issues.end(), Found.begin() + FoundAt[B].first,
                          Found.begin() + FoundAt[B].second);
            return;
          }
          // Named where it arises: a predecessor's state is consistent.
          if (!Conflict || (!arises(*Conflict, All) && arises(B, All)))
            Conflict = B;
        },
        SpareStates::take());
    if (!Fix)
      return Fix.takeError();
    if (Fix->In.capacity() <= MaxKeptStates) { // a huge code object's: freed
      Fix->In.clear();
      SpareStates::keep(std::move(Fix->In));
    }
    if (Conflict)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "two paths reach offset %u with stacks of different depths",
          unsigned(Insts[G.block(*Conflict).Begin].Offset));
    std::sort(Issues.begin(), Issues.end(),
              [](const ValueIssue &A, const ValueIssue &B) {
                return std::tie(A.Inst, A.K, A.Which, A.Found, A.From) <
                       std::tie(B.Inst, B.K, B.Which, B.Found, B.From);
              });
    Issues.erase(std::unique(Issues.begin(), Issues.end(),
                             [](const ValueIssue &A, const ValueIssue &B) {
                               return A.Inst == B.Inst && A.K == B.K &&
                                      A.Which == B.Which;
                             }),
                 Issues.end());
    return Issues;
  }

  /// The thread's block states of the last run, handed to the next one:
  /// their buffer is reused (a few blocks' states are past glibc's
  /// per-thread cache; a code object's runs one after another).
  using SpareStates = ThreadSpare<std::vector<ValueState>>;
  static constexpr size_t MaxKeptStates = 256 * 1024 / sizeof(ValueState);

  ValueState bottom() const { return ValueState::bottom(); }

  ValueState entryState() const {
    const CodeObject &C = *D.Code;
    size_t N = C.LocalsPlusNames.size();
    ValueState S = ValueState::reached(size_t(entryStackDepth(C)), N);
    size_t Args = size_t(std::max(0, C.ArgCount)) +
                  size_t(std::max(0, C.KwOnlyArgCount)) +
                  ((C.Flags & CoVarArgs) ? 1 : 0) +
                  ((C.Flags & CoVarKeywords) ? 1 : 0);
    for (size_t K = 0; K < std::min(Args, N); ++K)
      S.Locals[K] = Obj;
    return S;
  }

  /// The state before block \p B's last instruction; the issues of its
  /// instructions before the last, and of the last when no normal edge
  /// leaves (return, raise), go to Found (as block \p B's).
  ValueState transferNode(unsigned B, const ValueState &In) const {
    const BasicBlock &Blk = G.block(B);
    std::vector<ValueIssue> &R = openFound(B, /*Keep=*/false);
#ifndef NDEBUG
    FoundFrom[B] = In;
#endif
    ValueState S = In; // the one state returned: no copy on return
    if (!S.isReached() || Blk.size() == 0)
      return S;
    const EdgeFacts &F = edgeFacts(B);
    if (F.Unwinds) {
      Walked.Block = B;
      Walked.In = &In;
      walk(Blk, S, Walked.AtRaise, &R);
    } else {
      bool Scan = holdsIdsOf(Blk, S);
      for (uint32_t I = Blk.Begin; I + 1 < Blk.End; ++I)
        step(S, I, /*Jump=*/false, &R, Scan);
    }
    if (F.FirstNormal == NoEdge) {
      // Only for its issues: the edges read the state before it, but
      // exception edges from instructions read only whether it is reached
      // (raiseState()), which a step keeps; so without an edge from the
      // back edge (which steps it again), it is stepped in place.
      if (!F.BackEdgeRaise) {
        step(S, Blk.last(), /*Jump=*/false, &R, /*ScanIds=*/true);
        return S;
      }
      ValueState X = S;
      step(X, Blk.last(), /*Jump=*/false, &R, /*ScanIds=*/true);
    }
    return S;
  }

  ValueState transferEdge(unsigned EI, const ValueState &In,
                          const ValueState &Out) const {
    const CFGEdge &E = G.edge(EI);
    // The one state returned: no copy on return.
    ValueState X = E.isException() && !E.FromBackEdge && Out.isReached()
                       ? raiseState(E.Source, In)
                       : ValueState(Out);
    if (!X.isReached())
      return X;
    const BasicBlock &Blk = G.block(E.Source);
    if (!E.isException()) {
      // The last instruction's issues: those of the block's first normal
      // edge, then those another normal edge adds (the engine transfers a
      // block's edges in order, right after it). The edges differ where
      // the instruction pops on one edge only (JUMP_IF_TRUE_OR_POP) or
      // refines what it pops (a None test: NULL is not None, so only the
      // other edge meets it, and POP_JUMP_IF_NONE's DECREF crashes there).
      if (edgeFacts(E.Source).FirstNormal == EI) {
        step(X, Blk.last(), isJumpEdge(E), &openFound(E.Source, /*Keep=*/true),
             /*ScanIds=*/true);
        return X;
      }
      EdgeFound.clear();
      step(X, Blk.last(), isJumpEdge(E), &EdgeFound, /*ScanIds=*/true);
      if (LLVM_UNLIKELY(!EdgeFound.empty()))
        addFound(E.Source, EdgeFound);
      return X;
    }
    if (E.FromBackEdge)
      step(X, Blk.last(), /*Jump=*/true, nullptr, /*ScanIds=*/true);
    unwind(E, X);
    return X;
  }

private:
  const CFG &G;
  const DecodedCode &D;
  const InstructionStream &Insts;
  /// The raise state of the block transferNode() walked last, and the entry
  /// state it walked from (the engine's own, not a copy): the engine
  /// transfers a block's edges right after the block, so its exception
  /// edges find their state here; any other caller walks again
  /// (raiseState()). Should a self-loop's join grow that entry state
  /// between the block and its exception edges, those edges see the state
  /// walked from the smaller one -- an intermediate state: the grown block
  /// is queued again, and its last visit walks from its final state.
  mutable struct {
    unsigned Block = ~0u;
    const ValueState *In = nullptr;
    ValueState AtRaise = ValueState::bottom();
  } Walked;
  /// Per block, the issues its transfers found on its last visit: the
  /// engine visits a block again whenever its entry state grows, so the
  /// last visit is at the final state, and the post-visit hook collects
  /// them without walking the block again (measured: a second walk of
  /// every block costs the full 3.11 check a fifth more instructions).
  /// All of them, block after block, in one vector (none allocated for a
  /// code object without issues, nor one per block): block B's are
  /// Found[FoundAt[B].first, FoundAt[B].second); those of the block Open,
  /// the one being transferred, run to the end of Found.
  mutable std::vector<ValueIssue> Found;
  mutable llvm::SmallVector<std::pair<uint32_t, uint32_t>, 16> FoundAt;
  static constexpr unsigned NoBlock = ~0u;
  mutable unsigned Open = NoBlock;

  /// Ends the open block's issues.
  void closeFound() const {
    if (Open != NoBlock)
      FoundAt[Open].second = uint32_t(Found.size());
    Open = NoBlock;
  }
  /// Where block \p B's issues go from now on, at the end of Found: its
  /// earlier ones dropped (a new visit), or, \p Keep, moved there first
  /// when another block's follow them (the engine transfers a block's
  /// edges right after it, so they do not).
  LLVM_ATTRIBUTE_ALWAYS_INLINE std::vector<ValueIssue> &
  openFound(unsigned B, bool Keep) const {
    if (LLVM_LIKELY(Open == B)) {
      if (!Keep)
        Found.resize(FoundAt[B].first);
      return Found;
    }
    if (Keep)
      return reopenFound(B);
    uint32_t End = uint32_t(Found.size());
    if (Open != NoBlock)
      FoundAt[Open].second = End;
    FoundAt[B].first = End;
    Open = B;
    return Found;
  }
  /// Adds to block \p B's issues those of \p More that it does not have
  /// (the same issue, instruction and slot).
  LLVM_ATTRIBUTE_NOINLINE void
  addFound(unsigned B, const std::vector<ValueIssue> &More) const {
    std::vector<ValueIssue> &R = openFound(B, /*Keep=*/true);
    size_t Begin = FoundAt[B].first, End = R.size();
    for (const ValueIssue &V : More)
      if (llvm::none_of(llvm::make_range(R.begin() + Begin, R.begin() + End),
                        [&](const ValueIssue &W) {
                          return W.K == V.K && W.Inst == V.Inst &&
                                 W.Which == V.Which;
                        }))
        R.push_back(V);
  }
  /// The issues of a block's normal edge after its first (addFound()).
  mutable std::vector<ValueIssue> EdgeFound;
  /// openFound() keeping the issues of a block not open.
  LLVM_ATTRIBUTE_NOINLINE std::vector<ValueIssue> &
  reopenFound(unsigned B) const {
    closeFound();
    auto [Begin, End] = FoundAt[B];
    FoundAt[B] = {uint32_t(Found.size()), 0};
    for (uint32_t K = Begin; K < End; ++K) {
      ValueIssue V = Found[K]; // not a reference into what may grow
      Found.push_back(V);
    }
    Open = B;
    return Found;
  }
#ifndef NDEBUG
  mutable std::vector<ValueState> FoundFrom; ///< The state they are from.
#endif

  static bool isJumpEdge(const CFGEdge &E) {
    return E.Kind == EdgeKind::Jump || E.Kind == EdgeKind::BranchTaken;
  }

  static constexpr unsigned NoEdge = ~0u;
  /// What the transfers read of a block's edges, in one pass over them.
  struct EdgeFacts {
    /// An exception edge leaves from the block's instructions (not from its
    /// back edge's eval breaker).
    bool Unwinds = false;
    bool BackEdgeRaise = false;    ///< One leaves from its back edge.
    unsigned FirstNormal = NoEdge; ///< Its first normal edge, or none.
  };
  /// The facts of the block asked last: the engine transfers a block's
  /// edges right after the block (the facts are the CFG's, so any order
  /// only costs a new pass).
  mutable struct {
    unsigned Block = ~0u;
    EdgeFacts Facts;
  } LastFacts;

  const EdgeFacts &edgeFacts(unsigned B) const {
    if (LastFacts.Block == B)
      return LastFacts.Facts;
    EdgeFacts F;
    for (unsigned EI : G.block(B).Succs) {
      const CFGEdge &E = G.edge(EI);
      if (!E.isException()) {
        if (F.FirstNormal == NoEdge)
          F.FirstNormal = EI;
      } else if (E.FromBackEdge) {
        F.BackEdgeRaise = true;
      } else {
        F.Unwinds = true;
      }
    }
    LastFacts = {B, F};
    return LastFacts.Facts;
  }

  /// Walks \p Blk from \p S up to its last instruction, reporting into
  /// \p R when given, and joins the state before each raising instruction
  /// into \p AtRaise (reset first).
  void walk(const BasicBlock &Blk, ValueState &S, ValueState &AtRaise,
            std::vector<ValueIssue> *R) const {
    AtRaise = ValueState::bottom();
    bool Scan = holdsIdsOf(Blk, S);
    for (uint32_t I = Blk.Begin; I < Blk.End; ++I) {
      if (G.mayRaiseAt(I))
        joinRaisePoint(AtRaise, S);
      if (I + 1 < Blk.End)
        step(S, I, /*Jump=*/false, R, Scan);
    }
  }

  /// The state before each raising instruction of block \p B entered with
  /// \p In, joined (bottom when none raises).
  ValueState raiseState(unsigned B, const ValueState &In) const {
    if (Walked.Block == B && Walked.In == &In) {
      Walked.Block = ~0u; // a block has one such edge: handed over
      return std::move(Walked.AtRaise);
    }
    ValueState S = In, AtRaise = ValueState::bottom();
    walk(G.block(B), S, AtRaise, nullptr);
    return AtRaise;
  }

  /// Exception edge \p E taken from \p X: the stack cut to the entry's
  /// depth, the lasti and the exception pushed.
  void unwind(const CFGEdge &E, ValueState &X) const {
    if (!X.isReached())
      return;
    const ExceptionTableEntry &T = D.Table[E.Entry];
    X.Stack.resize(std::min<size_t>(X.Stack.size(), T.Depth));
    // Too shallow: reported by the depth checks; the padding holds no
    // kind, so nothing is reported twice.
    if (X.Stack.size() < T.Depth)
      X.Stack.resize(T.Depth, Slot{0, 0});
    if (T.Lasti)
      X.Stack.push_back({KLasti, 0});
    X.Stack.push_back({KExc, 0});
    X.Handler = true;
  }

  /// Whether block \p B is reached with inconsistent stacks by a
  /// predecessor whose own state is consistent: where the conflict arises.
  bool arises(unsigned B, llvm::ArrayRef<ValueState> All) const {
    return llvm::any_of(G.block(B).Preds, [&](unsigned EI) {
      return All[G.edge(EI).Source].isReached();
    });
  }

  /// Joins the state \p S before a raising instruction into \p R: the
  /// locals, and the stack slots both hold (the edge keeps only those below
  /// its entry's depth, which the block's raise points share).
  static void joinRaisePoint(ValueState &R, const ValueState &S) {
    if (R.isBottom()) {
      R = S;
      return;
    }
    R.Stack.resize(std::min(R.Stack.size(), S.Stack.size()));
    for (size_t K = 0; K < R.Stack.size(); ++K) {
      R.Stack[K].K |= S.Stack[K].K;
      if (R.Stack[K].Id != S.Stack[K].Id)
        R.Stack[K].Id = 0;
    }
    // Over plain arrays, bounded once: the loop vectorises (every local, at
    // every raising instruction of a block with a handler).
    SlotKinds *L = R.Locals.data();
    const SlotKinds *SL = S.Locals.data();
    for (size_t K = 0, E = std::min(R.Locals.size(), S.Locals.size()); K < E;
         ++K)
      L[K] |= SL[K];
    R.Handler |= S.Handler;
  }

  /// Whether \p S, a state block \p Blk's walk starts from, holds a value
  /// that one of the block's instructions before its last pushed (fresh()):
  /// only then can a push of the walk meet an older value with its own Id
  /// (a value the walk pushes has the Id of another instruction, or of the
  /// same step, which the step itself looks after: Mover::pushNew).
  static bool holdsIdsOf(const BasicBlock &Blk, const ValueState &S) {
    uint64_t Lo = (uint64_t(Blk.Begin) + 1) * 8, Hi = uint64_t(Blk.End) * 8;
    return llvm::any_of(S.Stack,
                        [&](const Slot &V) { return V.Id >= Lo && V.Id < Hi; });
  }

  /// Instruction \p I on \p S (\p Jump: along its jump edge): the kinds its
  /// row of SlotKinds.def needs are checked, then the values move, then the
  /// row's kinds are written. \p ScanIds: see push(). Inlined into the
  /// walks (a call per instruction cost as much as moving its values).
  LLVM_ATTRIBUTE_ALWAYS_INLINE void step(ValueState &S, uint32_t I, bool Jump,
                                         std::vector<ValueIssue> *R,
                                         bool ScanIds) const {
    const SlotRules *Row = findSlotRules(Insts[I]);
    if (!Row) // most instructions: values move, nothing checked
      return move(S, I, Jump, R, ScanIds);
    stepWithRules(S, I, Jump, R, ScanIds, *Row);
  }

  /// step() of an instruction with a row, \p Rules.
  LLVM_ATTRIBUTE_NOINLINE void stepWithRules(ValueState &S, uint32_t I,
                                             bool Jump,
                                             std::vector<ValueIssue> *R,
                                             bool ScanIds,
                                             const SlotRules &Rules) const {
    const Instruction &In = Insts[I];
    size_t N = S.Stack.size();
    for (const SlotRules::Need &Nd : Rules.Needs)
      if (uint64_t Slot = Nd.slotFor(In.Arg); Slot < N) {
        checkNeed(S.Stack[N - 1 - Slot], Nd, uint32_t(Slot), I, R);
        if (!(Nd.Allowed & KNull))
          checkNullRead(S.Stack[N - 1 - Slot], In, uint32_t(Slot), I, R);
      }
    if (Rules.TupleOfArg >= 0 && size_t(Rules.TupleOfArg) < N)
      checkTupleItems(S.Stack[N - 1 - Rules.TupleOfArg], In,
                      uint32_t(Rules.TupleOfArg), I, Insts, D.Code->Consts, R);
    llvm::SmallVector<Slot, 2> From;
    for (const SlotRules::Make &M : Rules.Makes)
      From.push_back(M.From >= 0 && size_t(M.From) < N ? S.Stack[N - 1 - M.From]
                                                       : Slot{0, 0});
    if (Rules.LocalNeed && validLocal(In.Arg, S))
      checkLocalNeed(S.Locals[In.Arg], Rules.LocalNeed, I, In.Arg, R);
    if (Rules.NoneTest >= 0 && N)
      refineNone(S, S.Stack.back().Id, (Rules.NoneTest == 1) == Jump);
    move(S, I, Jump, R, ScanIds);
    size_t M = S.Stack.size();
    for (size_t K = 0; K < Rules.Makes.size(); ++K) {
      const SlotRules::Make &Mk = Rules.Makes[K];
      if (Mk.Slot >= M)
        continue;
      Slot &D = S.Stack[M - 1 - Mk.Slot];
      D = Mk.Kinds ? Slot{SlotKinds(Mk.Kinds | From[K].K), D.Id} : From[K];
    }
  }

  /// A slot that must hold one of \p Nd.Allowed: what it may hold besides
  /// (NULL is null-stack-value's) is an issue, definite when it can hold
  /// nothing allowed and nothing unknown. An unknown object is possible:
  /// measured, no compiler's code (three stdlibs) and no rewriter output
  /// puts one there.
  void checkNeed(const Slot &V, const SlotRules::Need &Nd, uint32_t Which,
                 uint32_t I, std::vector<ValueIssue> *R) const {
    SlotKinds Bad = V.K & ~(Nd.Allowed | KNull);
    if (!R || !Bad)
      return;
    bool Definite = !(V.K & (Nd.Allowed | KUnknown));
    ValueIssue Issue{
        Nd.Exception ? ValueIssue::ExceptionSlot : ValueIssue::KindMismatch, I,
        Definite ? Certainty::Definite : Certainty::Possible, Which};
    Issue.Found = V.K & ~KNull;
    Issue.Allowed = Nd.Allowed & ~KUnknown;
    Issue.From = pusherOf(V.Id);
    R->push_back(Issue);
  }

  /// The local \p K that instruction \p I uses as one of \p Allowed (a
  /// cell): NULL (no MAKE_CELL or COPY_FREE_VARS on some path) and an
  /// unknown object (a parameter not wrapped) are issues too.
  static void checkLocalNeed(SlotKinds K, SlotKinds Allowed, uint32_t I,
                             uint32_t L, std::vector<ValueIssue> *R) {
    if (!R || !(K & ~Allowed))
      return;
    ValueIssue Issue{ValueIssue::LocalKind, I,
                     K & Allowed ? Certainty::Possible : Certainty::Definite,
                     L};
    Issue.Found = K;
    Issue.Allowed = Allowed;
    R->push_back(Issue);
  }

  /// Instruction \p I's values move (\p Jump: along its jump edge), micro-
  /// operation by micro-operation (MicroOps.h: lowerInstruction()'s, each
  /// handed straight to the Mover, LowerKind.h). A value the instruction
  /// pushes gets the Id of its slot from the top after the instruction.
  LLVM_ATTRIBUTE_ALWAYS_INLINE void move(ValueState &S, uint32_t I, bool Jump,
                                         std::vector<ValueIssue> *R,
                                         bool ScanIds) const {
    const Instruction &In = Insts[I];
    const OpcodeInfo &Info = In.info();
    Mover M{D.Code->Consts,
            Insts,
            S,
            I,
            R,
            size_t(std::max<int64_t>(
                (Jump ? Info.JumpPushes : Info.Pushes).eval(In.Arg), 0)),
            ScanIds};
    lowering::lowerEach(In, Jump, M);
  }
};

} // namespace

llvm::Expected<std::vector<ValueIssue>>
pyverify::analyzeValueKinds(const CFG &G) {
  return ValueKinds(G).run();
}
