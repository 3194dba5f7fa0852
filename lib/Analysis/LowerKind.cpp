//===- LowerKind.cpp - What lowering each opcode takes --------------------===//
//
// The kind table of LowerKind.h: classify() maps every opcode of every
// version to its LowerKind once, at start-up, with the LowersTo classes of
// each kind (MicroOps.h's mayLowerTo, versionMayLowerTo).
//
//===----------------------------------------------------------------------===//

#include "LowerKind.h"

#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

using namespace pyverify;
using lowering::LowerKind;

namespace {

/// The kinds of the opcodes that suspend the frame or write its namespace
/// by name, and of control and handler opcodes; Effect for the rest.
LowerKind classifyOther(Opcode Op) {
  switch (Op) {
  case Opcode::GET_AWAITABLE:
  case Opcode::SEND:
  case Opcode::END_SEND:
  case Opcode::YIELD_VALUE:
  case Opcode::RETURN_GENERATOR:
  case Opcode::GET_AITER:
  case Opcode::GET_ANEXT:
  case Opcode::END_ASYNC_FOR:
  case Opcode::ASYNC_GEN_WRAP:
  case Opcode::CLEANUP_THROW:
    return LowerKind::EffectSuspends;
  case Opcode::SETUP_ANNOTATIONS:
  case Opcode::IMPORT_STAR:
    return LowerKind::EffectNamespace;
  case Opcode::CALL_INTRINSIC_1:
    return LowerKind::CallIntrinsic1;
  case Opcode::NOP:
  case Opcode::RESUME:
  case Opcode::EXTENDED_ARG:
  case Opcode::CACHE:
  case Opcode::JUMP_FORWARD:
  case Opcode::JUMP_BACKWARD:
  case Opcode::JUMP_BACKWARD_NO_INTERRUPT:
    return LowerKind::Nop;
  case Opcode::RETURN_VALUE:
    return LowerKind::Return;
  case Opcode::RETURN_CONST:
    return LowerKind::ReturnConst;
  case Opcode::RERAISE:
  case Opcode::RAISE_VARARGS:
    return LowerKind::Raise;
  case Opcode::BEFORE_WITH:
    return LowerKind::EnterWith;
  case Opcode::BEFORE_ASYNC_WITH:
    return LowerKind::EnterAsyncWith;
  case Opcode::WITH_EXCEPT_START:
    return LowerKind::ExitCallStart;
  case Opcode::PUSH_EXC_INFO:
    return LowerKind::PushExcInfo;
  case Opcode::CHECK_EXC_MATCH:
    return LowerKind::ExcMatch;
  case Opcode::UNARY_NOT:
    return LowerKind::Not;
  case Opcode::TO_BOOL:
    return LowerKind::ToBool;
  case Opcode::LOAD_DEREF:   // (3.12's LOAD_FROM_DICT_OR_DEREF reads a dict:
  case Opcode::LOAD_CLOSURE: // an Effect)
  case Opcode::LOAD_CLASSDEREF:
    return LowerKind::LoadCell;
  case Opcode::STORE_DEREF:
    return LowerKind::StoreCell;
  default:
    return LowerKind::Effect;
  }
}

/// The one switch over opcode identities of the lowering.
LowerKind classify(const OpcodeInfo &Info) {
  switch (Info.Op) {
  case Opcode::LOAD_FAST:
    return LowerKind::LoadFast;
  case Opcode::LOAD_FAST_CHECK:
    return LowerKind::LoadFastCheck;
  case Opcode::LOAD_FAST_AND_CLEAR:
    return LowerKind::LoadFastAndClear;
  case Opcode::LOAD_FAST_LOAD_FAST:
    return LowerKind::LoadFastLoadFast;
  case Opcode::LOAD_FAST_BORROW:
    return LowerKind::LoadFastBorrow;
  case Opcode::LOAD_FAST_BORROW_LOAD_FAST_BORROW:
    return LowerKind::LoadFastBorrowPair;
  case Opcode::STORE_FAST:
    return LowerKind::StoreFast;
  case Opcode::STORE_FAST_LOAD_FAST:
    return LowerKind::StoreFastLoadFast;
  case Opcode::STORE_FAST_STORE_FAST:
    return LowerKind::StoreFastStoreFast;
  case Opcode::DELETE_FAST:
    return LowerKind::DeleteFast;
  case Opcode::PUSH_NULL:
    return LowerKind::PushNull;
  case Opcode::LOAD_CONST:
    return LowerKind::LoadConst;
  case Opcode::MAKE_CELL:
    return LowerKind::MakeCell;
  case Opcode::COPY_FREE_VARS:
    return LowerKind::CopyFreeVars;
  case Opcode::POP_EXCEPT:
    return LowerKind::PopExcept;
  case Opcode::LOAD_GLOBAL:
    return LowerKind::LoadGlobal;
  case Opcode::LOAD_ATTR:
    return LowerKind::LoadAttr;
  case Opcode::LOAD_METHOD:
    return LowerKind::LoadMethod;
  case Opcode::LOAD_SPECIAL:
    return LowerKind::LoadSpecial;
  case Opcode::PRECALL:
  case Opcode::KW_NAMES:
    return LowerKind::CallPrepare;
  case Opcode::CALL:
    return LowerKind::Call;
  case Opcode::CALL_KW:
    return LowerKind::CallKw;
  case Opcode::COPY:
    return LowerKind::Copy;
  case Opcode::SWAP:
    return LowerKind::Swap;
  case Opcode::UNPACK_SEQUENCE:
    return LowerKind::UnpackSequence;
  case Opcode::BINARY_SUBSCR:
    return LowerKind::Subscript;
  case Opcode::BUILD_LIST:
    return LowerKind::BuildList;
  case Opcode::BUILD_TUPLE:
    return LowerKind::BuildTuple;
  default: {
    // A conditional jump tests a value, but SEND (which suspends).
    LowerKind Other = classifyOther(Info.Op);
    return Other == LowerKind::Effect && Info.isConditionalJump()
               ? LowerKind::Branch
               : Other;
  }
  }
}

/// Every version's kinds by opcode byte, built once.
struct KindTable {
  std::array<std::array<LowerKind, 256>, NumPythonVersions> Kinds;
  /// Per kind, the LowersTo classes its lowering may hold (bit per class).
  std::array<std::array<uint8_t, 256>, NumPythonVersions> Classes;
  /// Per version, the union of its opcodes' classes.
  std::array<uint8_t, NumPythonVersions> VersionClasses{};
  KindTable() {
    for (PythonVersion V : AllPythonVersions)
      for (unsigned B = 0; B < 256; ++B) {
        const OpcodeInfo *Info = getVersionOpcodeInfo(V, uint8_t(B));
        LowerKind K = Info ? classify(*Info) : LowerKind::Effect;
        Kinds[unsigned(V)][B] = K;
        Classes[unsigned(V)][B] = classesOf(K);
        VersionClasses[unsigned(V)] |= classesOf(K);
      }
  }
  /// The classes of the micro-operations lowerInstruction() gives kind
  /// \p K on the fall-through edge (BINARY_OP's Subscript is in none).
  static uint8_t classesOf(LowerKind K) {
    auto Bit = [](LowersTo C) { return uint8_t(1u << unsigned(C)); };
    switch (K) {
    case LowerKind::EnterWith:
    case LowerKind::EnterAsyncWith:
      return Bit(LowersTo::EnterWith);
    case LowerKind::Call:
    case LowerKind::CallKw:
      return Bit(LowersTo::Call);
    case LowerKind::LoadSpecial:
      return Bit(LowersTo::LoadSpecial);
    case LowerKind::LoadFastBorrow:
    case LowerKind::LoadFastBorrowPair:
      return Bit(LowersTo::BorrowedLoad);
    default:
      return 0;
    }
  }
};

// Built at start-up, before any lowering (no lowering runs in a static
// initialiser), from the opcode tables, which are constant.
const KindTable TheKindTable;

} // namespace

const std::array<std::array<LowerKind, 256>, NumPythonVersions>
    &pyverify::lowering::TheKinds = TheKindTable.Kinds;
const std::array<uint8_t, 256> *const pyverify::detail::TheLowersToClasses =
    TheKindTable.Classes.data();
const uint8_t *const pyverify::detail::TheVersionLowersToClasses =
    TheKindTable.VersionClasses.data();
