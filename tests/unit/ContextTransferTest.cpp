//===- ContextTransferTest.cpp - Context balance over micro-operations ----===//
//
// The context-balance pass steps micro-operations (MicroOps.h), so it reads
// every version's call layout and local loads as the lowering does: 3.13's
// CALL_KW calls a context's explicit __exit__ (keyword names on top of the
// arguments), and 3.12's LOAD_FAST_CHECK before a method load names the
// manager local as LOAD_FAST does, in plain and in emitted code. Code is
// hand-assembled in each version's bytecode as its compiler lays it out
// (the dis listings next to each test: python3.13 3.13.0, python3.12
// 3.12.1).
//
//===----------------------------------------------------------------------===//

#include "AssembledCode.h"

#include "pyverify/Analysis/CodeAnalysis.h"
#include "pyverify/Analysis/ContextBalance.h"
#include "pyverify/Analysis/ContextEvents.h"
#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace pyverify;

namespace {

/// (opcode, argument) pairs as \p V's bytecode, caches zeroed; locals "m"
/// (the one argument), names __enter__ and __exit__, constants None and
/// ('tb',).
CodeObject assemble(PythonVersion V,
                    const std::vector<std::pair<Opcode, uint8_t>> &Ops) {
  CodeObject C = test::blankCode(V, 8);
  C.ArgCount = 1;
  C.Names = {"__enter__", "__exit__"};
  auto Tb = std::make_shared<const std::vector<Value>>(std::vector<Value>{
      Value(StrValue{std::make_shared<const std::string>("tb")})});
  C.Consts = {Value(NoneValue{}),
              Value(SequenceValue{SequenceKind::Tuple, Tb})};
  C.LocalsPlusNames = {"m"};
  static const char Kind = char(CoFastLocal);
  C.LocalsPlusKinds = llvm::StringRef(&Kind, 1);
  std::string Code;
  for (const auto &[Op, Arg] : Ops) {
    const OpcodeInfo *Info = getVersionOpcodeInfo(V, Op);
    EXPECT_NE(Info, nullptr) << getOpcodeName(Op).str();
    if (!Info)
      continue;
    Code += char(Info->Number);
    Code += char(Arg);
    Code.append(2 * size_t(Info->Caches), '\0');
  }
  C.Code = C.own(Code); // the code object's storage holds them
  C.LineTable = C.own(test::noLocationTable(Code.size() / 2));
  return C;
}

/// The context-balance findings of \p C in role \p Role, as check names.
std::vector<std::string> contextFindings(const CodeObject &C, CodeRole Role) {
  ContextBalanceOptions Opts;
  Opts.Role = Role;
  CodeAnalysis A(C, Opts);
  EXPECT_TRUE(A.decoded().isWellFormed());
  std::vector<std::string> Out;
  auto R = A.contexts();
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return Out;
  }
  for (const Finding &F : R->Findings)
    Out.push_back(getCheckInfo(F.Check).Name.str() + ": " + F.Message);
  return Out;
}

/// The contexts active before the instruction at \p Offset of \p C.
std::vector<uint32_t> activeAt(const CodeObject &C, CodeRole Role,
                               uint32_t Offset) {
  ContextBalanceOptions Opts;
  Opts.Role = Role;
  CodeAnalysis A(C, Opts);
  auto R = A.contexts();
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return {};
  }
  int64_t I = A.decoded().Insts.indexAtOffset(Offset);
  EXPECT_GE(I, 0);
  llvm::ArrayRef<uint32_t> Active = R->activeBefore(uint32_t(I));
  return {Active.begin(), Active.end()};
}

// def f(m):                        python3.13 -m dis
//     m.__enter__()                  LOAD_FAST 0 (m); LOAD_ATTR 1 (__enter__
//     m.__exit__(None, None,           + NULL|self); CALL 0; POP_TOP
//                tb=None)          LOAD_FAST 0 (m); LOAD_ATTR 3 (__exit__
//                                    + NULL|self); LOAD_CONST 0 (None) x3;
//                                    LOAD_CONST 1 (('tb',)); CALL_KW 3;
//                                    POP_TOP; RETURN_CONST 0 (None)
// Run, it prints "enter" then "exit None None None": CALL_KW calls the bound
// __exit__, so the context is exited before the return.
std::vector<std::pair<Opcode, uint8_t>> exitByKeyword313(bool WithExit) {
  std::vector<std::pair<Opcode, uint8_t>> Ops = {
      {Opcode::RESUME, 0},   {Opcode::LOAD_FAST, 0}, {Opcode::LOAD_ATTR, 1},
      {Opcode::CALL, 0},     {Opcode::POP_TOP, 0},   {Opcode::LOAD_FAST, 0},
      {Opcode::LOAD_ATTR, 3}};
  if (WithExit)
    Ops.insert(Ops.end(), {{Opcode::LOAD_CONST, 0},
                           {Opcode::LOAD_CONST, 0},
                           {Opcode::LOAD_CONST, 0},
                           {Opcode::LOAD_CONST, 1},
                           {Opcode::CALL_KW, 3},
                           {Opcode::POP_TOP, 0}});
  else // m.__exit__ loaded (the local is paired) but never called
    Ops.insert(Ops.end(), {{Opcode::POP_TOP, 0}, {Opcode::POP_TOP, 0}});
  Ops.push_back({Opcode::RETURN_CONST, 0});
  return Ops;
}

TEST(ContextTransfer, CallKwCallsAnExplicitExit313) {
  for (CodeRole Role : {CodeRole::Plain, CodeRole::Emitted}) {
    SCOPED_TRACE(getCodeRoleName(Role).str());
    CodeObject Exited = assemble(PythonVersion::V3_13, exitByKeyword313(true));
    EXPECT_EQ(contextFindings(Exited, Role), std::vector<std::string>{});
    // Entered by the __enter__ call (at 24, after LOAD_ATTR's 9 caches),
    // so active before the POP_TOP at 32; exited by the CALL_KW at 64:
    // nothing is active before the POP_TOP at 66.
    EXPECT_EQ(activeAt(Exited, Role, 32), std::vector<uint32_t>{3});
    EXPECT_EQ(activeAt(Exited, Role, 66), std::vector<uint32_t>{});
    // The control: without the call, the return leaves it active.
    CodeObject Open = assemble(PythonVersion::V3_13, exitByKeyword313(false));
    std::vector<std::string> F = contextFindings(Open, Role);
    ASSERT_EQ(F.size(), 1u);
    EXPECT_NE(F[0].find("context-not-exited: "), std::string::npos) << F[0];
    EXPECT_NE(F[0].find("returns while the context entered at 24"),
              std::string::npos)
        << F[0];
  }
}

// The recogniser's answer for a CALL_KW is a CALL's: an explicit __exit__,
// a bound __exit__, a mode-stack operation.
TEST(ContextTransfer, CallKwEventsAreCallEvents313) {
  const OpcodeInfo *Info =
      getVersionOpcodeInfo(PythonVersion::V3_13, Opcode::CALL_KW);
  ASSERT_NE(Info, nullptr);
  Instruction I{};
  I.OpByte = Info->Number;
  I.Op = Opcode::CALL_KW;
  I.Ver = PythonVersion::V3_13;
  I.Arg = 3;
  I.Valid = true;
  SlotFacts F;
  F.Callee = SlotRole::ExitMethod;
  EXPECT_TRUE(
      std::holds_alternative<ctxev::ExitExplicit>(recogniseContextEvent(I, F)));
  F.Callee = SlotRole::BoundExit;
  EXPECT_TRUE(
      std::holds_alternative<ctxev::ExitBound>(recogniseContextEvent(I, F)));
  F.Callee = SlotRole::ModeOp;
  F.Mode = ModeEffect::Push;
  EXPECT_TRUE(
      std::holds_alternative<ctxev::ModePush>(recogniseContextEvent(I, F)));
}

// def g(c):                         python3.12 -m dis
//     if c:                           ...
//         m = c                       LOAD_FAST_CHECK 1 (m); LOAD_ATTR 3
//     m.__enter__()                     (NULL|self + __enter__); CALL 0;
//     m.__exit__(None, None, None)      POP_TOP; LOAD_FAST 1 (m); LOAD_ATTR 5
//                                       (NULL|self + __exit__); LOAD_CONST
//                                       0 (None) x3; CALL 3; POP_TOP;
//                                       RETURN_CONST 0 (None)
// Here m is the argument (local 0), loaded with LOAD_FAST_CHECK both times
// (the check's own is the first load of a maybe-unbound local).
std::vector<std::pair<Opcode, uint8_t>> checkedLoads312(bool WithExit) {
  std::vector<std::pair<Opcode, uint8_t>> Ops = {
      {Opcode::RESUME, 0},    {Opcode::LOAD_FAST_CHECK, 0},
      {Opcode::LOAD_ATTR, 1}, {Opcode::CALL, 0},
      {Opcode::POP_TOP, 0},   {Opcode::LOAD_FAST_CHECK, 0},
      {Opcode::LOAD_ATTR, 3}};
  if (WithExit)
    Ops.insert(Ops.end(), {{Opcode::LOAD_CONST, 0},
                           {Opcode::LOAD_CONST, 0},
                           {Opcode::LOAD_CONST, 0},
                           {Opcode::CALL, 3},
                           {Opcode::POP_TOP, 0}});
  else
    Ops.insert(Ops.end(), {{Opcode::POP_TOP, 0}, {Opcode::POP_TOP, 0}});
  Ops.push_back({Opcode::RETURN_CONST, 0});
  return Ops;
}

TEST(ContextTransfer, LoadFastCheckBeforeAMethodLoadIsTracked312) {
  for (CodeRole Role : {CodeRole::Plain, CodeRole::Emitted}) {
    SCOPED_TRACE(getCodeRoleName(Role).str());
    CodeObject Exited = assemble(PythonVersion::V3_12, checkedLoads312(true));
    EXPECT_EQ(contextFindings(Exited, Role), std::vector<std::string>{});
    // Entered by the CALL at 24 (after LOAD_ATTR's 9 caches), so active
    // before the POP_TOP at 32; exited by the CALL at 62: nothing is
    // active before the POP_TOP at 70.
    EXPECT_EQ(activeAt(Exited, Role, 32), std::vector<uint32_t>{3});
    EXPECT_EQ(activeAt(Exited, Role, 70), std::vector<uint32_t>{});
    CodeObject Open = assemble(PythonVersion::V3_12, checkedLoads312(false));
    std::vector<std::string> F = contextFindings(Open, Role);
    ASSERT_EQ(F.size(), 1u);
    EXPECT_NE(F[0].find("returns while the context entered at 24"),
              std::string::npos)
        << F[0];
  }
}

} // namespace
