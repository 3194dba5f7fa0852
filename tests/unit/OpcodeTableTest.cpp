//===- OpcodeTableTest.cpp - Opcodes.def against python3.11's dis ---------===//
//
// Every field of the opcode table is compared with the interpreter's own
// tables (opcode_reference.py prints them): names and numbers, has-arg,
// inline cache counts, jump membership and direction, operand kinds,
// specialised opcodes, and the stack effect on both edges for arguments
// 0..1029 and a few large values.
//
// Facts python does not expose as data (which jumps are unconditional, which
// instructions end a block) are checked against the bytecode notes, section
// 1.3.
//
//===----------------------------------------------------------------------===//

#include "Opcodes311.h"
#include "pyverify/Bytecode/Opcode.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"

#include "CompiledCode.h"
#include "gtest/gtest.h"

#include <cstdio>
#include <memory>

using namespace pyverify;
using namespace pyverify::test311;
namespace json = llvm::json;
using llvm::StringRef;

namespace {

using pyverify::test::runCommand;

class OpcodeTable : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // Stack effects take most of the script's time; only StackEffects (in
    // its own suite) asks for them.
    std::string Out = runCommand(std::string(PYVERIFY_PYTHON) + " " +
                                 PYVERIFY_OPCODE_REFERENCE +
                                 (WithEffects ? " --effects" : ""));
    auto V = json::parse(Out);
    if (!V) {
      ADD_FAILURE() << "bad JSON from opcode_reference.py: "
                    << llvm::toString(V.takeError());
      return;
    }
    Ref = std::make_unique<json::Value>(std::move(*V));
  }
  static void TearDownTestSuite() { Ref.reset(); }

  void SetUp() override { ASSERT_NE(Ref, nullptr); }

  static const json::Object &ref() { return *Ref->getAsObject(); }
  static int64_t integer(StringRef Key) {
    return ref().getInteger(Key).getValueOr(-1);
  }
  /// opcode.opmap: name -> number.
  static std::vector<std::pair<std::string, uint8_t>> opmap() {
    std::vector<std::pair<std::string, uint8_t>> Out;
    for (const auto &KV : *ref().getObject("opmap"))
      Out.push_back({KV.first.str(), uint8_t(*KV.second.getAsInteger())});
    llvm::sort(
        Out, [](const auto &A, const auto &B) { return A.second < B.second; });
    return Out;
  }
  /// A list of opcode numbers (opcode.hasjrel etc.) as a membership table.
  static std::array<bool, 256> numberSet(StringRef Key) {
    std::array<bool, 256> In{};
    for (const json::Value &V : *ref().getArray(Key))
      In[size_t(*V.getAsInteger())] = true;
    return In;
  }

  static std::unique_ptr<json::Value> Ref;
  static bool WithEffects;
};

std::unique_ptr<json::Value> OpcodeTable::Ref;
bool OpcodeTable::WithEffects = false;

class OpcodeStackEffects : public OpcodeTable {
protected:
  static void SetUpTestSuite() {
    WithEffects = true;
    OpcodeTable::SetUpTestSuite();
  }
  static void TearDownTestSuite() {
    OpcodeTable::TearDownTestSuite();
    WithEffects = false;
  }
};

TEST_F(OpcodeTable, ReferenceIsPython311) {
  StringRef Version = ref().getString("version").getValueOr("");
  EXPECT_TRUE(Version.startswith("3.11.")) << Version.str();
}

TEST_F(OpcodeTable, NamesAndNumbers) {
  auto Map = opmap();
  std::array<bool, 256> InMap{};
  for (const auto &[Name, Num] : Map) {
    SCOPED_TRACE(Name);
    InMap[Num] = true;
    const OpcodeInfo *Info = getOpcodeInfo(Num);
    ASSERT_NE(Info, nullptr) << "base opcode missing from Opcodes.def";
    EXPECT_EQ(StringRef(Info->Name), Name);
    EXPECT_EQ(Info->Number, Num);
    EXPECT_EQ(getOpcodeName(opcodeOf(Num)), Name);
  }
  // Nothing in our table that python does not have.
  unsigned Ours = 0;
  for (unsigned B = 0; B < 256; ++B) {
    if (!getOpcodeInfo(uint8_t(B)))
      continue;
    ++Ours;
    EXPECT_TRUE(InMap[B]) << "Opcodes.def has "
                          << getOpcodeInfo(uint8_t(B))->Name << " (" << B
                          << "), opcode.opmap does not";
  }
  EXPECT_EQ(Ours, Map.size());
}

TEST_F(OpcodeTable, HasArgument) {
  EXPECT_EQ(integer("have_argument"), HaveArgument);
  EXPECT_EQ(integer("extended_arg"), int64_t(byteOf(Opcode::EXTENDED_ARG)));
  for (const auto &[Name, Num] : opmap())
    EXPECT_EQ(getOpcodeInfo(Num)->hasArg(), Num >= integer("have_argument"))
        << Name;
}

TEST_F(OpcodeTable, CacheCounts) {
  const json::Object &Caches = *ref().getObject("caches");
  for (const auto &[Name, Num] : opmap())
    EXPECT_EQ(int64_t(getOpcodeInfo(Num)->Caches),
              Caches.getInteger(Name).getValueOr(-1))
        << Name;
}

TEST_F(OpcodeTable, Jumps) {
  EXPECT_TRUE(ref().getArray("hasjabs")->empty()) << "3.11 has no absolute "
                                                     "jumps";
  auto Jrel = numberSet("hasjrel");
  // Section 1.3: the unconditional jumps; all others fall through.
  llvm::StringSet<> Unconditional = {"JUMP_FORWARD", "JUMP_BACKWARD",
                                     "JUMP_BACKWARD_NO_INTERRUPT"};
  for (const auto &[Name, Num] : opmap()) {
    SCOPED_TRACE(Name);
    const OpcodeInfo &I = *getOpcodeInfo(Num);
    EXPECT_EQ(I.isJump(), Jrel[Num]);
    if (!I.isJump()) {
      EXPECT_EQ(I.Jump, JumpKind::None);
      continue;
    }
    // Direction comes from the name, never a sign.
    EXPECT_EQ(I.isBackwardJump(), StringRef(Name).contains("BACKWARD"));
    EXPECT_EQ(I.isConditionalJump(), !Unconditional.contains(Name));
    EXPECT_EQ(I.Operand, OperandKind::Jump);
  }
}

TEST_F(OpcodeTable, Terminators) {
  // Section 1.3: no fall-through successor.
  llvm::StringSet<> Terminators = {
      "RETURN_VALUE", "RAISE_VARARGS", "RERAISE",
      "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"};
  for (const auto &[Name, Num] : opmap())
    EXPECT_EQ(getOpcodeInfo(Num)->Terminator, Terminators.contains(Name))
        << Name;
}

TEST_F(OpcodeTable, OperandKinds) {
  auto Const = numberSet("hasconst"), Name = numberSet("hasname"),
       Local = numberSet("haslocal"), Free = numberSet("hasfree"),
       Compare = numberSet("hascompare"), Jrel = numberSet("hasjrel");
  for (const auto &[OpName, Num] : opmap()) {
    SCOPED_TRACE(OpName);
    OperandKind K = getOpcodeInfo(Num)->Operand;
    // 3.11's dis shows KW_NAMES's argument as nothing (LOAD_CONST only).
    EXPECT_EQ(K == OperandKind::Const, Const[Num] && OpName != "KW_NAMES");
    // LOAD_GLOBAL is in hasname; its argument is (index << 1) | push_null.
    EXPECT_EQ(K == OperandKind::Name || K == OperandKind::GlobalName,
              Name[Num]);
    EXPECT_EQ(K == OperandKind::GlobalName, OpName == "LOAD_GLOBAL");
    EXPECT_EQ(K == OperandKind::Local, Local[Num]);
    EXPECT_EQ(K == OperandKind::Free, Free[Num]);
    EXPECT_EQ(K == OperandKind::Compare, Compare[Num]);
    EXPECT_EQ(K == OperandKind::Jump, Jrel[Num]);
    EXPECT_EQ(K == OperandKind::BinaryOp, OpName == "BINARY_OP");
    EXPECT_EQ(K == OperandKind::FormatValue, OpName == "FORMAT_VALUE");
    EXPECT_EQ(K == OperandKind::MakeFunction, OpName == "MAKE_FUNCTION");
    // Argument-less opcodes have no operand; every other one has one.
    EXPECT_EQ(K == OperandKind::None, Num < HaveArgument);
  }
}

TEST_F(OpcodeTable, SpecialisedOpcodes) {
  const json::Object &Spec = *ref().getObject("specialized");
  std::array<bool, 256> IsSpec{};
  for (const auto &KV : Spec) {
    SCOPED_TRACE(KV.first.str());
    uint8_t Num = uint8_t(*KV.second.getAsInteger());
    IsSpec[Num] = true;
    EXPECT_EQ(getSpecializedOpcodeName(Num), KV.first.str());
    EXPECT_EQ(getOpcodeInfo(Num), nullptr)
        << "a specialised opcode is in the base table";
  }
  // Every name we know is one python knows, under the same number.
  unsigned Ours = 0;
  for (unsigned B = 0; B < 256; ++B) {
    StringRef S = getSpecializedOpcodeName(uint8_t(B));
    if (S.empty())
      continue;
    ++Ours;
    EXPECT_TRUE(IsSpec[B]) << S.str() << " (" << B << ")";
  }
  EXPECT_EQ(Ours, Spec.size());
  EXPECT_EQ(Spec.size(), 71u);
  // Base opcodes are not specialised names.
  for (const auto &[Name, Num] : opmap())
    EXPECT_TRUE(getSpecializedOpcodeName(Num).empty()) << Name;
}

TEST(OpcodeFacts, UnusedNumbersAreNotOpcodes) {
  // 181..254 are unused and 255 is DO_TRACING: neither base nor specialised.
  for (unsigned B = 181; B < 256; ++B) {
    EXPECT_EQ(getOpcodeInfo(uint8_t(B)), nullptr) << B;
    EXPECT_TRUE(getSpecializedOpcodeName(uint8_t(B)).empty()) << B;
  }
}

TEST_F(OpcodeStackEffects, AgreeWithDis) {
  std::vector<int64_t> Args;
  for (const json::Value &V : *ref().getArray("args"))
    Args.push_back(*V.getAsInteger());
  ASSERT_EQ(Args.size(), 1035u);
  const json::Object &Effects = *ref().getObject("effects");

  std::vector<std::string> Mismatches;
  std::vector<std::string> Overflows;
  size_t Compared = 0;
  for (const auto &[Name, Num] : opmap()) {
    const json::Object *E = Effects.getObject(Name);
    ASSERT_NE(E, nullptr) << Name;
    for (bool Jump : {false, true}) {
      const json::Array &Py = *E->getArray(Jump ? "jump" : "fall");
      // Argument-less opcodes were asked once, without an argument.
      size_t N = Num < HaveArgument ? 1 : Args.size();
      ASSERT_EQ(Py.size(), N) << Name;
      for (size_t K = 0; K < N; ++K) {
        uint32_t Arg = uint32_t(Args[K]);
        std::string Where = Name + "(" + std::to_string(Arg) +
                            ", jump=" + (Jump ? "True" : "False") + ")";
        llvm::Optional<int64_t> Want = Py[K].getAsInteger();
        if (!Want) {
          Mismatches.push_back(Where + ": dis.stack_effect raised");
          continue;
        }
        int64_t Ours = getStackEffect(opcodeOf(Num), Arg, Jump);
        ++Compared;
        if (Ours == *Want)
          continue;
        // CPython computes in a C int; we compute in 64 bits. Where the
        // exact effect does not fit in an int, CPython's is the wrapped one.
        if (Ours < INT32_MIN || Ours > INT32_MAX) {
          EXPECT_EQ(int32_t(uint32_t(uint64_t(Ours))), *Want) << Where;
          Overflows.push_back(Where);
          continue;
        }
        Mismatches.push_back(Where + ": ours " + std::to_string(Ours) +
                             ", dis " + std::to_string(*Want));
      }
    }
  }
  EXPECT_GT(Compared, 100000u);
  if (Mismatches.size() > 20)
    Mismatches.resize(20);
  EXPECT_EQ(Mismatches, std::vector<std::string>{});

  // The one argument where the exact effect leaves the int range:
  // BUILD_MAP 2^31-1 pops 2*(2^31-1) and pushes 1, so the effect is
  // 1 - (2^32 - 2) = -4294967293. CPython's `1 - 2*oparg` overflows its C int
  // (undefined behaviour; in practice it wraps to 3). No real code gets near
  // it, but a verifier must not turn "pops four billion" into "pushes 3".
  EXPECT_EQ(Overflows,
            (std::vector<std::string>{"BUILD_MAP(2147483647, jump=False)",
                                      "BUILD_MAP(2147483647, jump=True)"}));
  EXPECT_EQ(getStackEffect(Opcode::BUILD_MAP, 2147483647u, false),
            -4294967293LL);
}

TEST(OpcodeFacts, StackEffectSpotChecks) {
  // Edge-dependent effects from section 4.3, independent of python.
  EXPECT_EQ(getStackEffect(Opcode::FOR_ITER, 0, false), 1);
  EXPECT_EQ(getStackEffect(Opcode::FOR_ITER, 0, true), -1);
  EXPECT_EQ(getStackEffect(Opcode::JUMP_IF_TRUE_OR_POP, 0, false), -1);
  EXPECT_EQ(getStackEffect(Opcode::JUMP_IF_TRUE_OR_POP, 0, true), 0);
  EXPECT_EQ(getStackEffect(Opcode::SEND, 0, true), -1);
  EXPECT_EQ(getStackEffect(Opcode::LOAD_GLOBAL, 3, false), 2);
  EXPECT_EQ(getStackEffect(Opcode::UNPACK_EX, 0x0102, false), 3);
  EXPECT_EQ(getStackEffect(Opcode::MAKE_FUNCTION, 0xf, false), -4);
  EXPECT_EQ(getStackEffect(Opcode::PRECALL, 3, false), -3);
  EXPECT_EQ(getStackEffect(Opcode::CALL, 3, false), -1);
}

TEST(OpcodeFacts, ResumeMayRaiseOnlyWithArgument0Or1) {
  EXPECT_TRUE(mayRaise(Opcode::RESUME, 0));
  EXPECT_TRUE(mayRaise(Opcode::RESUME, 1));
  EXPECT_FALSE(mayRaise(Opcode::RESUME, 2));
  EXPECT_FALSE(mayRaise(Opcode::RESUME, 3));
  EXPECT_FALSE(mayRaise(Opcode::LOAD_CONST, 0));
  EXPECT_TRUE(mayRaise(Opcode::JUMP_BACKWARD, 0));
  EXPECT_FALSE(mayRaise(Opcode::JUMP_FORWARD, 0));
}

} // namespace
