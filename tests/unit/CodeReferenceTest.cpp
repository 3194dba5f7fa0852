//===- CodeReferenceTest.cpp - Codecs against python3.11 on real code -----===//
//
// code_reference.py compiles a few modules chosen to reach what hand-made
// inputs do not (compiler-built exception tables, EXTENDED_ARG from real
// argument sizes, every location form, constants of every kind) and prints
// what CPython says about them. Here pyverify reads the same marshal bytes
// and every field is compared: attributes, constant repr()s, instructions,
// jump targets, the exception table (and its re-encoding) and positions.
//
// The corpus test covers the whole standard library through the CLI; this
// one pins the library API and names the field that differs.
//
//===----------------------------------------------------------------------===//

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/ExceptionTable.h"
#include "pyverify/Bytecode/InstructionStream.h"
#include "pyverify/Bytecode/LocationTable.h"
#include "pyverify/Bytecode/Marshal.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include "CompiledCode.h"
#include "gtest/gtest.h"

#include <cstdio>
#include <memory>

using namespace pyverify;
namespace json = llvm::json;

namespace {

using pyverify::test::runCommand;

class CodeReference : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // A fixed hash seed makes frozenset order, and so the marshal bytes,
    // reproducible.
    std::string Out =
        runCommand(std::string("PYTHONHASHSEED=0 ") + PYVERIFY_PYTHON + " " +
                   PYVERIFY_CODE_REFERENCE);
    auto V = json::parse(Out);
    if (!V) {
      ADD_FAILURE() << "bad JSON from code_reference.py: "
                    << llvm::toString(V.takeError());
      return;
    }
    Reference = std::make_unique<json::Value>(std::move(*V));
  }
  static void TearDownTestSuite() { Reference.reset(); }

  /// The snippet named \p Name: its marshal bytes and per-code-object facts.
  void checkModule(llvm::StringRef Name);

  static std::unique_ptr<json::Value> Reference;
};

std::unique_ptr<json::Value> CodeReference::Reference;

std::vector<std::string> strings(const json::Array *A) {
  std::vector<std::string> Out;
  if (A)
    for (const json::Value &V : *A)
      Out.push_back(V.getAsString().getValueOr("<not a string>").str());
  return Out;
}

/// A JSON int or null, as co_positions() and dis give them.
std::optional<int64_t> optInt(const json::Value &V) {
  if (auto I = V.getAsInteger())
    return *I;
  return std::nullopt;
}

void compareCode(const CodeObject &C, const json::Object &R) {
  SCOPED_TRACE("code object " + C.QualName.str());
  EXPECT_EQ(C.QualName.str(), R.getString("qualname").getValueOr(""));
  EXPECT_EQ(C.Name.str(), R.getString("name").getValueOr(""));
  EXPECT_EQ(C.Filename.str(), R.getString("filename").getValueOr(""));
  EXPECT_EQ(C.FirstLineNo, R.getInteger("firstlineno").getValueOr(-1));
  EXPECT_EQ(C.ArgCount, R.getInteger("argcount").getValueOr(-1));
  EXPECT_EQ(C.PosOnlyArgCount, R.getInteger("posonlyargcount").getValueOr(-1));
  EXPECT_EQ(C.KwOnlyArgCount, R.getInteger("kwonlyargcount").getValueOr(-1));
  EXPECT_EQ(C.StackSize, R.getInteger("stacksize").getValueOr(-1));
  EXPECT_EQ(C.Flags, R.getInteger("flags").getValueOr(-1));
  EXPECT_EQ(int64_t(C.getNumLocals()), R.getInteger("nlocals").getValueOr(-1));
  EXPECT_EQ(std::vector<std::string>(C.Names.begin(), C.Names.end()),
            strings(R.getArray("names")));
  EXPECT_EQ(C.getVarNames(), strings(R.getArray("varnames")));
  EXPECT_EQ(C.getCellVars(), strings(R.getArray("cellvars")));
  EXPECT_EQ(C.getFreeVars(), strings(R.getArray("freevars")));
  EXPECT_EQ(llvm::toHex(C.Code, true), R.getString("code").getValueOr(""));

  // Constants, through Value::repr.
  std::vector<std::string> Consts;
  for (const Value &V : C.Consts)
    Consts.push_back(V.repr(C.Version));
  EXPECT_EQ(Consts, strings(R.getArray("consts")));

  // Instructions: every dis instruction but EXTENDED_ARG, which we fold.
  std::vector<Finding> Findings;
  InstructionStream S = InstructionStream::decode(C.Code, Findings);
  for (const Finding &F : Findings)
    ADD_FAILURE() << "unexpected finding at " << F.Offset << ": " << F.Message;
  const json::Array *Insts = R.getArray("instructions");
  ASSERT_NE(Insts, nullptr);
  EXPECT_EQ(S.size(), Insts->size());
  for (const json::Value &IV : *Insts) {
    const json::Array &I = *IV.getAsArray();
    int64_t Offset = *I[0].getAsInteger();
    std::string Name = I[1].getAsString()->str();
    int64_t Index = S.indexAtOffset(uint64_t(Offset));
    ASSERT_GE(Index, 0) << "no instruction at " << Offset << " (" << Name
                        << ")";
    const Instruction &Ours = S[Index];
    EXPECT_EQ(Ours.name(), Name) << "at " << Offset;
    EXPECT_EQ(int64_t(Ours.Arg), optInt(I[2]).value_or(0))
        << Name << " at " << Offset;
    EXPECT_EQ(Ours.Target, optInt(I[3]).value_or(-1))
        << Name << " at " << Offset;
  }

  // Exception table: dis._parse_exception_table, and the re-encoding.
  auto Table = decodeExceptionTable(C.ExceptionTable);
  ASSERT_TRUE(bool(Table)) << llvm::toString(Table.takeError());
  const json::Array *RT = R.getArray("table");
  ASSERT_NE(RT, nullptr);
  ASSERT_EQ(Table->size(), RT->size());
  for (size_t K = 0; K < RT->size(); ++K) {
    const json::Array &E = *(*RT)[K].getAsArray();
    const ExceptionTableEntry &Ours = (*Table)[K];
    SCOPED_TRACE("exception-table entry " + std::to_string(K));
    EXPECT_EQ(int64_t(Ours.Start), *E[0].getAsInteger());
    EXPECT_EQ(int64_t(Ours.End), *E[1].getAsInteger());
    EXPECT_EQ(int64_t(Ours.Target), *E[2].getAsInteger());
    EXPECT_EQ(int64_t(Ours.Depth), *E[3].getAsInteger());
    EXPECT_EQ(Ours.Lasti, *E[4].getAsBoolean());
  }
  EXPECT_EQ(llvm::toHex(encodeExceptionTable(*Table), true),
            R.getString("exceptiontable").getValueOr(""));
  std::vector<Finding> TableFindings;
  validateExceptionTable(*Table, S, C.StackSize, TableFindings);
  for (const Finding &F : TableFindings)
    ADD_FAILURE() << "unexpected table finding: " << F.Message;

  // co_positions().
  auto Positions = decodeLocationTable(C.LineTable, C.FirstLineNo,
                                       uint32_t(C.Code.size() / 2));
  ASSERT_TRUE(bool(Positions)) << llvm::toString(Positions.takeError());
  const json::Array *RP = R.getArray("positions");
  ASSERT_NE(RP, nullptr);
  ASSERT_EQ(Positions->size(), RP->size());
  for (size_t U = 0; U < RP->size(); ++U) {
    const json::Array &P = *(*RP)[U].getAsArray();
    Position Want;
    auto Get = [&](size_t K) -> std::optional<int32_t> {
      if (auto V = P[K].getAsInteger())
        return int32_t(*V);
      return std::nullopt;
    };
    Want.Line = Get(0);
    Want.EndLine = Get(1);
    Want.Col = Get(2);
    Want.EndCol = Get(3);
    EXPECT_EQ((*Positions)[U], Want) << "position of code unit " << U;
  }
}

void CodeReference::checkModule(llvm::StringRef Name) {
  ASSERT_NE(Reference, nullptr);
  const json::Object *Module = Reference->getAsObject()->getObject(Name);
  ASSERT_NE(Module, nullptr) << "no snippet " << Name.str();
  std::string Bytes =
      llvm::fromHex(Module->getString("marshal").getValueOr(""));
  auto V = readMarshal(Bytes);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const CodeObject *Root = V->getCode();
  ASSERT_NE(Root, nullptr);

  std::vector<const CodeObject *> All;
  forEachCodeObject(*Root,
                    [&](const CodeObject &C, unsigned) { All.push_back(&C); });
  const json::Array *Objects = Module->getArray("code_objects");
  ASSERT_NE(Objects, nullptr);
  ASSERT_EQ(All.size(), Objects->size());
  for (size_t I = 0; I < All.size(); ++I)
    compareCode(*All[I], *(*Objects)[I].getAsObject());
}

TEST_F(CodeReference, Constants) { checkModule("constants"); }
TEST_F(CodeReference, ControlFlow) { checkModule("control_flow"); }
TEST_F(CodeReference, Exceptions) { checkModule("exceptions"); }
TEST_F(CodeReference, Closures) { checkModule("closures"); }
TEST_F(CodeReference, ExtendedArg) { checkModule("extended_arg"); }
TEST_F(CodeReference, ManyNames) { checkModule("many_names"); }
TEST_F(CodeReference, Locations) { checkModule("locations"); }

TEST_F(CodeReference, EveryPrefixOfARealModuleFailsCleanly) {
  ASSERT_NE(Reference, nullptr);
  const json::Object *Module =
      Reference->getAsObject()->getObject("exceptions");
  ASSERT_NE(Module, nullptr);
  std::string Bytes =
      llvm::fromHex(Module->getString("marshal").getValueOr(""));
  for (size_t N = 0; N < Bytes.size(); ++N) {
    auto V = readMarshal(llvm::StringRef(Bytes).take_front(N));
    ASSERT_FALSE(bool(V)) << "prefix of " << N << " bytes was accepted";
    std::string Msg = llvm::toString(V.takeError());
    ASSERT_NE(Msg.find("at byte"), std::string::npos) << Msg;
  }
}

} // namespace
