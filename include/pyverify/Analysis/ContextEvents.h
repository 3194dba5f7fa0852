//===- ContextEvents.h - The one recogniser of context events ---*- C++ -*-===//
//
// Contract: recogniseContextEvent() says what an instruction does to the
// contexts a code object holds, given what its interpreter knows about the
// slots the instruction uses (SlotFacts). It is the one place that knows
// which instructions enter and exit contexts, which method names are the
// context protocol (isContextProtocolName) and what the rewriter's
// mode-stack operations do (Environment.def): every interpreter of context
// state -- the context-balance pass and the prover's symbolic frame -- maps
// its own abstract slots to SlotFacts, asks here, and handles the event with
// std::visit over every alternative. A new event kind therefore fails to
// compile in every consumer until it is handled there.
//
//   BEFORE_WITH / BEFORE_ASYNC_WITH   EnterWith (the async one completes on
//                                     SEND's jump edge: AsyncEnterDone)
//   CALL 0 of LOAD_SPECIAL __enter__  EnterWith (3.14: the callable slot holds
//     / __aenter__                    the special method, SlotRole::WithEnter;
//                                     the __exit__ LOAD_SPECIAL loaded before
//                                     is the with's, withEnterAt())
//   WITH_EXCEPT_START                 the slot at PEEK(4) called as __exit__
//   CALL n, CALL_KW n                 by its callable slot: a bound __exit__
//                                     (ExitBound, ...), m.__enter__() /
//                                     m.__exit__() (EnterExplicit /
//                                     ExitExplicit), a mode-stack operation
//                                     (ModePush, ModePop, ModeSave,
//                                     ModeRestore, ModeReplay), the resume
//                                     function (HandOver), a compiled graph
//                                     (GraphCall), anything else (NoEvent)
//
// Which explicit m.__enter__() / m.__exit__() calls are context events at
// all is the other fact decided here, once (isTrackedManagerAttribute): in
// emitted code (a bundle's frame or resume function) every one on a local
// manager is; in plain code only those of a local whose __enter__ and
// __exit__ the code both calls as methods. Any other explicit call is
// delegation (the context is handed to the caller: a delegating __enter__, a
// start()) or forwarding (a delegating __exit__, close(), stop()) -- an
// ordinary call, because the context it enters or exits is not one this code
// object holds.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_ANALYSIS_CONTEXTEVENTS_H
#define PYVERIFY_ANALYSIS_CONTEXTEVENTS_H

#include "pyverify/Analysis/Environment.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/InstructionStream.h"
#include "pyverify/Support/Overloaded.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <variant>

namespace pyverify {

/// What an interpreter knows about the slot an exit or call uses (the
/// callable of CALL n, PEEK(4) of WITH_EXCEPT_START).
enum class SlotRole : uint8_t {
  Other,          ///< Nothing context-related.
  BoundExit,      ///< The bound __exit__ BEFORE_WITH pushed, not yet called.
  CalledExit,     ///< That __exit__, already called.
  MaybeBoundExit, ///< A bound __exit__ on some merged paths only.
  EnterMethod,    ///< m.__enter__ of a tracked manager m.
  ExitMethod,     ///< m.__exit__ of a tracked manager m.
  ModeOp,         ///< A mode-stack operation (SlotFacts::Mode says which).
  EnvGlobal,      ///< A global of Environment.def (SlotFacts::Global).
  WithEnter,      ///< 3.14: __enter__ loaded by LOAD_SPECIAL.
  AsyncWithEnter, ///< 3.14: __aenter__ loaded by LOAD_SPECIAL.
  LoadedExit,     ///< 3.14: __exit__ / __aexit__ loaded by LOAD_SPECIAL, its
                  ///< with not entered (yet).
};

/// What the first argument of a call is, where it matters (set_stack).
enum class ArgRole : uint8_t {
  Other,
  SavedModes,  ///< What a mode-stack GetStack returned.
  GraphOutput, ///< A compiled graph's result, or unpacked from one.
  ModeList,    ///< A list or tuple built of n values (SlotFacts::List*).
};

struct SlotFacts {
  SlotRole Callee = SlotRole::Other;
  std::optional<ModeEffect> Mode;    ///< Callee == ModeOp.
  const EnvGlobal *Global = nullptr; ///< Callee == EnvGlobal.
  ArgRole FirstArg = ArgRole::Other;
  /// FirstArg == ModeList: its length, and whether every element is the
  /// compiled graph's output (or an element of it).
  unsigned ListLength = 0;
  bool ListExact = false;
  unsigned NumArgs = 0;
  /// CALL 2 after LOAD_CONST None x3; PRECALL 2: the compiler's
  /// __exit__(None, None, None) sequence (isExitCallSequence).
  bool ExitSequence = false;
  bool JumpEdge = false; ///< SEND: the edge on which the awaited returned.
};

/// How an exit reaches a context's __exit__.
enum class ExitVia : uint8_t { Call, ExceptStart };

namespace ctxev {
struct NoEvent {};
/// BEFORE_WITH (Async false) or BEFORE_ASYNC_WITH: the manager's __enter__
/// runs and its bound __exit__ is pushed below the result.
struct EnterWith {
  bool Async;
};
/// SEND's jump edge: the awaited __aenter__ returned.
struct AsyncEnterDone {};
/// The bound __exit__ in the slot is called: the context is exited.
struct ExitBound {
  ExitVia Via;
};
/// The slot's __exit__ was already called: exited twice.
struct ExitAgain {
  ExitVia Via;
};
/// The slot holds a bound __exit__ on some merged paths only.
struct ExitMaybe {
  ExitVia Via;
};
/// An exit where no bound __exit__ is: WITH_EXCEPT_START calls something
/// else, or the compiler's exit sequence calls a slot that is none.
struct ExitUnbound {
  ExitVia Via;
};
/// m.__enter__() and m.__exit__(...) of a tracked manager.
struct EnterExplicit {};
struct ExitExplicit {};
/// Mode-stack operations (Environment.def).
struct ModePush {};
struct ModePop {};
struct ModeSave {};    ///< GetStack: the result restores the stack later.
struct ModeRestore {}; ///< SetStack of a saved stack: pops what was pushed.
/// SetStack of anything else: the side-effect replay. Of a list of n
/// values built by BUILD_LIST / BUILD_TUPLE, it installs n modes (Count);
/// of anything else, the modes the bundle claims. Exact is false when the
/// argument (or an element of the list) is not the compiled graph's output
/// (an approximation the consumer records).
struct ModeReplay {
  bool Exact;
  std::optional<unsigned> Count;
};
/// The frame calls the resume function: it takes over the modes.
struct HandOver {};
/// A compiled graph is called: its result carries the replay's mode list.
struct GraphCall {};
} // namespace ctxev

using ContextEvent =
    std::variant<ctxev::NoEvent, ctxev::EnterWith, ctxev::AsyncEnterDone,
                 ctxev::ExitBound, ctxev::ExitAgain, ctxev::ExitMaybe,
                 ctxev::ExitUnbound, ctxev::EnterExplicit, ctxev::ExitExplicit,
                 ctxev::ModePush, ctxev::ModePop, ctxev::ModeSave,
                 ctxev::ModeRestore, ctxev::ModeReplay, ctxev::HandOver,
                 ctxev::GraphCall>;

/// LOAD_CONST None x3 (3.15: LOAD_COMMON_CONSTANT None x3); [PRECALL n;]
/// CALL n ending at index \p I of \p D,
/// n = 1 + VersionTraits::WithExitSlots: the compiler's
/// __exit__(None, None, None) sequence (SlotFacts::ExitSequence), which
/// calls the with's __exit__ whatever its slot holds.
bool isExitCallSequence(const DecodedCode &D, uint32_t I);

/// A with statement's enter, as each version's compiler emits it.
struct WithEnter {
  bool Async;
  /// The with's __exit__ function is at PEEK(ExitPeek) before the enter
  /// runs: the manager BEFORE_WITH replaces with it (1), or, in 3.14, the
  /// function LOAD_SPECIAL loaded below its self and the two slots of the
  /// __enter__ call (4).
  unsigned ExitPeek;
};
/// Whether instruction \p I enters a with statement: BEFORE_WITH /
/// BEFORE_ASYNC_WITH, or (3.14) CALL 0 right after LOAD_SPECIAL __enter__ /
/// __aenter__ -- the instructions the with's context is named by (its
/// site, BlockStack.h). Where the __exit__ really is at that point is the
/// slot-tracking passes' to check (with-handler-mismatch and the rest).
namespace detail {
/// withEnterAt() past its table filter: lowers the candidate.
std::optional<WithEnter> withEnterAtLowered(const InstructionStream &Insts,
                                            uint32_t I);
} // namespace detail
/// Inline: the passes ask it at every instruction, and the lowering's kind
/// table (mayLowerTo) rules out all but a few without lowering.
inline std::optional<WithEnter> withEnterAt(const InstructionStream &Insts,
                                            uint32_t I) {
  if (I >= Insts.size())
    return std::nullopt;
  // Only an enter, or a call right after a special-method load, can be one.
  uint8_t C = lowersToClasses(Insts[I]);
  if (!(C & (classBit(LowersTo::EnterWith) | classBit(LowersTo::Call))))
    return std::nullopt;
  if (!(C & classBit(LowersTo::EnterWith)) &&
      !(I > 0 && mayLowerTo(Insts[I - 1], LowersTo::LoadSpecial)))
    return std::nullopt;
  return detail::withEnterAtLowered(Insts, I);
}

/// Whether CPython's compiler leaves a trace function's exception at
/// instruction \p I outside the handler of a with whose context is entered,
/// its bound __exit__ in stack slot \p ExitSlot, \p DepthBefore values on
/// the stack before \p I, \p Innermost when no other with was entered after
/// it (measured on 3.11, 3.12, 3.13: tests/versions/check_raise_tiers.py,
/// docs/versions.md "Raise tiers"), in every version: a NOP (the line
/// markers after an entry), the with's own exit sequence ([SWAP 2]
/// LOAD_CONST None x3 [PRECALL 2] CALL 2 calling that slot), and, for the
/// innermost with, its handler's PUSH_EXC_INFO and WITH_EXCEPT_START. Every
/// other instruction of a with body -- an inner with's exit sequence and
/// handler included -- is one the with's handler must cover: what CPython
/// guarantees for a with body is what the raise tiers are checked against.
/// What one version's compiler alone leaves out (3.12.1's JUMP_BACKWARD
/// closing a loop, 3.13.0's conditional jump before it and its
/// JUMP_BACKWARD_NO_INTERRUPT after CLEANUP_THROW) is a bug of that version:
/// a trace raise there really skips __exit__ (check_with_body_coverage.py).
bool isOutsideCompiledWithBody(const DecodedCode &D, uint32_t I,
                               int64_t DepthBefore, int64_t ExitSlot,
                               bool Innermost);

/// Whose explicit __enter__ / __exit__ calls are context events.
enum class CodeRole : uint8_t {
  Plain,   ///< Any code object: delegation and forwarding are allowed.
  Emitted, ///< A bundle's frame or resume function: neither is.
};
llvm::StringRef getCodeRoleName(CodeRole R);

/// The locals of \p D whose __enter__ and __exit__ it both loads as
/// methods (LOAD_FAST x; LOAD_METHOD __enter__ | __exit__), in order of
/// first appearance: the managers plain code holds contexts of.
llvm::SmallVector<uint32_t, 2> pairedManagerLocals(const DecodedCode &D);

/// Whether the LOAD_ATTR / LOAD_METHOD at index \p AttrIdx of \p D, which
/// loads __enter__ or __exit__, makes the manager's explicit enter or exit a
/// context event in role \p Role: in emitted code when it loads from a
/// local (LOAD_FAST x just before; an attribute or global manager there is
/// the original's own code, copied, and is judged as the original is); in
/// plain code when it is a LOAD_METHOD on a local of pairedManagerLocals().
/// (The asynchronous names are never explicit events: m.__aenter__() only makes
/// an awaitable.)
bool isTrackedManagerAttribute(const DecodedCode &D, uint32_t AttrIdx,
                               CodeRole Role);

/// What \p I does to the contexts, given \p F.
ContextEvent recogniseContextEvent(const Instruction &I, const SlotFacts &F);

/// Whether \p Name is a context-protocol method (__enter__, __exit__,
/// __aenter__, __aexit__), and which half.
bool isContextProtocolName(llvm::StringRef Name);
bool isEnterName(llvm::StringRef Name);
bool isExitName(llvm::StringRef Name);

} // namespace pyverify

#endif
