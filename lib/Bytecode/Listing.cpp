//===- Listing.cpp - Disassembly listings (text and JSON) -----------------===//

#include "pyverify/Bytecode/Listing.h"
#include "pyverify/Bytecode/ExceptionTableText.h"
#include "pyverify/Bytecode/OperandRules.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>

using namespace pyverify;

std::string pyverify::jsonSafe(llvm::StringRef S) {
  if (llvm::json::isUTF8(S))
    return S.str();
  return llvm::json::fixUTF8(S);
}

namespace {

/// \p V's text \p Index of \p T, or "<bad WHAT>" (dis itself raises there).
std::string argText(PythonVersion V, ArgTextTable T, uint32_t Index,
                    llvm::StringRef What) {
  if (const char *S = getArgText(V, T, Index))
    return S;
  return ("<bad " + What + ">").str();
}

/// \p V's pattern \p T with \p Operand in it.
std::string withFormat(PythonVersion V, ArgTextTable T, llvm::StringRef Operand,
                       unsigned Index = 0) {
  const char *F = getArgText(V, T, Index);
  return F ? llvm::formatv(F, Operand).str() : Operand.str();
}

/// The operand of \p I that its \p N-th rule of bound \p B takes from the
/// argument (OperandRules.def), else the whole argument.
uint32_t ruleOperand(const Instruction &I, unsigned N = 0) {
  llvm::ArrayRef<OperandRule> Rules = getOperandRules(I.Ver, I.op());
  return N < Rules.size() ? Rules[N].value(I.Arg) : I.Arg;
}

/// The names of the set bits of \p A in \p V's table \p T, ", "-separated.
std::string flagNames(PythonVersion V, ArgTextTable T, uint32_t A) {
  std::string S;
  for (unsigned B = 0; B < MaxArgTexts && (A >> B); ++B)
    if (A & (1u << B))
      S += (S.empty() ? "" : ", ") + argText(V, T, B, "flag");
  return S;
}

} // namespace

std::string pyverify::describeArgument(const CodeObject &C,
                                       const Instruction &I) {
  // The version's operand kind says how its dis shows the argument; the
  // texts are the version's (ArgTextTable).
  if (!I.Valid)
    return "";
  PythonVersion V = I.Ver;
  uint32_t A = I.Arg;
  auto Name = [&](uint64_t Idx) -> std::string {
    return Idx < C.Names.size() ? C.Names[Idx].str() : "<bad name index>";
  };
  auto Local = [&](uint64_t Idx) -> std::string {
    return Idx < C.LocalsPlusNames.size() ? C.LocalsPlusNames[Idx].str()
                                          : "<bad local index>";
  };
  switch (I.info().Operand) {
  case OperandKind::None:
  case OperandKind::Raw:
    return "";
  case OperandKind::Const:
    return A < C.Consts.size() ? C.Consts[A].repr(C.Version)
                               : "<bad const index>";
  case OperandKind::Name:
    return Name(A);
  case OperandKind::GlobalName:
  case OperandKind::AttrName: {
    std::string N = Name(ruleOperand(I));
    if (!(A & 1))
      return N;
    return withFormat(V,
                      I.info().Operand == OperandKind::GlobalName
                          ? ArgTextTable::NullFormat
                          : ArgTextTable::NullSelfFormat,
                      N);
  }
  case OperandKind::ImportName: { // dis: bit 0 lazy, else bit 1 eager
    std::string N = Name(ruleOperand(I));
    if (N.empty()) // `from . import x`: dis adds no flag to an empty name
      return N;
    return withFormat(V, ArgTextTable::ImportFormat, N,
                      (A & 1)   ? 1
                      : (A & 2) ? 2
                                : 0);
  }
  case OperandKind::Local:
  case OperandKind::Free:
    return Local(A);
  case OperandKind::LocalPair:
    return Local(ruleOperand(I, 0)) + ", " + Local(ruleOperand(I, 1));
  case OperandKind::Jump:
    return "to " + std::to_string(I.Target);
  case OperandKind::Compare:
    return argText(V, ArgTextTable::CompareOp, ruleOperand(I), "compare op");
  case OperandKind::CompareBool: {
    std::string Op =
        argText(V, ArgTextTable::CompareOp, ruleOperand(I), "compare op");
    return A & 16 ? withFormat(V, ArgTextTable::CompareBoolFormat, Op) : Op;
  }
  case OperandKind::BinaryOp:
    return argText(V, ArgTextTable::BinaryOp, A, "binary op");
  case OperandKind::Intrinsic1:
    return argText(V, ArgTextTable::Intrinsic1, A, "intrinsic");
  case OperandKind::Intrinsic2:
    return argText(V, ArgTextTable::Intrinsic2, A, "intrinsic");
  case OperandKind::Conversion:
    return argText(V, ArgTextTable::Conversion, A, "conversion");
  case OperandKind::IsOp:
    return argText(V, ArgTextTable::IsOp, A ? 1 : 0, "is op");
  case OperandKind::ContainsOp:
    return argText(V, ArgTextTable::ContainsOp, A ? 1 : 0, "contains op");
  case OperandKind::SpecialMethod:
    return argText(V, ArgTextTable::SpecialMethod, A, "special method");
  case OperandKind::CommonConstant:
    return argText(V, ArgTextTable::CommonConstant, A, "common constant");
  case OperandKind::BackwardLabel:
    return "from " + std::to_string(int64_t(I.End) - 2 * int64_t(A));
  case OperandKind::MakeFunction:
    return flagNames(V, ArgTextTable::FunctionFlag, A);
  case OperandKind::FormatValue: {
    std::string S = argText(V, ArgTextTable::Conversion, A & 3, "conversion");
    if (A & 4)
      S += (S.empty() ? "" : ", ") + std::string("with format");
    return S;
  }
  }
  llvm_unreachable("unknown operand kind");
}

static llvm::DenseSet<uint32_t> jumpLabels(const DecodedCode &D) {
  llvm::DenseSet<uint32_t> Labels;
  for (const Instruction &I : D.Insts.instructions())
    if (I.Target >= 0)
      Labels.insert(uint32_t(I.Target));
  for (const ExceptionTableEntry &E : D.Table)
    Labels.insert(E.Target);
  return Labels;
}

void pyverify::printListing(llvm::raw_ostream &OS, const DecodedCode &D,
                            const ListingAnnotator *A) {
  const CodeObject &C = *D.Code;
  OS << "Disassembly of <code object " << C.Name << ", file \"" << C.Filename
     << "\", line " << C.FirstLineNo << ">";
  if (C.QualName != C.Name)
    OS << " (" << C.QualName << ")";
  OS << ":\n";
  if (A && A->Header)
    A->Header(OS);
  auto Labels = jumpLabels(D);
  std::optional<int32_t> LastLine;
  bool First = true;
  for (size_t Idx = 0; Idx < D.Insts.size(); ++Idx) {
    const Instruction &I = D.Insts[Idx];
    // One row per code unit instruction: prefixes first.
    for (unsigned P = 0; P <= I.NumPrefixes; ++P) {
      bool IsPrefix = P < I.NumPrefixes;
      uint32_t Off = I.Start + 2 * P;
      Position Pos = D.positionAt(Off);
      bool StartsLine = Pos.Line && Pos.Line != LastLine;
      if (StartsLine) {
        if (!First)
          OS << '\n';
        OS << llvm::format("%4d", *Pos.Line);
        LastLine = Pos.Line;
      } else {
        OS << "    ";
      }
      First = false;
      OS << (Labels.count(Off) ? " >> " : "    ");
      OS << llvm::format("%5u ", Off);
      if (IsPrefix) {
        OS << llvm::format("%-20s %5u",
                           static_cast<const char *>("EXTENDED_ARG"),
                           I.prefixRowArg(P));
      } else {
        OS << llvm::format("%-20s", I.name().str().c_str());
        if (I.hasArg()) {
          OS << llvm::format(" %5u", I.Arg);
          std::string Desc = describeArgument(C, I);
          if (!Desc.empty())
            OS << " (" << Desc << ")";
        } else if (!I.Valid) {
          OS << llvm::format(" (byte %u)", unsigned(I.OpByte));
        }
        if (A && A->Text)
          OS << A->Text(Idx);
      }
      OS << '\n';
    }
  }
  if (!D.Table.empty()) {
    OS << "ExceptionTable:\n";
    for (const ExceptionTableEntry &E : D.Table)
      OS << "  " << entryText(E) << '\n';
  }
}

static llvm::json::Value optInt(std::optional<int32_t> V) {
  if (V)
    return *V;
  return nullptr;
}

static constexpr llvm::StringLiteral RowKeyNames[NumRowKeys] = {
    "offset", "opname", "opcode", "arg",      "argrepr",
    "target", "line",   "col",    "end_line", "end_col"};

llvm::StringRef pyverify::getRowKeyName(RowKey K) {
  return RowKeyNames[unsigned(K)];
}

std::optional<RowKey> pyverify::getRowKeyByName(llvm::StringRef Name) {
  for (unsigned K = 0; K < NumRowKeys; ++K)
    if (RowKeyNames[K] == Name)
      return RowKey(K);
  return std::nullopt;
}

namespace {
/// One JSON instruction row, with the keys of a ListingAnnotator's RowKeys.
class RowWriter {
  unsigned Keys;
  llvm::json::Object &O;

public:
  RowWriter(unsigned Keys, llvm::json::Object &O) : Keys(Keys), O(O) {}
  bool wants(RowKey K) const { return Keys & rowKeyBit(K); }
  void set(RowKey K, llvm::json::Value V) {
    if (wants(K))
      O[getRowKeyName(K)] = std::move(V);
  }
};
} // namespace

static llvm::json::Value optArg(const Instruction &I) {
  if (I.hasArg())
    return int64_t(I.Arg);
  return nullptr;
}

static llvm::json::Value optTarget(const Instruction &I) {
  if (I.Target >= 0)
    return I.Target;
  return nullptr;
}

void pyverify::writeListingJSON(llvm::json::OStream &J, const DecodedCode &D,
                                const ListingAnnotator *A,
                                llvm::ArrayRef<JSONMember> Extra) {
  const CodeObject &C = *D.Code;
  unsigned Keys = A ? A->RowKeys : AllRowKeys;
  constexpr unsigned PositionKeys =
      rowKeyBit(RowKey::Line) | rowKeyBit(RowKey::Col) |
      rowKeyBit(RowKey::EndLine) | rowKeyBit(RowKey::EndCol);
  auto Rows = [&](llvm::json::OStream &J) {
    J.array([&] {
      for (size_t Idx = 0; Idx < D.Insts.size(); ++Idx) {
        const Instruction &I = D.Insts[Idx];
        for (unsigned P = 0; P <= I.NumPrefixes; ++P) {
          bool IsPrefix = P < I.NumPrefixes;
          uint32_t Off = I.Start + 2 * P;
          llvm::json::Object O;
          RowWriter W(Keys, O);
          W.set(RowKey::Offset, Off);
          if (IsPrefix) {
            W.set(RowKey::Opname, "EXTENDED_ARG");
            W.set(RowKey::Opcode, unsigned(extendedArgByte(I.Ver)));
            W.set(RowKey::Arg, int64_t(I.prefixRowArg(P)));
            W.set(RowKey::Argrepr, "");
            W.set(RowKey::Target, nullptr);
          } else {
            W.set(RowKey::Opname, I.name());
            W.set(RowKey::Opcode, unsigned(I.OpByte));
            W.set(RowKey::Arg, optArg(I));
            if (W.wants(RowKey::Argrepr))
              W.set(RowKey::Argrepr,
                    jsonSafe(I.hasArg() ? describeArgument(C, I) : ""));
            W.set(RowKey::Target, optTarget(I));
          }
          if (Keys & PositionKeys) {
            Position Pos = D.positionAt(Off);
            W.set(RowKey::Line, optInt(Pos.Line));
            W.set(RowKey::Col, optInt(Pos.Col));
            W.set(RowKey::EndLine, optInt(Pos.EndLine));
            W.set(RowKey::EndCol, optInt(Pos.EndCol));
          }
          if (A && A->Json)
            A->Json(Idx, O);
          // Written as built: one row lives at a time.
          J.value(llvm::json::Value(std::move(O)));
        }
      }
    });
  };
  auto Table = [&](llvm::json::OStream &J) {
    J.array([&] {
      for (const ExceptionTableEntry &E : D.Table)
        J.value(llvm::json::Object{{"start", E.Start},
                                   {"end", E.End},
                                   {"target", E.Target},
                                   {"depth", E.Depth},
                                   {"lasti", E.Lasti}});
    });
  };
  // The code object's own small members, then the annotator's.
  llvm::json::Object Small{{"name", jsonSafe(C.Name)},
                           {"qualname", jsonSafe(C.QualName)},
                           {"firstlineno", C.FirstLineNo},
                           {"stacksize", C.StackSize},
                           {"flags", C.Flags}};
  if (A && A->CodeJson)
    A->CodeJson(Small);
  llvm::SmallVector<JSONMember, 16> Members(Extra.begin(), Extra.end());
  Members.push_back({"instructions", Rows});
  Members.push_back({"exception_table", Table});
  for (const auto &[Key, V] : Small)
    Members.push_back({Key, nullptr, &V});
  assert(
      llvm::all_of(Members,
                   [](const JSONMember &M) { return M.Key > ChildrenKey; }) &&
      "a code object's key sorts before its children");
  writeJSONMembers(J, Members);
}

/// A stub for \p C (writeCodeTreeJSON): not inlined, so that the recursion's
/// frames do not hold its object.
LLVM_ATTRIBUTE_NOINLINE static void
writeStub(llvm::json::OStream &J, const CodeObject &C, bool Duplicate) {
  J.value(llvm::json::Object{{"name", jsonSafe(C.Name)},
                             {"qualname", jsonSafe(C.QualName)},
                             {"firstlineno", C.FirstLineNo},
                             {"stacksize", C.StackSize},
                             {"flags", C.Flags},
                             {Duplicate ? "duplicate" : "too_deep", true},
                             {"instructions", llvm::json::Array()},
                             {"exception_table", llvm::json::Array()},
                             {ChildrenKey, llvm::json::Array()}});
}

static void writeCodeTreeImpl(llvm::json::OStream &J, const CodeObject &C,
                              CodeJSONWriter One,
                              llvm::SmallPtrSetImpl<const CodeObject *> &Seen,
                              unsigned Depth) {
  bool Duplicate = !Seen.insert(&C).second;
  if (Duplicate || Depth >= MaxJSONCodeDepth)
    return writeStub(J, C, Duplicate);
  J.object([&] {
    J.attributeArray(ChildrenKey, [&] {
      for (const CodeObject *K : C.children())
        writeCodeTreeImpl(J, *K, One, Seen, Depth + 1);
    });
    One(J, C);
  });
}

void pyverify::writeCodeTreeJSON(
    llvm::json::OStream &J, const CodeObject &Root, CodeJSONWriter One,
    llvm::SmallPtrSetImpl<const CodeObject *> &Seen) {
  writeCodeTreeImpl(J, Root, One, Seen, 0);
}
