//===- ContextDomain.h - The context-balance abstract state -----*- C++ -*-===//
//
// Contract: ContextState is the domain of the context-balance analysis
// (pyverify/Analysis/ContextBalance.h). A context is named by an id (the
// analysis uses its enter instruction); the domain knows nothing of Python.
//
// The lattice. Bottom (unreached) < every value < Top (paths whose operand
// stacks have different depths meet). A value is
//
//   * Stack: one tagged slot per operand-stack slot. X, P and C slots hold a
//     context's bound __exit__ (not yet called, pending, called); a Mixed
//     slot is one the merged paths disagree on, and still names the context
//     one of them had there, if any;
//   * Locals: for the locals that hold an entered manager, whether its
//     context is Entered, Exited or Maybe (different on merged paths);
//   * Active: the active contexts, each definitely active or Maybe (not on
//     every merged path), and the order in which they were entered: the set
//     of pairs (A, B) "on some path both are active and A was entered before
//     B". active() lists them in a canonical entry order derived from it.
//
// Join (widen is join: the height is finite, ids are finitely many):
//
//   1. Stacks of different depths give Top. Top keeps the content of the
//      state joined into as a representative, so the code after the join is
//      still analysed along one path; equality ignores it.
//   2. A context is its slot: two ids that sit in the same slot of the two
//      states (X, P, C or a Mixed slot that names one), transitively, name
//      one context, and both states rename it to the smallest of those ids.
//      (A resume function's prologue re-enters a with that the original
//      loop body enters again, into the same slot.)
//   3. Then pointwise: equal slots stay, different ones become Mixed (naming
//      the context either had there); a local entry on one side only, or
//      different on the two, becomes Maybe with the smaller context id; a
//      context active on one side only, or Maybe on either, is Maybe; the
//      order pairs are united.
//   4. active() is recomputed: repeatedly the context with the fewest
//      contexts still to place that precede it (A precedes B when (A, B) is
//      a pair and (B, A) is not), the smallest id among equals. So when both
//      sides agree on the order of their common contexts, that order and
//      each side's order are kept, and the rest is ordered by id.
//
// Why it is commutative, associative and idempotent: step 2's renaming is a
// function of the unordered pair of states, and every rule of step 3 is a
// commutative, associative, idempotent operation (equality, min, union,
// "Maybe unless definite on both"); the order list is a function of the
// merged set and pairs alone. Commutativity and idempotence hold for all
// states; associativity needs the renaming to commute with the merge, which
// holds when an id always sits in the same slot (a with's __exit__ stays at
// the depth its enter left it on every path to a join) and an active
// context on the stack is in its slot (X or Mixed) -- what the analysis
// builds, and what tests/unit/ContextDomainTest.cpp generates. Join returns
// whether the value changed; when no slot needs renaming the other state is
// not copied (the fixpoint joins a lot).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_DOMAIN_CONTEXTDOMAIN_H
#define PYVERIFY_DOMAIN_CONTEXTDOMAIN_H

#include "pyverify/Fixpoint/AbstractDomain.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <utility>

namespace pyverify {

enum class SlotTag : uint8_t {
  Other,
  Exit,        ///< X: bound __exit__ of context Id, not yet called.
  Pending,     ///< P: bound __aexit__ while __aenter__ is being awaited.
  Called,      ///< C: __exit__ of context Id already called.
  Mixed,       ///< Different on merged paths; Id: context() or NoContext.
  LocalRef,    ///< The value of local Id.
  EnterMethod, ///< Bound __enter__ of the manager in local Id.
  ExitMethod,  ///< Bound __exit__ of the manager in local Id.
  LoadedExit,  ///< 3.14: __exit__ / __aexit__ LOAD_SPECIAL loaded at Id,
               ///< its with not entered yet.
  WithEnter,   ///< 3.14: __enter__ (Id 0) / __aenter__ (Id 1) LOAD_SPECIAL
               ///< loaded.
  ExitSelf,    ///< 3.14: the self LOAD_SPECIAL __exit__ pushed with the
               ///< function: Id is that LOAD_SPECIAL's index, then the
               ///< context Id its enter made (renamed with it at joins);
               ///< NoContext: different withs' selves on merged paths.
};

struct ContextSlot {
  static constexpr uint32_t NoContext = ~0u;

  SlotTag T = SlotTag::Other;
  uint32_t Id = 0;

  static ContextSlot mixed(uint32_t Ctx = NoContext) {
    return {SlotTag::Mixed, Ctx};
  }
  /// The context the slot names: an X, P or C slot's, a Mixed slot's if a
  /// merged path had one there; NoContext otherwise.
  uint32_t context() const {
    switch (T) {
    case SlotTag::Exit:
    case SlotTag::Pending:
    case SlotTag::Called:
    case SlotTag::Mixed:
      return Id;
    default:
      return NoContext;
    }
  }
  bool operator==(const ContextSlot &O) const { return T == O.T && Id == O.Id; }
};

enum class LocalStatus : uint8_t { Entered, Exited, Maybe };

/// A local holding a context manager entered by an explicit __enter__ call.
struct ContextLocal {
  uint32_t Local;
  LocalStatus S;
  uint32_t Ctx;
  bool operator==(const ContextLocal &O) const {
    return Local == O.Local && S == O.S && Ctx == O.Ctx;
  }
};

struct ActiveContext {
  uint32_t Ctx;
  bool Maybe; ///< Not active on every merged path.
  bool operator==(const ActiveContext &O) const {
    return Ctx == O.Ctx && Maybe == O.Maybe;
  }
};

class ContextState {
public:
  static ContextState bottom() { return ContextState(Kind::Bottom); }
  static ContextState top() { return ContextState(Kind::Top); }
  /// A reached state with \p Depth untagged slots and no context.
  static ContextState entry(unsigned Depth) {
    ContextState S(Kind::Value);
    S.Stack.resize(Depth);
    return S;
  }

  bool isBottom() const { return K == Kind::Bottom; }
  bool isTop() const { return K == Kind::Top; }
  bool isValue() const { return K == Kind::Value; }

  llvm::SmallVector<ContextSlot, 8> Stack;
  llvm::SmallVector<ContextLocal, 2> Locals; ///< Sorted by Local, unique.

  /// Copies \p O into this state, reusing its buffers: a scratch state
  /// assigned per instruction allocates only when it first grows. It names
  /// every member (K, Stack, Locals, Active, Order): a member added to the
  /// state is added here too (the copy operators are the defaults; this is
  /// operator= without the library's checks for the empty vectors).
  void assign(const ContextState &O) {
    K = O.K;
    assignVector(Stack, O.Stack);
    assignVector(Locals, O.Locals);
    assignVector(Active, O.Active);
    assignVector(Order, O.Order);
  }

  bool join(const ContextState &Other);
  bool widen(const ContextState &O) { return join(O); } // finite height
  bool operator==(const ContextState &O) const {
    return K == O.K &&
           (K != Kind::Value || (Stack == O.Stack && Locals == O.Locals &&
                                 Active == O.Active && Order == O.Order));
  }

  ContextLocal *findLocal(uint32_t L);
  const ContextLocal *findLocal(uint32_t L) const {
    return const_cast<ContextState *>(this)->findLocal(L);
  }
  void setLocal(ContextLocal E);
  void eraseLocal(uint32_t L);

  /// The active contexts in entry order (canonical: see the contract).
  llvm::ArrayRef<ActiveContext> active() const { return Active; }
  const ActiveContext *findActive(uint32_t C) const;
  /// \p C is entered (again): definitely active, after every active one.
  void enterActive(uint32_t C);
  void removeActive(uint32_t C);
  /// On some path both are active and \p A was entered before \p B.
  bool enteredBefore(uint32_t A, uint32_t B) const;

private:
  enum class Kind : uint8_t { Bottom, Value, Top };
  explicit ContextState(Kind K) : K(K) {}

  using Renaming = llvm::SmallVector<std::pair<uint32_t, uint32_t>, 4>;
  static Renaming sameSlotRenaming(const ContextState &A,
                                   const ContextState &B);
  bool rename(const Renaming &R);
  bool joinStack(const ContextState &O);
  bool joinLocals(const ContextState &O);
  bool joinActive(const ContextState &O);
  void orderActive();
  /// The empty vectors (most, but the stack) take one test.
  template <typename V> static void assignVector(V &To, const V &From) {
    if (From.empty())
      To.clear();
    else
      To.assign(From.begin(), From.end());
  }

  // Every member is copied by assign() too.
  Kind K;
  llvm::SmallVector<ActiveContext, 8> Active; ///< Canonical entry order.
  /// Sorted, unique (A, B) pairs of active contexts, A != B: A was entered
  /// before B on some path where both are active.
  llvm::SmallVector<std::pair<uint32_t, uint32_t>, 16> Order;
};

static_assert(AbstractDomain<ContextState>);

} // namespace pyverify

#endif
