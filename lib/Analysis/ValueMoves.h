//===- ValueMoves.h - What each micro-operation does to a ValueState -*- C++
//-*-===//
//
// Private to lib/Analysis/ValueKinds.cpp, inline (the value-kinds walk
// runs them at every instruction): the moves of values on a ValueState --
// pushes with their identities, checked pops and in-place reads, local
// loads and stores -- and Mover, the visitor that runs one instruction's
// micro-operations (MicroOps.h) on a state, every alternative handled.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_ANALYSIS_VALUEMOVES_H
#define PYVERIFY_LIB_ANALYSIS_VALUEMOVES_H

#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Analysis/SlotKinds.h"
#include "pyverify/Analysis/ValueKinds.h"
#include "pyverify/Bytecode/InstructionStream.h"
#include "pyverify/Bytecode/Value.h"
#include "pyverify/Support/Overloaded.h"

#include "llvm/Support/Compiler.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

namespace pyverify::values {

/// What a slot or a local may hold (SlotKinds.h); Obj is any object.
enum : SlotKinds { Obj = KUnknown, Null = KNull, Either = Obj | Null };

using Slot = ValueSlot;

inline SlotKinds pop(ValueState &S) {
  if (S.Stack.empty())
    return Obj; // an underflow: the depth pass reports it
  SlotKinds K = S.Stack.back().K;
  S.Stack.pop_back();
  return K;
}

/// The Id of the value instruction \p I leaves in slot \p FromTop (0 =
/// top) after it: unique per instruction and slot, or 0 (no identity).
inline uint32_t fresh(uint32_t I, size_t FromTop) {
  return FromTop < 8 && I < (1u << 28) ? (I + 1) * 8 + uint32_t(FromTop) : 0;
}

/// The instruction that pushed the value of Id \p Id (fresh()'s inverse),
/// or ValueIssue::NoInst when it has no identity.
inline uint32_t pusherOf(uint32_t Id) {
  return Id ? Id / 8 - 1 : ValueIssue::NoInst;
}

/// Pushes a new value of kinds \p K; an older value with its Id (the same
/// instruction on an earlier pass through a loop, or earlier in the same
/// step) loses its identity. \p Scan false: the caller knows no slot has
/// that Id (holdsIdsOf()), so the stack is not searched.
inline void push(ValueState &S, SlotKinds K, uint32_t Id, bool Scan) {
  if (Id && Scan)
    for (Slot &Old : S.Stack)
      if (Old.Id == Id)
        Old.Id = 0;
  S.Stack.push_back({K, Id});
}

inline void report(std::vector<ValueIssue> *R, ValueIssue::Kind K, uint32_t I,
                   SlotKinds Kind, uint32_t Which) {
  if (R)
    R->push_back({K, I,
                  Kind == Null ? Certainty::Definite : Certainty::Possible,
                  Which});
}

inline bool validLocal(uint32_t L, const ValueState &S) {
  return L < S.Locals.size();
}

/// A load of local \p L.Local; LocalRead::Checked: the instruction
/// raises when it is unbound instead of pushing NULL; Saved: it pushes
/// NULL by design (nothing to report).
template <class PushFn>
void loadLocal(ValueState &S, uop::LoadLocal L, uint32_t I,
               std::vector<ValueIssue> *R, PushFn PushNew) {
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

/// The value \p Id was tested for None: every copy of it is None (\p IsNone)
/// or is not (NULL is not None: only the other edge meets it).
inline void refineNone(ValueState &S, uint32_t Id, bool IsNone) {
  if (!Id)
    return;
  for (Slot &V : S.Stack)
    if (V.Id == Id)
      V.K = IsNone ? SlotKinds(V.K & (KNone | KUnknown) ? KNone : 0)
                   : SlotKinds(V.K & ~KNone);
}

inline void store(ValueState &S, uint32_t L) {
  SlotKinds K = pop(S);
  if (validLocal(L, S))
    S.Locals[L] = K;
}

/// Pops \p N values, reporting a NULL in one that \p NullOk (bit k: the
/// k-th popped, 0 = deepest) does not allow.
LLVM_ATTRIBUTE_ALWAYS_INLINE void popChecked(ValueState &S, int64_t N,
                                             uint64_t NullOk, uint32_t I,
                                             std::vector<ValueIssue> *R) {
  size_t Have = S.Stack.size();
  size_t Pops =
      size_t(std::min<int64_t>(std::max<int64_t>(N, 0), int64_t(Have)));
  const Slot *Popped = S.Stack.data() + (Have - Pops);
  for (size_t K = 0; K < Pops; ++K) {
    SlotKinds Kind = Popped[K].K;
    bool MayBeNull = K < 64 && ((NullOk >> K) & 1);
    if ((Kind & Null) && !MayBeNull)
      report(R, ValueIssue::NullTaken, I, Kind, uint32_t(K));
  }
  S.Stack.truncate(Have - Pops);
}

/// Instruction \p I reads \p V, slot \p Slot (0 = top), in place as an
/// object, and it may be NULL: a NullRead issue.
inline void reportNullRead(const Slot &V, uint32_t Slot, uint32_t I,
                           std::vector<ValueIssue> *R) {
  if (!R)
    return;
  ValueIssue Issue{ValueIssue::NullRead, I,
                   V.K == Null ? Certainty::Definite : Certainty::Possible,
                   Slot};
  Issue.From = pusherOf(V.Id);
  R->push_back(Issue);
}
/// A slot \p Slot (0 = top) that instruction \p In (index \p I) reads as
/// an object (a SlotKinds.def row's need) and may hold NULL: an issue when
/// no edge pops it (a popped NULL is the pop's issue, NullTaken:
/// popChecked()).
inline void checkNullRead(const Slot &V, const Instruction &In, uint32_t Slot,
                          uint32_t I, std::vector<ValueIssue> *R) {
  if (!R || !(V.K & Null))
    return;
  const OpcodeInfo &Info = In.info();
  int64_t Pops = Info.Pops.eval(In.Arg);
  if (Info.isJump())
    Pops = std::max(Pops, Info.JumpPops.eval(In.Arg));
  if (int64_t(Slot) < Pops)
    return;
  reportNullRead(V, Slot, I, R);
}

/// The items of the tuple constant the value \p Id names, when a LOAD_CONST
/// pushed it; else null.
inline const std::vector<Value> *
constTupleItems(uint32_t Id, const InstructionStream &Insts,
                const std::vector<Value> &Consts) {
  uint32_t P = pusherOf(Id);
  if (P >= Insts.size() || !Insts[P].is(Opcode::LOAD_CONST) ||
      Insts[P].Arg >= Consts.size())
    return nullptr;
  return Consts[Insts[P].Arg].getSequence(SequenceKind::Tuple);
}

/// The count of items of the tuple \p Id names, when its pusher fixes it (a
/// tuple constant, BUILD_TUPLE).
inline std::optional<uint64_t> tupleItems(uint32_t Id,
                                          const InstructionStream &Insts,
                                          const std::vector<Value> &Consts) {
  if (uint32_t P = pusherOf(Id);
      P < Insts.size() && Insts[P].is(Opcode::BUILD_TUPLE))
    return Insts[P].Arg;
  if (const std::vector<Value> *T = constTupleItems(Id, Insts, Consts))
    return T->size();
  return std::nullopt;
}

/// Slot \p Slot (0 = top), \p V, must be a tuple of at least \p In's
/// argument's count of items (a SlotKinds.def row's TupleOfArg): one that
/// may hold another kind is its KindMismatch's, a NULL its NULL check's.
inline void checkTupleItems(const Slot &V, const Instruction &In, uint32_t Slot,
                            uint32_t I, const InstructionStream &Insts,
                            const std::vector<Value> &Consts,
                            std::vector<ValueIssue> *R) {
  if (!R || (V.K & ~KNull) != KTuple)
    return;
  std::optional<uint64_t> Items = tupleItems(V.Id, Insts, Consts);
  if (Items && *Items >= In.Arg)
    return;
  ValueIssue Issue{ValueIssue::ShortTuple, I,
                   Items ? Certainty::Definite : Certainty::Possible, Slot};
  Issue.Found = Items ? uint16_t(std::min<uint64_t>(*Items, 0xFFFE))
                      : ValueIssue::UnknownCount;
  Issue.From = pusherOf(V.Id);
  R->push_back(Issue);
}

/// One instruction's micro-operations on a state (move()): a visitor
/// with one overload per alternative of MicroOp, built once per
/// instruction; lowerEach() (LowerKind.h) calls it with each one.
struct Mover {
  const std::vector<Value> &Consts; ///< The code object's co_consts.
  const InstructionStream &Insts;   ///< Its instructions.
  ValueState &S;
  uint32_t I;
  std::vector<ValueIssue> *R;
  size_t Left; ///< Pushes still to come.
  bool ScanIds;

  /// Once no push is left to come, each push is slot 0's again: it may
  /// meet the step's own earlier one.
  void pushNew(SlotKinds K) {
    bool Scan = ScanIds || !Left;
    push(S, K, fresh(I, Left ? --Left : 0), Scan);
  }
  LLVM_ATTRIBUTE_ALWAYS_INLINE void popChecked(int64_t N, uint64_t NullOk) {
    values::popChecked(S, N, NullOk, I, R);
  }
  void operator()(uop::PushNull) { pushNew(Null); }
  LLVM_ATTRIBUTE_ALWAYS_INLINE void operator()(uop::LoadLocal L) {
    loadLocal(S, L, I, R, [&](SlotKinds K) { pushNew(K); });
  }
  void operator()(uop::StoreLocal L) { store(S, L.Local); }
  void operator()(uop::DeleteLocal L) {
    if (validLocal(L.Local, S))
      S.Locals[L.Local] = Null;
  }
  void operator()(uop::LoadConst C) {
    pushNew(C.Index < Consts.size() ? getConstKind(Consts[C.Index])
                                    : SlotKinds(Obj));
  }
  void operator()(uop::MakeCell C) {
    if (validLocal(C.Local, S))
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
  void operator()(uop::LoadSpecial M) {
    popChecked(1, 0);
    pushNew(M.nullSlot() == 0 ? Either : Obj);
    pushNew(M.nullSlot() == 1 ? Either : Obj);
  }
  void operator()(uop::CallPrepare C) {
    size_t N = S.Stack.size();
    if (C.CalleeSlot < N && (S.Stack[N - 1 - C.CalleeSlot].K & Null))
      reportNullRead(S.Stack[N - 1 - C.CalleeSlot], C.CalleeSlot, I, R);
  }
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
  /// A tuple constant's items keep their kinds (the last pushed first, the
  /// first on top); anything else unpacks to objects of unknown type.
  void operator()(uop::UnpackSequence U) {
    const std::vector<Value> *Items =
        S.Stack.empty() ? nullptr
                        : constTupleItems(S.Stack.back().Id, Insts, Consts);
    if (Items && Items->size() != U.N)
      Items = nullptr; // ValueError: nothing is pushed
    popChecked(1, 0);
    for (uint32_t K = 0; K < U.N && K < (1u << 20); ++K)
      pushNew(Items ? getConstKind((*Items)[U.N - 1 - K]) : SlotKinds(Obj));
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
  /// The commonest alternatives with LoadLocal's, inlined into the step
  /// (measured: so are the others, the step grows and costs more).
  LLVM_ATTRIBUTE_ALWAYS_INLINE void operator()(uop::Effect E) {
    popChecked(E.Pops, E.NullIn);
    int64_t Pushes = std::min<int64_t>(E.Pushes, 1 << 20);
    for (int64_t K = 0; K < Pushes; ++K)
      pushNew(K < 64 && ((E.NullOut >> K) & 1) ? Either : Obj);
  }
};

} // namespace pyverify::values

#endif
