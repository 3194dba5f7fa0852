//===- ValueKinds.cpp - NULL on the stack, unbound locals -----------------===//

#include "pyverify/Analysis/ValueKinds.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Analysis/SlotKinds.h"
#include "pyverify/Analysis/StackDepth.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <tuple>

using namespace pyverify;

namespace {

/// What a slot or a local may hold (SlotKinds.h); Obj is any object.
enum : SlotKinds { Obj = KUnknown, Null = KNull, Either = Obj | Null };

/// A stack slot: its kinds, and which value it is: slots with the same
/// nonzero Id hold the same object (a push of a value claims its Id, see
/// fresh(); COPY and moves keep it), so a None test refines every copy.
struct Slot {
  SlotKinds K = Obj;
  uint32_t Id = 0;
};

struct VState {
  bool Reached = false;
  bool Handler = false; ///< May be between an exception edge and POP_EXCEPT.
  llvm::SmallVector<Slot, 24> Stack;
  llvm::SmallVector<SlotKinds, 24> Locals;

  /// Joins \p O in; whether anything changed. False in \p Ok when the two
  /// stacks differ in depth (a conflict the depth pass reports).
  bool join(const VState &O, bool &Ok) {
    if (!O.Reached)
      return false;
    if (!Reached) {
      *this = O;
      return true;
    }
    if (Stack.size() != O.Stack.size() || Locals.size() != O.Locals.size()) {
      Ok = false;
      return false;
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
      if (Stack[K].Id != O.Stack[K].Id) {
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
};

class ValueKinds {
public:
  explicit ValueKinds(const CFG &G) : G(G), D(G.code()), Insts(D.Insts) {}

  llvm::Expected<std::vector<ValueIssue>> run() {
    if (Insts.size() == 0)
      return std::vector<ValueIssue>();
    std::vector<VState> In(G.size());
    In[0] = entryState();
    // A stack of blocks to visit (the lattice is finite; order only changes
    // how soon the fixpoint is reached).
    llvm::SmallVector<unsigned, 32> Work{0};
    std::vector<bool> Queued(G.size());
    Queued[0] = true;
    bool Ok = true;
    // A block is visited again whenever its entry state grows, so its last
    // visit sees its final state: the issues of that visit are the block's.
    std::vector<std::vector<ValueIssue>> PerBlock(G.size());
    while (!Work.empty() && Ok) {
      unsigned B = Work.pop_back_val();
      Queued[B] = false;
      PerBlock[B].clear();
      forEachOut(B, In[B], &PerBlock[B], [&](unsigned T, const VState &S) {
        if (In[T].join(S, Ok) && !Queued[T]) {
          Queued[T] = true;
          Work.push_back(T);
        }
      });
    }
    if (!Ok)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "two paths reach a block with stacks or locals of different sizes");
    std::vector<ValueIssue> Issues;
    for (const std::vector<ValueIssue> &P : PerBlock)
      Issues.insert(Issues.end(), P.begin(), P.end());
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

private:
  const CFG &G;
  const DecodedCode &D;
  const InstructionStream &Insts;

  VState entryState() const {
    const CodeObject &C = *D.Code;
    VState S;
    S.Reached = true;
    S.Stack.assign(size_t(entryStackDepth(C)), Slot());
    size_t N = C.LocalsPlusNames.size();
    size_t Args = size_t(std::max(0, C.ArgCount)) +
                  size_t(std::max(0, C.KwOnlyArgCount)) +
                  ((C.Flags & CoVarArgs) ? 1 : 0) +
                  ((C.Flags & CoVarKeywords) ? 1 : 0);
    S.Locals.assign(N, Null);
    for (size_t K = 0; K < std::min(Args, N); ++K)
      S.Locals[K] = Obj;
    return S;
  }

  /// Runs block \p B from \p In, reporting into \p R when given, and calls
  /// \p Out with each successor and the state its edge brings.
  template <class Fn>
  void forEachOut(unsigned B, const VState &In, std::vector<ValueIssue> *R,
                  Fn Out) const {
    const BasicBlock &Blk = G.block(B);
    if (Blk.size() == 0)
      return;
    VState S = In;
    // The state before each raising instruction, joined (exception edges).
    VState AtRaise;
    bool Unwinds = llvm::any_of(Blk.Succs, [&](unsigned EI) {
      return G.edge(EI).isException() && !G.edge(EI).FromBackEdge;
    });
    for (uint32_t I = Blk.Begin; I < Blk.End; ++I) {
      if (Unwinds && G.mayRaiseAt(I))
        joinRaisePoint(AtRaise, S);
      if (I + 1 < Blk.End)
        step(S, I, /*Jump=*/false, R);
    }
    bool Reported = false;
    for (unsigned EI : Blk.Succs) {
      const CFGEdge &E = G.edge(EI);
      if (E.isException()) {
        VState X;
        if (E.FromBackEdge) {
          X = S;
          step(X, Blk.last(), /*Jump=*/true, nullptr);
        } else if (AtRaise.Reached) {
          X = AtRaise;
        } else {
          continue; // nothing in the block raises
        }
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
        Out(E.Target, X);
        continue;
      }
      VState X = S;
      step(X, Blk.last(),
           E.Kind == EdgeKind::Jump || E.Kind == EdgeKind::BranchTaken,
           Reported ? nullptr : R);
      Reported = true;
      Out(E.Target, X);
    }
    // A block whose last instruction leaves (return, raise) has no normal
    // successor: check it too.
    if (R && !Reported) {
      VState X = S;
      step(X, Blk.last(), /*Jump=*/false, R);
    }
  }

  /// Joins the state \p S before a raising instruction into \p R: the
  /// locals, and the stack slots both hold (the edge keeps only those below
  /// its entry's depth, which the block's raise points share).
  static void joinRaisePoint(VState &R, const VState &S) {
    if (!R.Reached) {
      R = S;
      return;
    }
    R.Stack.resize(std::min(R.Stack.size(), S.Stack.size()));
    for (size_t K = 0; K < R.Stack.size(); ++K) {
      R.Stack[K].K |= S.Stack[K].K;
      if (R.Stack[K].Id != S.Stack[K].Id)
        R.Stack[K].Id = 0;
    }
    for (size_t K = 0; K < R.Locals.size() && K < S.Locals.size(); ++K)
      R.Locals[K] |= S.Locals[K];
    R.Handler |= S.Handler;
  }

  static SlotKinds pop(VState &S) {
    if (S.Stack.empty())
      return Obj; // an underflow: the depth pass reports it
    SlotKinds K = S.Stack.back().K;
    S.Stack.pop_back();
    return K;
  }

  /// The Id of the value instruction \p I leaves in slot \p FromTop (0 =
  /// top) after it: unique per instruction and slot, or 0 (no identity).
  static uint32_t fresh(uint32_t I, size_t FromTop) {
    return FromTop < 8 && I < (1u << 28) ? (I + 1) * 8 + uint32_t(FromTop) : 0;
  }

  /// Pushes a new value of kinds \p K; an older value with its Id (the same
  /// instruction on an earlier pass through a loop) loses its identity.
  static void push(VState &S, SlotKinds K, uint32_t Id) {
    if (Id)
      for (Slot &Old : S.Stack)
        if (Old.Id == Id)
          Old.Id = 0;
    S.Stack.push_back({K, Id});
  }

  static void report(std::vector<ValueIssue> *R, ValueIssue::Kind K, uint32_t I,
                     SlotKinds Kind, uint32_t Which) {
    if (R)
      R->push_back({K, I,
                    Kind == Null ? Certainty::Definite : Certainty::Possible,
                    Which});
  }

  bool validLocal(uint32_t L, const VState &S) const {
    return L < S.Locals.size();
  }

  /// A load of local \p L.Local; LocalRead::Checked: the instruction
  /// raises when it is unbound instead of pushing NULL; Saved: it pushes
  /// NULL by design (nothing to report).
  template <class PushFn>
  void loadLocal(VState &S, uop::LoadLocal L, uint32_t I,
                 std::vector<ValueIssue> *R, PushFn PushNew) const {
    bool Checks = L.Read == uop::LocalRead::Checked;
    if (!validLocal(L.Local, S)) {
      PushNew(L.Read == uop::LocalRead::Saved ? Either : Obj);
      return;
    }
    SlotKinds K = S.Locals[L.Local];
    if (L.Read == uop::LocalRead::Saved) {
      PushNew(K);
      return;
    }
    if (K & Null) {
      if (S.Handler && K == Null)
        report(R, ValueIssue::HandlerUnbound, I, K, L.Local);
      else if (!Checks)
        report(R, ValueIssue::UnboundRead, I, K, L.Local);
    }
    if (Checks) {
      K &= ~Null; // past it, the local is bound
      S.Locals[L.Local] = K ? K : SlotKinds(Obj);
    }
    PushNew(K ? K : SlotKinds(Obj));
  }

  void store(VState &S, uint32_t L) const {
    SlotKinds K = pop(S);
    if (validLocal(L, S))
      S.Locals[L] = K;
  }

  /// Instruction \p I on \p S (\p Jump: along its jump edge): the kinds its
  /// row of SlotKinds.def needs are checked, then the values move, then the
  /// row's kinds are written.
  void step(VState &S, uint32_t I, bool Jump,
            std::vector<ValueIssue> *R) const {
    const Instruction &In = Insts[I];
    SlotRules Rules = getSlotRules(In);
    size_t N = S.Stack.size();
    for (const SlotRules::Need &Nd : Rules.Needs)
      if (Nd.Slot < N)
        checkNeed(S.Stack[N - 1 - Nd.Slot], Nd, I, R);
    llvm::SmallVector<Slot, 2> From;
    for (const SlotRules::Make &M : Rules.Makes)
      From.push_back(M.From >= 0 && size_t(M.From) < N ? S.Stack[N - 1 - M.From]
                                                       : Slot{0, 0});
    if (Rules.LocalNeed && validLocal(In.Arg, S))
      checkLocalNeed(S.Locals[In.Arg], Rules.LocalNeed, I, In.Arg, R);
    if (Rules.NoneTest >= 0 && N)
      refineNone(S, S.Stack.back().Id, (Rules.NoneTest == 1) == Jump);
    move(S, I, Jump, R);
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
  void checkNeed(const Slot &V, const SlotRules::Need &Nd, uint32_t I,
                 std::vector<ValueIssue> *R) const {
    SlotKinds Bad = V.K & ~(Nd.Allowed | KNull);
    if (!R || !Bad)
      return;
    bool Definite = !(V.K & (Nd.Allowed | KUnknown));
    ValueIssue Issue{
        Nd.Exception ? ValueIssue::ExceptionSlot : ValueIssue::KindMismatch, I,
        Definite ? Certainty::Definite : Certainty::Possible, Nd.Slot};
    Issue.Found = V.K & ~KNull;
    Issue.Allowed = Nd.Allowed & ~KUnknown;
    Issue.From = V.Id ? V.Id / 8 - 1 : ValueIssue::NoInst;
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

  /// The value \p Id was tested for None: every copy of it is None (\p IsNone)
  /// or is not.
  static void refineNone(VState &S, uint32_t Id, bool IsNone) {
    if (!Id)
      return;
    for (Slot &V : S.Stack)
      if (V.Id == Id)
        V.K = IsNone ? SlotKinds(V.K & (KNone | KUnknown) ? KNone : 0)
                     : SlotKinds(V.K & ~KNone);
  }

  /// Pops \p N values, reporting a NULL in one that \p NullOk (bit k: the
  /// k-th popped, 0 = deepest) does not allow.
  static void popChecked(VState &S, int64_t N, uint64_t NullOk, uint32_t I,
                         std::vector<ValueIssue> *R) {
    size_t Have = S.Stack.size();
    size_t Pops =
        size_t(std::min<int64_t>(std::max<int64_t>(N, 0), int64_t(Have)));
    for (size_t K = 0; K < Pops; ++K) {
      SlotKinds Kind = S.Stack[Have - Pops + K].K;
      bool MayBeNull = K < 64 && ((NullOk >> K) & 1);
      if ((Kind & Null) && !MayBeNull)
        report(R, ValueIssue::NullTaken, I, Kind, uint32_t(K));
    }
    S.Stack.resize(Have - Pops);
  }

  /// One instruction's micro-operations on a state (move()): a visitor
  /// with one overload per alternative, built once per instruction.
  struct Mover {
    const ValueKinds &VK;
    VState &S;
    uint32_t I;
    std::vector<ValueIssue> *R;
    size_t Left; ///< Pushes still to come.

    void pushNew(SlotKinds K) { push(S, K, fresh(I, Left ? --Left : 0)); }
    void popChecked(int64_t N, uint64_t NullOk) {
      ValueKinds::popChecked(S, N, NullOk, I, R);
    }
    void operator()(uop::PushNull) { pushNew(Null); }
    void operator()(uop::LoadLocal L) {
      VK.loadLocal(S, L, I, R, [&](SlotKinds K) { pushNew(K); });
    }
    void operator()(uop::StoreLocal L) { VK.store(S, L.Local); }
    void operator()(uop::DeleteLocal L) {
      if (VK.validLocal(L.Local, S))
        S.Locals[L.Local] = Null;
    }
    void operator()(uop::LoadConst C) {
      const auto &Consts = VK.D.Code->Consts;
      pushNew(C.Index < Consts.size() ? getConstKind(Consts[C.Index])
                                      : SlotKinds(Obj));
    }
    void operator()(uop::MakeCell C) {
      if (VK.validLocal(C.Local, S))
        S.Locals[C.Local] = KCell;
    }
    void operator()(uop::CopyFreeVars C) {
      for (size_t K = 0; K < C.N && K < S.Locals.size(); ++K)
        S.Locals[S.Locals.size() - 1 - K] = KCell;
    }
    void operator()(uop::PopExcept) {
      pop(S);
      S.Handler = false;
    }
    void operator()(uop::LoadGlobal) { pushNew(Obj); }
    void operator()(uop::LoadAttr) {
      popChecked(1, 0);
      pushNew(Obj);
    }
    void operator()(uop::LoadMethod M) {
      popChecked(1, 0);
      pushNew(M.nullSlot() == 0 ? Either : Obj);
      pushNew(M.nullSlot() == 1 ? Either : Obj);
    }
    void operator()(uop::CallPrepare) {}
    void operator()(const uop::Call &C) {
      // The pops, deepest first: the two call slots, the arguments, the
      // keyword names.
      popChecked(int64_t(C.NArgs) + 2 + (C.KwNamesOnTop ? 1 : 0),
                 uint64_t(1) << C.nullSlot());
      pushNew(Obj);
    }
    void operator()(uop::Copy C) {
      size_t N = S.Stack.size();
      Slot V = C.N >= 1 && C.N <= N ? S.Stack[N - C.N] : Slot();
      if (V.K & Null)
        report(R, ValueIssue::NullTaken, I, V.K, 0);
      S.Stack.push_back(V); // the same object: its Id stays
    }
    void operator()(uop::Swap W) {
      size_t N = S.Stack.size();
      if (W.N >= 2 && W.N <= N)
        std::swap(S.Stack[N - 1], S.Stack[N - W.N]);
    }
    void operator()(uop::UnpackSequence U) {
      popChecked(1, 0);
      for (uint32_t K = 0; K < U.N && K < (1u << 20); ++K)
        pushNew(Obj);
    }
    void operator()(uop::Subscript) {
      popChecked(2, 0);
      pushNew(Obj);
    }
    void operator()(uop::BuildSequence B) {
      popChecked(int64_t(B.N), 0);
      pushNew(Obj);
    }
    /// Values no kind follows through: by what they move.
    void
    operator()(const OneOf<uop::Test, uop::Next, uop::Return, uop::Raise,
                           uop::EnterWith, uop::ExitCallStart, uop::PushExcInfo,
                           uop::ExcMatch, uop::Not, uop::ToBool, uop::LoadCell,
                           uop::StoreCell, uop::Nop> auto &O) {
      (*this)(movementOf(O));
    }
    void operator()(uop::Effect E) {
      popChecked(E.Pops, E.NullIn);
      int64_t Pushes = std::min<int64_t>(E.Pushes, 1 << 20);
      for (int64_t K = 0; K < Pushes; ++K)
        pushNew(K < 64 && ((E.NullOut >> K) & 1) ? Either : Obj);
    }
  };

  /// Instruction \p I's values move (\p Jump: along its jump edge), micro-
  /// operation by micro-operation (MicroOps.h). A value the instruction
  /// pushes gets the Id of its slot from the top after the instruction.
  void move(VState &S, uint32_t I, bool Jump,
            std::vector<ValueIssue> *R) const {
    const Instruction &In = Insts[I];
    const OpcodeInfo &Info = In.info();
    Mover M{*this, S, I, R,
            size_t(std::max<int64_t>(
                (Jump ? Info.JumpPushes : Info.Pushes).eval(In.Arg), 0))};
    for (const MicroOp &Op : lowerInstruction(In, Jump))
      std::visit(M, Op);
  }
};

} // namespace

llvm::Expected<std::vector<ValueIssue>>
pyverify::analyzeValueKinds(const CFG &G) {
  return ValueKinds(G).run();
}
