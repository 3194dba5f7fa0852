//===- MicroOps.cpp - Instructions lowered to micro-operations ------------===//

#include "pyverify/Analysis/MicroOps.h"
#include "pyverify/Bytecode/PythonVersion.h"

#include <cassert>

using namespace pyverify;

bool pyverify::isCallPrepare(const Instruction &I) {
  if (!I.Valid)
    return false;
  MicroOps Ops = lowerInstruction(I);
  return Ops.size() == 1 && std::holds_alternative<uop::CallPrepare>(Ops[0]);
}

/// The argument's two 4-bit local indices (3.13's paired local opcodes):
/// the high one first.
static std::pair<uint32_t, uint32_t> localPair(uint32_t Arg) {
  return {Arg >> 4, Arg & 15};
}

/// The fast-local opcodes of \p I, appended to \p Out; false for any other
/// opcode.
static bool lowerLocalAccess(const Instruction &I, MicroOps &Out) {
  const VersionTraits &T = traits(I.Ver);
  // Whether the k-th popped value may be NULL (the row's NullIn column).
  auto NullIn = [&](unsigned K) {
    return bool((uint64_t(I.info().NullIn.eval(I.Arg)) >> K) & 1);
  };
  switch (I.op()) {
  case Opcode::LOAD_FAST:
    Out.push_back(uop::LoadLocal{I.Arg, T.LoadFastChecksBound
                                            ? uop::LocalRead::Checked
                                            : uop::LocalRead::Unchecked});
    return true;
  case Opcode::LOAD_FAST_CHECK:
    Out.push_back(uop::LoadLocal{I.Arg, uop::LocalRead::Checked});
    return true;
  case Opcode::LOAD_FAST_AND_CLEAR:
    Out.push_back(uop::LoadLocal{I.Arg, uop::LocalRead::Saved});
    Out.push_back(uop::DeleteLocal{I.Arg});
    return true;
  case Opcode::LOAD_FAST_LOAD_FAST: {
    auto [A, B] = localPair(I.Arg);
    Out.push_back(uop::LoadLocal{A});
    Out.push_back(uop::LoadLocal{B});
    return true;
  }
  case Opcode::STORE_FAST:
    Out.push_back(uop::StoreLocal{I.Arg, NullIn(0)});
    return true;
  case Opcode::STORE_FAST_LOAD_FAST: {
    auto [A, B] = localPair(I.Arg);
    Out.push_back(uop::StoreLocal{A, NullIn(0)});
    Out.push_back(uop::LoadLocal{B});
    return true;
  }
  case Opcode::STORE_FAST_STORE_FAST: { // the top (popped value 1) first
    auto [A, B] = localPair(I.Arg);
    Out.push_back(uop::StoreLocal{A, NullIn(1)});
    Out.push_back(uop::StoreLocal{B, NullIn(0)});
    return true;
  }
  case Opcode::DELETE_FAST:
    Out.push_back(uop::DeleteLocal{I.Arg});
    return true;
  default:
    return false;
  }
}

MicroOps pyverify::lowerInstruction(const Instruction &I, bool JumpEdge,
                                    StackIO *IOOut) {
  assert(I.Valid && "lowering an invalid instruction");
  const OpcodeInfo &Info = I.info();
  const VersionTraits &T = traits(I.Ver);
  // The edge's stack effect, computed only where it is read (most
  // instructions are local and constant loads that do not need it).
  auto Effect = [&] {
    StackIO IO = getStackIO(Info, I.Arg, JumpEdge);
    if (IOOut)
      *IOOut = IO;
    return uop::Effect{IO.Pops, IO.Pushes, IO.NullIn, IO.NullOut};
  };
  MicroOps Out;
  if (JumpEdge) { // a taken jump moves values nobody tracks
    Out.push_back(Effect());
    return Out;
  }
  if (IOOut)
    *IOOut = getStackIO(Info, I.Arg, JumpEdge);
  if (lowerLocalAccess(I, Out))
    return Out;
  switch (I.op()) {
  case Opcode::PUSH_NULL:
    Out.push_back(uop::PushNull{});
    return Out;
  case Opcode::LOAD_CONST:
    Out.push_back(uop::LoadConst{I.Arg});
    return Out;
  case Opcode::MAKE_CELL:
    Out.push_back(uop::MakeCell{I.Arg});
    return Out;
  case Opcode::COPY_FREE_VARS:
    Out.push_back(uop::CopyFreeVars{I.Arg});
    return Out;
  case Opcode::POP_EXCEPT:
    Out.push_back(uop::PopExcept{});
    return Out;
  case Opcode::LOAD_GLOBAL: {
    uint32_t Name = I.nameIndex();
    bool Null = I.Arg & 1;
    if (Null && !T.NullAfterCallable)
      Out.push_back(uop::PushNull{});
    Out.push_back(uop::LoadGlobal{Name});
    if (Null && T.NullAfterCallable)
      Out.push_back(uop::PushNull{});
    return Out;
  }
  case Opcode::LOAD_ATTR:
    if (T.MethodBitInLoadAttr && (I.Arg & 1))
      Out.push_back(uop::LoadMethod{I.nameIndex(), T.NullAfterCallable});
    else
      Out.push_back(uop::LoadAttr{I.nameIndex()});
    return Out;
  case Opcode::LOAD_METHOD:
    Out.push_back(uop::LoadMethod{I.nameIndex(), T.NullAfterCallable});
    return Out;
  case Opcode::PRECALL:
  case Opcode::KW_NAMES:
    Out.push_back(uop::CallPrepare{});
    return Out;
  case Opcode::CALL:
    Out.push_back(uop::Call{I.Arg, T.NullAfterCallable, false});
    return Out;
  case Opcode::CALL_KW:
    Out.push_back(uop::Call{I.Arg, T.NullAfterCallable, true});
    return Out;
  case Opcode::COPY:
    Out.push_back(uop::Copy{I.Arg});
    return Out;
  case Opcode::SWAP:
    Out.push_back(uop::Swap{I.Arg});
    return Out;
  case Opcode::UNPACK_SEQUENCE:
    Out.push_back(uop::UnpackSequence{I.Arg});
    return Out;
  case Opcode::BINARY_SUBSCR:
    Out.push_back(uop::Subscript{});
    return Out;
  case Opcode::BUILD_LIST:
  case Opcode::BUILD_TUPLE:
    Out.push_back(uop::BuildSequence{I.Arg, I.is(Opcode::BUILD_LIST)});
    return Out;
  default:
    Out.push_back(Effect());
    return Out;
  }
}
