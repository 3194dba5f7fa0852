//===- OperandChecks.cpp - Arguments against what they index --------------===//

#include "pyverify/Check/OperandChecks.h"

#include "pyverify/Bytecode/OperandRules.h"
#include "pyverify/Check/StackChecks.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <optional>

using namespace pyverify;

namespace {

/// The code object's tables an operand indexes.
struct Tables {
  const CodeObject &C;
  uint32_t NumFree = 0;

  explicit Tables(const CodeObject &C) : C(C) {
    for (char K : C.LocalsPlusKinds)
      NumFree += (uint8_t(K) & CoFastFree) != 0;
  }
  uint32_t numSlots() const { return C.LocalsPlusNames.size(); }
  bool isCellOrFree(uint32_t Slot) const {
    return Slot < C.LocalsPlusKinds.size() &&
           (uint8_t(C.LocalsPlusKinds[Slot]) & (CoFastCell | CoFastFree));
  }
};

/// "14 LOAD_CONST 200", the instruction a message is about: built only
/// when a message needs it (checkOperands visits every instruction).
class Where {
public:
  explicit Where(const Instruction &I) : I(I) {}
  const std::string &str() const {
    if (S.empty())
      S = std::to_string(I.Offset) + " " + describeInstruction(I);
    return S;
  }

private:
  const Instruction &I;
  mutable std::string S;
};

const char *const PastTuple =
    "CPython does not check the index and reads past the tuple";

std::string slotPast(const Where &At, uint32_t V, const char *Note,
                     const Tables &T) {
  return llvm::formatv("{0} uses localsplus slot {1}{2}, but the frame has {3} "
                       "local, cell and free slot(s): CPython does not check "
                       "the index and reads or writes the value stack or "
                       "memory past it",
                       At.str(), V, Note, T.numSlots())
      .str();
}

std::string rangeMessage(const Where &At, const OperandRule &R, uint32_t V,
                         const char *Note) {
  std::string Range = R.Hi == UINT32_MAX
                          ? "below " + std::to_string(R.Lo)
                          : llvm::formatv("outside {0}..{1}", R.Lo, R.Hi).str();
  if (R.Bound == OperandBound::OneFlag)
    Range = llvm::formatv("not a single bit of {0}..{1}", R.Lo, R.Hi).str();
  return llvm::formatv("{0}: the {1} {2}{3} is {4}: CPython {5}", At.str(),
                       R.What, V, Note, Range, R.Effect)
      .str();
}

/// The argument count of the call KW_NAMES at \p I is for: the next
/// instruction's (3.12: CALL) or the one after it (3.11: PRECALL, CALL).
std::optional<uint32_t> callArgCount(const InstructionStream &Insts, size_t I) {
  for (size_t J = I + 1; J < Insts.size() && J <= I + 2; ++J) {
    if (Insts[J].is(Opcode::CALL))
      return Insts[J].Arg;
    if (!Insts[J].is(Opcode::PRECALL))
      break;
  }
  return std::nullopt;
}

/// KW_NAMES's constant: a tuple no longer than the call's arguments.
std::optional<std::string> checkKwNames(const InstructionStream &Insts,
                                        size_t I, const Tables &T,
                                        const Where &At) {
  const Instruction &In = Insts[I];
  const std::vector<Value> *Names =
      T.C.Consts[In.Arg].getSequence(SequenceKind::Tuple);
  if (!Names)
    return llvm::formatv("{0} takes co_consts[{1}] as the call's keyword "
                         "names, but it is not a tuple: CPython reads it as "
                         "one",
                         At.str(), In.Arg)
        .str();
  std::optional<uint32_t> N = callArgCount(Insts, I);
  if (!N)
    return llvm::formatv("{0} is not directly followed by the call that "
                         "takes its names ({1}): the names stay set for "
                         "whichever call runs next, in this frame or its "
                         "caller",
                         At.str(),
                         traits(In.Ver).PrecallBeforeCall ? "PRECALL, CALL"
                                                          : "CALL")
        .str();
  if (Names->size() <= *N)
    return std::nullopt;
  return llvm::formatv("{0} names {1} keyword argument(s), but the CALL {2} "
                       "it is for passes {2} argument(s): CPython computes a "
                       "negative positional count",
                       At.str(), Names->size(), *N)
      .str();
}

/// 3.13's CALL_KW: the keyword names a LOAD_CONST right before it loads (the
/// compiler's layout; names from elsewhere are a value the check does not
/// follow) are a tuple no longer than its argument count.
std::optional<std::string> checkKwCount(const InstructionStream &Insts,
                                        size_t I, const Tables &T,
                                        const Where &At) {
  if (I == 0 || !Insts[I - 1].is(Opcode::LOAD_CONST) ||
      Insts[I - 1].Arg >= T.C.Consts.size())
    return std::nullopt;
  uint32_t K = Insts[I - 1].Arg;
  const std::vector<Value> *Names =
      T.C.Consts[K].getSequence(SequenceKind::Tuple);
  if (!Names)
    return llvm::formatv("{0} takes co_consts[{1}], loaded by the LOAD_CONST "
                         "right before it, as its keyword names, but it is "
                         "not a tuple: CPython reads it as one",
                         At.str(), K)
        .str();
  if (Names->size() <= Insts[I].Arg)
    return std::nullopt;
  return llvm::formatv("{0} passes {1} argument(s), but the keyword names the "
                       "LOAD_CONST {2} before it loads are {3}: CPython "
                       "computes a negative positional count",
                       At.str(), Insts[I].Arg, K, Names->size())
      .str();
}

/// Whether value \p V breaks rule \p R: the one statement of each bound's
/// condition, tested inline (checkOperands visits every instruction). The
/// keyword bounds read the instructions around: true, checkRule() decides.
inline bool mayBreak(const OperandRule &R, uint32_t V, const Tables &T) {
  switch (R.Bound) {
  case OperandBound::Consts:
    return V >= T.C.Consts.size();
  case OperandBound::KwNames:
  case OperandBound::KwCount:
    return true;
  case OperandBound::Names:
    return V >= T.C.Names.size();
  case OperandBound::LocalsPlus:
    return V >= T.numSlots();
  case OperandBound::Cell:
    return V >= T.numSlots() || !T.isCellOrFree(V);
  case OperandBound::NFreeVars:
    return V != T.NumFree;
  case OperandBound::Range:
    return V < R.Lo || V > R.Hi;
  case OperandBound::OneFlag:
    return V < R.Lo || V > R.Hi || (V & (V - 1));
  }
  llvm_unreachable("unknown operand bound");
}

/// The message for rule \p R that mayBreak() flagged at instruction \p I
/// (none for a keyword bound the instructions around satisfy).
std::optional<std::string> checkRule(const OperandRule &R,
                                     const InstructionStream &Insts, size_t I,
                                     const Tables &T, const Where &At) {
  uint32_t V = R.value(Insts[I].Arg);
  assert(mayBreak(R, V, T) && "the message of a rule the operand keeps");
  const char *Note = OperandRule::fieldNote(R.Field);
  switch (R.Bound) {
  case OperandBound::KwNames:
    if (V < T.C.Consts.size())
      return checkKwNames(Insts, I, T, At);
    [[fallthrough]];
  case OperandBound::Consts:
    return llvm::formatv("{0} reads co_consts[{1}]{2}, but the code object "
                         "has {3} constant(s): {4}",
                         At.str(), V, Note, T.C.Consts.size(), PastTuple)
        .str();
  case OperandBound::KwCount:
    return checkKwCount(Insts, I, T, At);
  case OperandBound::Names:
    return llvm::formatv("{0} names co_names[{1}]{2}, but the code object "
                         "has {3} name(s): {4}",
                         At.str(), V, Note, T.C.Names.size(), PastTuple)
        .str();
  case OperandBound::LocalsPlus:
  case OperandBound::Cell:
    if (V >= T.numSlots())
      return slotPast(At, V, Note, T);
    return llvm::formatv("{0} uses localsplus slot {1}{2} ('{3}') as a "
                         "cell, but it is a plain local, neither a cell nor "
                         "a free variable: CPython treats the object in it "
                         "as a cell",
                         At.str(), V, Note, T.C.LocalsPlusNames[V])
        .str();
  case OperandBound::NFreeVars:
    return llvm::formatv("{0} copies {1} free variable(s), but the code "
                         "object has {2}: CPython copies closure items past "
                         "the tuple or leaves free-variable slots NULL",
                         At.str(), V, T.NumFree)
        .str();
  case OperandBound::Range:
  case OperandBound::OneFlag:
    return rangeMessage(At, R, V, Note);
  }
  llvm_unreachable("unknown operand bound");
}

/// Instruction \p I of \p D against its rules: every rule mayBreak() flags
/// whose checkRule() has a message is reported. Out of line: the loop that
/// calls it for the few instructions its quick rows do not pass keeps its
/// own state in registers.
LLVM_ATTRIBUTE_NOINLINE void checkRules(const DecodedCode &D, size_t I,
                                        const Tables &T,
                                        std::vector<Finding> &Out) {
  const Instruction &In = D.Insts[I];
  if (!In.Valid)
    return;
  llvm::ArrayRef<OperandRule> Rules = getOperandRules(In.Ver, In.op());
  if (Rules.empty() || !In.info().HasArg)
    return;
  Where At(In);
  for (const OperandRule &R : Rules) {
    if (!mayBreak(R, R.value(In.Arg), T))
      continue;
    if (std::optional<std::string> Msg = checkRule(R, D.Insts, I, T, At))
      Out.emplace_back(CheckId::OperandOutOfRange, In.Offset, std::move(*Msg));
  }
}

/// What the loop reads of an opcode byte's rules to pass most instructions
/// over without them: derived, once per (version, byte), from
/// OperandRules.def's rules and the opcode table, so that the loop tests
/// the commonest bounds -- an index below a table's size, a value in a
/// fixed range -- with no lookup of the rules, no dispatch on the bound and
/// nothing built. An instruction a row does not pass goes through the rules
/// (mayBreak(), checkRule()) as before: the rows only skip what those would
/// find nothing in.
struct QuickRow {
  enum Kind : uint8_t {
    Nothing, ///< No rule, no argument, or not a base opcode: never reported.
    Quick,   ///< Up to MaxQuick rules, each an index or a fixed range.
    Rules,   ///< Any other rule: always through the rules.
  };
  static constexpr unsigned MaxQuick = 2;
  Kind K = Nothing;
  /// A Quick row's rules: operand K, (argument >> Shift[K]) & Mask[K],
  /// lies in bound Limit[K] (Limits). A row of one rule has a second that
  /// every argument passes (Limits::Always), so the loop tests two.
  uint8_t Shift[MaxQuick] = {};
  uint8_t Limit[MaxQuick] = {};
  uint32_t Mask[MaxQuick] = {};
};
static_assert(sizeof(QuickRow) == 16, "a row is a shift of the byte away");

/// The bounds the quick rows test, each as [Lo, Lo + Span): a code
/// object's three tables (filled per code object), then every fixed range
/// of OperandRules.def, each once.
struct Limits {
  /// Always: every 32-bit operand lies in it.
  enum : uint8_t { Consts, Names, Slots, Always, FirstRange };
  static constexpr unsigned Max = 32;
  struct Bound {
    uint64_t Lo, Span;
  };
  Bound B[Max]; ///< Uninitialised past Size: only those are read.
  unsigned Size = FirstRange;
};

struct QuickTables {
  std::array<std::array<QuickRow, 256>, NumPythonVersions> Rows{};
  Limits Ranges; ///< The fixed ranges; the tables' bounds left empty.
};

/// Shift and mask of \p F, probed from OperandRule::fieldValue (the one
/// statement of each field); std::nullopt if it is neither a shift nor a
/// mask of the low bits.
std::optional<std::pair<uint8_t, uint32_t>> shiftMaskOf(OperandField F) {
  uint32_t M = OperandRule::fieldValue(F, ~0u);
  for (uint8_t S : {uint8_t(0), uint8_t(std::countl_zero(M))}) {
    bool Same = true;
    for (uint32_t X : {0u, 1u, 15u, 16u, 0x12345678u, 0x80000000u, ~0u})
      Same &= OperandRule::fieldValue(F, X) == ((X >> S) & M);
    if (Same)
      return std::make_pair(S, M);
  }
  return std::nullopt;
}

const QuickTables &quickTables() {
  static const QuickTables Q = [] {
    QuickTables T;
    Limits &L = T.Ranges;
    L.B[Limits::Always] = {0, uint64_t(1) << 32};
    auto RangeLimit = [&](uint32_t Lo, uint32_t Hi) -> std::optional<uint8_t> {
      Limits::Bound Want{Lo, Hi >= Lo ? uint64_t(Hi) - Lo + 1 : 0};
      // (an empty range: nothing passes, every value goes to the rules)
      for (unsigned K = Limits::FirstRange; K < L.Size; ++K)
        if (L.B[K].Lo == Want.Lo && L.B[K].Span == Want.Span)
          return uint8_t(K);
      if (L.Size == Limits::Max)
        return std::nullopt;
      L.B[L.Size] = Want;
      return uint8_t(L.Size++);
    };
    for (PythonVersion V : AllPythonVersions)
      for (unsigned B = 0; B < 256; ++B) {
        QuickRow &Row = T.Rows[unsigned(V)][B];
        std::optional<Instruction> In = Instruction::probe(V, uint8_t(B));
        if (!In || !In->info().HasArg)
          continue; // Nothing: the rules skip it (invalid, or no argument)
        llvm::ArrayRef<OperandRule> Rs = getOperandRules(V, In->op());
        if (Rs.empty())
          continue;
        Row.K =
            Rs.size() <= QuickRow::MaxQuick ? QuickRow::Quick : QuickRow::Rules;
        unsigned N = 0;
        for (const OperandRule &R : Rs) {
          if (Row.K != QuickRow::Quick)
            break;
          std::optional<std::pair<uint8_t, uint32_t>> SM = shiftMaskOf(R.Field);
          std::optional<uint8_t> Limit;
          switch (R.Bound) {
          case OperandBound::Consts:
            Limit = Limits::Consts;
            break;
          case OperandBound::Names:
            Limit = Limits::Names;
            break;
          case OperandBound::LocalsPlus:
            Limit = Limits::Slots;
            break;
          case OperandBound::Range:
            Limit = RangeLimit(R.Lo, R.Hi);
            break;
          case OperandBound::KwNames:
          case OperandBound::KwCount:
          case OperandBound::Cell:
          case OperandBound::NFreeVars:
          case OperandBound::OneFlag:
            break;
          }
          if (!SM || !Limit) {
            Row.K = QuickRow::Rules;
            break;
          }
          Row.Shift[N] = SM->first;
          Row.Mask[N] = SM->second;
          Row.Limit[N++] = *Limit;
        }
        for (; N < QuickRow::MaxQuick; ++N)
          Row.Limit[N] = Limits::Always;
      }
    return T;
  }();
  return Q;
}

} // namespace

void pyverify::checkOperands(const DecodedCode &D, std::vector<Finding> &Out) {
  llvm::ArrayRef<Instruction> All = D.Insts.instructions();
  if (All.empty())
    return;
  Tables T(*D.Code);
  const QuickTables &QT = quickTables();
  // One version per stream: its row of each table, found once.
  const QuickRow *Quick = QT.Rows[unsigned(All[0].Ver)].data();
  Limits L; // the fixed bounds copied, the tables' filled
  std::copy(QT.Ranges.B + Limits::Always, QT.Ranges.B + QT.Ranges.Size,
            L.B + Limits::Always);
  L.B[Limits::Consts] = {0, T.C.Consts.size()};
  L.B[Limits::Names] = {0, T.C.Names.size()};
  L.B[Limits::Slots] = {0, T.numSlots()};
  for (size_t I = 0; I < All.size(); ++I) {
    const Instruction &In = All[I];
    const QuickRow &Row = Quick[In.OpByte];
    if (Row.K == QuickRow::Nothing)
      continue;
    if (Row.K == QuickRow::Quick) {
      auto Passes = [&](unsigned K) {
        const Limits::Bound &B = L.B[Row.Limit[K]];
        return uint64_t((In.Arg >> Row.Shift[K]) & Row.Mask[K]) - B.Lo < B.Span;
      };
      static_assert(QuickRow::MaxQuick == 2);
      if (Passes(0) & Passes(1))
        continue;
    }
    checkRules(D, I, T, Out);
  }
}

void pyverify::checkOperandsByRules(const DecodedCode &D,
                                    std::vector<Finding> &Out) {
  if (D.Insts.size() == 0)
    return;
  Tables T(*D.Code);
  for (size_t I = 0; I < D.Insts.size(); ++I)
    checkRules(D, I, T, Out);
}
