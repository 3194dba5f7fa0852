//===- ValueKinds.h - NULL on the stack, unbound locals ---------*- C++ -*-===//
//
// Contract: analyzeValueKinds() runs a forward dataflow over a CFG whose
// stack depths are consistent (no underflow, no conflict: the depth pass
// reports those) and bounded (the state holds every slot: the caller keeps
// the maximum depth within what it models, as the context pass does) and
// returns where a value that may be NULL is used, in any version's bytecode:
//
//   NullTaken      an instruction pops a slot that may hold NULL where its
//                  version's table (OpcodeInfo::NullIn) wants an object --
//                  e.g. 3.13's CALL given 3.11's layout (NULL before the
//                  callable), POP_TOP of a PUSH_NULL, a NULL returned; and
//                  COPY of a slot that may be NULL (Py_NewRef(NULL));
//   NullRead       an instruction reads, without popping it, a slot that
//                  may hold NULL where its row of SlotKinds.def wants an
//                  object of some kind (LIST_APPEND's list, FOR_ITER's
//                  iterator, 3.11's PRECALL's callable): it dereferences it;
//   UnboundRead    3.12+'s LOAD_FAST (and 3.13's LOAD_FAST_LOAD_FAST) of a
//                  local that may be unbound: from 3.12 LOAD_FAST does not
//                  check (the compiler emits LOAD_FAST_CHECK where a local
//                  may be unbound), so it pushes NULL;
//   HandlerUnbound any version: code inside an exception handler (between
//                  the exception edge and its POP_EXCEPT) reads a local that
//                  no path to it assigns -- the handler raises
//                  UnboundLocalError (or, 3.12+, reads NULL) instead of
//                  doing its cleanup;
//   ExceptionSlot  an instruction reads a slot that may hold a kind its row
//                  of SlotKinds.def does not allow -- RERAISE of None (the
//                  state PUSH_EXC_INFO saved) or of a handler's lasti,
//                  POP_EXCEPT of a bool: the interpreter does not check, and
//                  crashes or keeps a non-exception as the thread's handled
//                  exception; possible for an object of unknown type;
//   KindMismatch   the same for a value that is not about exceptions
//                  (FOR_ITER of a tuple, CALL_INTRINSIC_1 6 of an int);
//   ShortTuple     a slot its row wants as a tuple of at least the
//                  argument's count of items holds a shorter one (a tuple
//                  constant's or BUILD_TUPLE's count), or one of unknown
//                  count (possibly): 3.13's BUILD_CONST_KEY_MAP's keys;
//   LocalKind      an instruction uses a fast local as a cell (*_DEREF,
//                  LOAD_CLOSURE) that may hold something else: NULL before
//                  MAKE_CELL / COPY_FREE_VARS, a parameter not yet wrapped.
//
// The state is, per stack slot and per fast local, what it may hold
// (SlotKinds.h: NULL, the raised exception, None, a lasti, a list, another
// non-exception, an unknown object), and per stack slot which value it is
// (copies share an identity, so POP_JUMP_IF_NOT_NONE on a copy refines the
// original: except*'s "COPY 1; POP_JUMP_IF_NOT_NONE; ... RERAISE"). Slot
// kinds come from the table (getStackIO: NullOut), SlotKinds.def, the
// constants (LOAD_CONST) and the local opcodes; a handler entry pushes its
// lasti and the raised exception. A local is bound at entry iff
// it is a parameter; LOAD_FAST_AND_CLEAR saves a local's state on the stack
// and clears it, STORE_FAST restores what it pops; MAKE_CELL and
// COPY_FREE_VARS bind. An exception edge cuts the stack to the entry's depth
// and joins the locals over every raising instruction of the block.
// Deterministic: issues come out in instruction order.
//
// The iteration is the Fixpoint engine's (FixpointIterator.h) over the CFG
// (CFGFixpointGraph.h), with ValueState below as its domain: a block's
// transfer is its instructions up to the last, an edge's is the last
// instruction on that edge (the jump's or the fall-through's effect) or,
// for an exception edge, the unwinding to the handler. The transfers note a
// block's issues on each visit of it, keeping the last visit's: the engine
// visits a block again whenever its entry state grows, so those are the
// issues of its final entry state, and the post-visit hook collects them
// (no second walk of the code). The engine's visit cap applies (its
// default); hitting it is an error, as is a block that paths reach with
// stacks of different depths (ValueState's Inconsistent): then nothing is
// said, never "no issues".
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_ANALYSIS_VALUEKINDS_H
#define PYVERIFY_ANALYSIS_VALUEKINDS_H

#include "pyverify/Analysis/SlotKinds.h"
#include "pyverify/CFG/CFG.h"
#include "pyverify/Fixpoint/AbstractDomain.h"
#include "pyverify/Support/Finding.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace pyverify {

/// A stack slot of ValueState: the kinds it may hold, and which value it is:
/// slots with the same nonzero Id hold the same object (copies share an Id),
/// 0 is "no identity".
struct ValueSlot {
  SlotKinds K = KUnknown;
  uint32_t Id = 0;
  bool operator==(const ValueSlot &O) const = default;
};

/// The value-kind analysis's domain. Bottom (unreached) < every state <
/// Inconsistent (paths whose stacks, or locals, differ in size meet). A
/// state is, per stack slot, a ValueSlot, per fast local its kinds, and
/// whether the point may be inside an exception handler. Two states of the
/// same shape join pointwise: kinds unite, an Id the two disagree on becomes
/// 0, Handler is or-ed. Finite height, so widen is join. Equality is of the
/// abstract values (all Inconsistent states are equal, as are all bottoms).
class ValueState {
public:
  static ValueState bottom() { return ValueState(Shape::Bottom); }
  static ValueState inconsistent() { return ValueState(Shape::Inconsistent); }
  /// A reached state with \p Depth unknown objects on the stack and
  /// \p Locals locals, none bound.
  static ValueState reached(size_t Depth, size_t Locals);

  /// Copies and moves copy only the slots and locals held (a state is a
  /// few of each; SmallVector's own copy costs several times as much).
  /// Only a reached state has slots and locals to copy.
  ValueState(const ValueState &O) : Handler(O.Handler), S(O.S) {
    if (O.isReached())
      *this = O;
  }
  ValueState(ValueState &&O) : Handler(O.Handler), S(O.S) {
    if (O.isReached())
      *this = std::move(O);
  }
  ValueState &operator=(const ValueState &O);
  ValueState &operator=(ValueState &&O);

  bool isBottom() const { return S == Shape::Bottom; }
  bool isInconsistent() const { return S == Shape::Inconsistent; }
  bool isReached() const { return S == Shape::Reached; }

  bool join(const ValueState &O);
  bool widen(const ValueState &O) { return join(O); } // finite height
  /// Kinds unite, Ids meet, Handler is or-ed, Inconsistent carries nothing:
  /// no state that arrived first is kept (FixpointIterator.h).
  static constexpr bool JoinIsOrderFree = true;
  bool operator==(const ValueState &O) const;

  /// Meaningful when reached.
  bool Handler = false; ///< May be between an exception edge and POP_EXCEPT.
  /// Held inline (a copy of a larger state allocates): the stack is rarely
  /// deeper than 24; functions with more than 24 locals are common (3.11's
  /// stdlib: re/_parser.py's _parse has 49), and a local is 2 bytes.
  static constexpr unsigned InlineSlots = 24;
  static constexpr unsigned InlineLocals = 64;
  llvm::SmallVector<ValueSlot, InlineSlots> Stack;
  llvm::SmallVector<SlotKinds, InlineLocals> Locals;

private:
  enum class Shape : uint8_t { Bottom, Reached, Inconsistent };
  explicit ValueState(Shape S) : S(S) {}
  Shape S;
};

static_assert(AbstractDomain<ValueState>);

struct ValueIssue {
  enum Kind : uint8_t {
    NullTaken,
    NullRead,
    UnboundRead,
    HandlerUnbound,
    ExceptionSlot,
    KindMismatch,
    ShortTuple,
    LocalKind
  } K;
  uint32_t Inst;      ///< Instruction index.
  Certainty Cert;     ///< Definite: NULL / unbound / a bad kind on every path.
  uint32_t Which = 0; ///< NullTaken: popped slot (0 = deepest);
                      ///< NullRead, ExceptionSlot, KindMismatch,
                      ///< ShortTuple: the slot read (0 = top); otherwise
                      ///< the local's index (LocalKind: the instruction's
                      ///< argument).
  static constexpr uint32_t NoInst = ~uint32_t(0);
  static constexpr uint16_t UnknownCount = 0xFFFF;
  uint16_t Found = 0;     ///< ExceptionSlot, KindMismatch, LocalKind: the
                          ///< kinds the slot or local may hold; ShortTuple:
                          ///< the tuple's items (UnknownCount: not known)
  uint16_t Allowed = 0;   ///< and those it needs (SlotKinds.h);
  uint32_t From = NoInst; ///< the instruction that pushed it, when one did.
};

/// The issues of \p G's reachable code (see the contract); an error when
/// the contract does not hold (two paths bring stacks of different depths)
/// or the visit cap is hit, so nothing could be said.
llvm::Expected<std::vector<ValueIssue>> analyzeValueKinds(const CFG &G);

} // namespace pyverify

#endif
