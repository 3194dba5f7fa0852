//===- ContextEvents.cpp - The one recogniser of context events -----------===//

#include "pyverify/Analysis/ContextEvents.h"
#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include "llvm/ADT/STLExtras.h"

using namespace pyverify;

bool pyverify::isEnterName(llvm::StringRef Name) {
  return Name == "__enter__" || Name == "__aenter__";
}

bool pyverify::isExitName(llvm::StringRef Name) {
  return Name == "__exit__" || Name == "__aexit__";
}

bool pyverify::isContextProtocolName(llvm::StringRef Name) {
  return isEnterName(Name) || isExitName(Name);
}

std::optional<WithEnter>
pyverify::detail::withEnterAtLowered(const InstructionStream &Insts,
                                     uint32_t I) {
  MicroOps Ops = lowerInstruction(Insts[I]);
  if (Ops.size() == 1)
    if (const auto *E = std::get_if<uop::EnterWith>(&Ops[0]))
      return WithEnter{E->Async, 1};
  const auto *C = Ops.size() == 1 ? std::get_if<uop::Call>(&Ops[0]) : nullptr;
  if (!C || C->NArgs != 0 || C->KwNamesOnTop || I == 0 || !Insts[I - 1].Valid)
    return std::nullopt;
  MicroOps Load = lowerInstruction(Insts[I - 1]);
  const auto *L =
      Load.size() == 1 ? std::get_if<uop::LoadSpecial>(&Load[0]) : nullptr;
  if (!L || (L->Method != uop::SpecialMethod::Enter &&
             L->Method != uop::SpecialMethod::AEnter))
    return std::nullopt;
  return WithEnter{L->Method == uop::SpecialMethod::AEnter,
                   2u + traits(Insts[I].Ver).WithExitSlots};
}

/// Whether \p C loads None: LOAD_CONST of a None constant, or 3.15's
/// LOAD_COMMON_CONSTANT whose entry in the version's table of common
/// constants is None (its compiler's only way to load None).
static bool loadsNone(const DecodedCode &D, const Instruction &C) {
  if (C.is(Opcode::LOAD_CONST))
    return C.Arg < D.Code->Consts.size() &&
           D.Code->Consts[C.Arg].is<NoneValue>();
  if (!C.is(Opcode::LOAD_COMMON_CONSTANT))
    return false;
  const char *Text = getArgText(C.Ver, ArgTextTable::CommonConstant, C.Arg);
  return Text && llvm::StringRef(Text) == "None";
}

bool pyverify::isExitCallSequence(const DecodedCode &D, uint32_t I) {
  const auto &Insts = D.Insts;
  if (I >= Insts.size() || !Insts[I].is(Opcode::CALL))
    return false;
  const uint32_t N = 1u + traits(Insts[I].Ver).WithExitSlots;
  if (Insts[I].Arg != N)
    return false;
  // PRECALL n; CALL n where the version calls through PRECALL, else CALL n,
  // follows the constants.
  uint32_t Consts = I;
  if (traits(Insts[I].Ver).PrecallBeforeCall) {
    if (I == 0 || !Insts[I - 1].is(Opcode::PRECALL) || Insts[I - 1].Arg != N)
      return false;
    Consts = I - 1;
  }
  if (Consts < 3)
    return false;
  for (uint32_t K = Consts - 3; K < Consts; ++K)
    if (!loadsNone(D, Insts[K]))
      return false;
  // The sequence calls slots that were on the stack before it: a callable
  // the instruction falling into the constants pushes is an ordinary call
  // of three Nones (3.14's `m.__exit__(None, None, None)` is LOAD_ATTR;
  // LOAD_CONST None x3; CALL 3, the with's own exit sequence to the byte).
  if (Consts > 3) {
    const Instruction &P = Insts[Consts - 4];
    if (P.Valid && !P.info().Terminator && !P.info().isJump()) {
      StackIO IO = getStackIO(P.info(), P.Arg, /*Jump=*/false);
      if (IO.Pushes > IO.Pops)
        return false;
    }
  }
  return true;
}

bool pyverify::isOutsideCompiledWithBody(const DecodedCode &D, uint32_t I,
                                         int64_t DepthBefore, int64_t ExitSlot,
                                         bool Innermost) {
  const auto &Insts = D.Insts;
  if (I >= Insts.size() || !Insts[I].Valid)
    return false;
  const Instruction &In = Insts[I];
  switch (In.op()) {
  case Opcode::NOP:
    return true;
  case Opcode::PUSH_EXC_INFO:
  case Opcode::WITH_EXCEPT_START:
    return Innermost;
  default:
    break;
  }
  // [SWAP 2] LOAD_CONST None x3 [PRECALL 2] CALL 2 of this with (3.14:
  // [SWAP 3; SWAP 2] ... CALL 3, its exit two slots): I is one of them, and
  // the slot the sequence calls is ExitSlot.
  for (uint32_t K = I; K < Insts.size() && K <= I + 6; ++K) {
    // isExitCallSequence's first test, inline: the sequence ends in a CALL.
    if (!Insts[K].is(Opcode::CALL) || !isExitCallSequence(D, K))
      continue;
    const int64_t Slots = traits(Insts[K].Ver).WithExitSlots;
    uint32_t Consts = K - 3 - (traits(Insts[K].Ver).PrecallBeforeCall ? 1 : 0);
    // The swaps that put a return value under the exit: SWAP Slots + 1, ...,
    // SWAP 2, all or none.
    uint32_t First = Consts;
    bool Swapped = Consts >= uint32_t(Slots);
    for (int64_t W = 0; Swapped && W < Slots; ++W) {
      const Instruction &Sw = Insts[Consts - 1 - W];
      Swapped = Sw.is(Opcode::SWAP) && int64_t(Sw.Arg) == 2 + W;
    }
    if (Swapped)
      First = Consts - uint32_t(Slots);
    if (I < First)
      return false;
    // The depth before the first constant: the exit's slots are just below
    // it, and one slot lower before the swaps put the return value under.
    int64_t AtConsts = I < Consts       ? DepthBefore // the swaps
                       : I < Consts + 3 ? DepthBefore - (I - Consts)
                                        : DepthBefore - 3; // PRECALL, CALL
    return AtConsts - Slots - (Swapped ? 1 : 0) == ExitSlot;
  }
  return false;
}

llvm::StringRef pyverify::getCodeRoleName(CodeRole R) {
  return R == CodeRole::Plain ? "plain" : "emitted";
}

/// The name LOAD_ATTR / LOAD_METHOD \p I loads, "" when out of range.
static llvm::StringRef attrName(const DecodedCode &D, const Instruction &I) {
  const auto &Names = D.Code->Names;
  uint32_t N = I.nameIndex();
  return N < Names.size() ? llvm::StringRef(Names[N]) : llvm::StringRef();
}

/// A load of local x, then a method load of \p Want at \p K - 1, \p K (or
/// an attribute load too, with \p AnyLoad), as the lowering reads them
/// (MicroOps.h: 3.12's LOAD_ATTR with the method bit is a method load):
/// x.
static std::optional<uint32_t> methodOnLocal(const DecodedCode &D, size_t K,
                                             llvm::StringRef Want,
                                             bool AnyLoad = false) {
  const auto &Insts = D.Insts;
  if (K == 0 || K >= Insts.size())
    return std::nullopt;
  const Instruction &A = Insts[K - 1], &B = Insts[K];
  if (!A.Valid || !B.Valid)
    return std::nullopt;
  MicroOps Load = lowerInstruction(B);
  bool MethodLoad =
      Load.size() == 1 && std::holds_alternative<uop::LoadMethod>(Load[0]);
  bool AttrLoad =
      Load.size() == 1 && std::holds_alternative<uop::LoadAttr>(Load[0]);
  if (!(MethodLoad || (AnyLoad && AttrLoad)) || attrName(D, B) != Want)
    return std::nullopt;
  // The object: the local the instruction before pushed last (LOAD_FAST,
  // LOAD_FAST_CHECK, the second of LOAD_FAST_LOAD_FAST).
  MicroOps Obj = lowerInstruction(A);
  const auto *L =
      Obj.empty() ? nullptr : std::get_if<uop::LoadLocal>(&Obj.back());
  if (!L)
    return std::nullopt;
  return L->Local;
}

/// Whether co_names holds \p Want at all: most code objects name neither
/// __enter__ nor __exit__, and then no instruction needs a look.
static bool namesHold(const DecodedCode &D, llvm::StringRef Want) {
  return llvm::is_contained(D.Code->Names, Want);
}

llvm::SmallVector<uint32_t, 2>
pyverify::pairedManagerLocals(const DecodedCode &D) {
  llvm::SmallVector<uint32_t, 2> Paired;
  if (!namesHold(D, "__enter__") || !namesHold(D, "__exit__"))
    return Paired; // a local needs both methods called to be paired
  llvm::SmallVector<uint32_t, 4> Enters, Exits;
  for (size_t K = 1; K < D.Insts.size(); ++K) {
    if (auto X = methodOnLocal(D, K, "__enter__"))
      Enters.push_back(*X);
    else if (auto Y = methodOnLocal(D, K, "__exit__"))
      Exits.push_back(*Y);
  }
  for (uint32_t L : Enters)
    if (llvm::is_contained(Exits, L) && !llvm::is_contained(Paired, L))
      Paired.push_back(L);
  return Paired;
}

bool pyverify::isTrackedManagerAttribute(const DecodedCode &D, uint32_t AttrIdx,
                                         CodeRole Role) {
  assert(AttrIdx < D.Insts.size() && "not an instruction index");
  llvm::StringRef Name = attrName(D, D.Insts[AttrIdx]);
  if (Name != "__enter__" && Name != "__exit__")
    return false;
  if (Role == CodeRole::Emitted)
    return methodOnLocal(D, AttrIdx, Name, /*AnyLoad=*/true).has_value();
  std::optional<uint32_t> L = methodOnLocal(D, AttrIdx, Name);
  return L && llvm::is_contained(pairedManagerLocals(D), *L);
}

/// The event of calling the slot \p F describes (CALL, WITH_EXCEPT_START).
static ContextEvent callEvent(const SlotFacts &F, ExitVia Via) {
  switch (F.Callee) {
  case SlotRole::BoundExit:
    return ctxev::ExitBound{Via};
  case SlotRole::CalledExit:
    return ctxev::ExitAgain{Via};
  case SlotRole::MaybeBoundExit:
    return ctxev::ExitMaybe{Via};
  case SlotRole::EnterMethod:
    return Via == ExitVia::Call ? ContextEvent(ctxev::EnterExplicit{})
                                : ContextEvent(ctxev::ExitUnbound{Via});
  case SlotRole::ExitMethod:
    return Via == ExitVia::Call ? ContextEvent(ctxev::ExitExplicit{})
                                : ContextEvent(ctxev::ExitUnbound{Via});
  case SlotRole::ModeOp:
    if (Via == ExitVia::ExceptStart || !F.Mode)
      break;
    switch (*F.Mode) {
    case ModeEffect::Push:
      return ctxev::ModePush{};
    case ModeEffect::Pop:
      return ctxev::ModePop{};
    case ModeEffect::GetStack:
      return ctxev::ModeSave{};
    case ModeEffect::SetStack:
      if (F.NumArgs == 1 && F.FirstArg == ArgRole::SavedModes)
        return ctxev::ModeRestore{};
      // A list built element by element (TorchDynamo's BUILD_LIST n of
      // the modes it reconstructs): n modes, exact when each element is
      // the graph's output.
      if (F.NumArgs == 1 && F.FirstArg == ArgRole::ModeList)
        return ctxev::ModeReplay{F.ListExact, F.ListLength};
      return ctxev::ModeReplay{
          F.NumArgs == 1 && F.FirstArg == ArgRole::GraphOutput, std::nullopt};
    }
    break;
  case SlotRole::WithEnter:
  case SlotRole::AsyncWithEnter:
    if (Via == ExitVia::ExceptStart || F.NumArgs != 0)
      break;
    return ctxev::EnterWith{F.Callee == SlotRole::AsyncWithEnter};
  case SlotRole::LoadedExit: // an __exit__ of a with never entered
    break;
  case SlotRole::EnvGlobal:
    if (Via == ExitVia::ExceptStart || !F.Global)
      break;
    switch (F.Global->Role) {
    case GlobalRole::ResumeFunction:
      return ctxev::HandOver{};
    case GlobalRole::CompiledGraph:
      return ctxev::GraphCall{};
    case GlobalRole::Helper:
    case GlobalRole::ModeStackModule:
    case GlobalRole::Module:
      return ctxev::NoEvent{};
    }
    break;
  case SlotRole::Other:
    break;
  }
  // WITH_EXCEPT_START and the compiler's exit sequence always call an
  // __exit__: with none in the slot, that is the fault.
  if (Via == ExitVia::ExceptStart || F.ExitSequence)
    return ctxev::ExitUnbound{Via};
  return ctxev::NoEvent{};
}

ContextEvent pyverify::recogniseContextEvent(const Instruction &I,
                                             const SlotFacts &F) {
  if (!I.Valid)
    return ctxev::NoEvent{};
  switch (I.op()) {
  case Opcode::BEFORE_WITH:
    return ctxev::EnterWith{false};
  case Opcode::BEFORE_ASYNC_WITH:
    return ctxev::EnterWith{true};
  case Opcode::SEND: // the await is done when SEND jumps (or at END_SEND)
    return F.JumpEdge && traits(I.Ver).SendJumpCompletesAwait
               ? ContextEvent(ctxev::AsyncEnterDone{})
               : ContextEvent(ctxev::NoEvent{});
  case Opcode::END_SEND: // SEND jumps here with the result
    return ctxev::AsyncEnterDone{};
  case Opcode::WITH_EXCEPT_START:
    return callEvent(F, ExitVia::ExceptStart);
  case Opcode::CALL:
  case Opcode::CALL_KW:
    return callEvent(F, ExitVia::Call);
  default:
    return ctxev::NoEvent{};
  }
}
