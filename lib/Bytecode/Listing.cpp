//===- Listing.cpp - Disassembly listings (text and JSON) -----------------===//

#include "pyverify/Bytecode/Listing.h"
#include "pyverify/Bytecode/ExceptionTableText.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace pyverify;

namespace {

const char *const CompareOps[] = {"<", "<=", "==", "!=", ">", ">="};
const char *const BinaryOps[] = {
    "+",  "&",  "//", "<<",  "@",   "*",  "%",   "|",   "**",
    ">>", "-",  "/",  "^",   "+=",  "&=", "//=", "<<=", "@=",
    "*=", "%=", "|=", "**=", ">>=", "-=", "/=",  "^="};
const char *const MakeFunctionFlags[] = {"defaults", "kwdefaults",
                                         "annotations", "closure"};
const char *const Conversions[] = {"", "str", "repr", "ascii"};

} // namespace

std::string pyverify::jsonSafe(llvm::StringRef S) {
  if (llvm::json::isUTF8(S))
    return S.str();
  return llvm::json::fixUTF8(S);
}

std::string pyverify::describeArgument(const CodeObject &C,
                                       const Instruction &I) {
  // The version's operand kind says what the argument indexes; Raw (an
  // argument that packs more, e.g. a name and a method bit) shows nothing.
  if (!I.Valid)
    return "";
  const OpcodeInfo &Info = I.info();
  uint32_t A = I.Arg;
  auto Name = [&](uint64_t Idx) -> std::string {
    return Idx < C.Names.size() ? C.Names[Idx] : "<bad name index>";
  };
  switch (Info.Operand) {
  case OperandKind::None:
  case OperandKind::Raw:
    return "";
  case OperandKind::Const:
    return A < C.Consts.size() ? C.Consts[A].repr() : "<bad const index>";
  case OperandKind::Name:
    return Name(A);
  case OperandKind::GlobalName:
    return (A & 1 ? "NULL + " : "") + Name(A >> 1);
  case OperandKind::Local:
  case OperandKind::Free:
    return A < C.LocalsPlusNames.size() ? C.LocalsPlusNames[A]
                                        : "<bad local index>";
  case OperandKind::Jump:
    return "to " + std::to_string(I.Target);
  case OperandKind::Compare:
    return A < std::size(CompareOps) ? CompareOps[A] : "<bad compare op>";
  case OperandKind::BinaryOp:
    return A < std::size(BinaryOps) ? BinaryOps[A] : "<bad binary op>";
  case OperandKind::MakeFunction: {
    std::string S;
    for (unsigned B = 0; B < 4; ++B)
      if (A & (1u << B))
        S += (S.empty() ? "" : ", ") + std::string(MakeFunctionFlags[B]);
    return S;
  }
  case OperandKind::FormatValue: {
    std::string S = Conversions[A & 3];
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

llvm::json::Object pyverify::listingToJSON(const DecodedCode &D,
                                           const ListingAnnotator *A) {
  const CodeObject &C = *D.Code;
  llvm::json::Array Insts;
  for (size_t Idx = 0; Idx < D.Insts.size(); ++Idx) {
    const Instruction &I = D.Insts[Idx];
    for (unsigned P = 0; P <= I.NumPrefixes; ++P) {
      bool IsPrefix = P < I.NumPrefixes;
      uint32_t Off = I.Start + 2 * P;
      Position Pos = D.positionAt(Off);
      llvm::json::Object O;
      O["offset"] = Off;
      if (IsPrefix) {
        O["opname"] = "EXTENDED_ARG";
        O["opcode"] = unsigned(extendedArgByte(I.Ver));
        O["arg"] = int64_t(I.prefixRowArg(P));
        O["target"] = nullptr;
      } else {
        O["opname"] = I.name();
        O["opcode"] = unsigned(I.OpByte);
        if (I.hasArg())
          O["arg"] = int64_t(I.Arg);
        else
          O["arg"] = nullptr;
        if (I.Target >= 0)
          O["target"] = I.Target;
        else
          O["target"] = nullptr;
      }
      O["line"] = optInt(Pos.Line);
      O["col"] = optInt(Pos.Col);
      O["end_line"] = optInt(Pos.EndLine);
      O["end_col"] = optInt(Pos.EndCol);
      if (A && A->Json)
        A->Json(Idx, O);
      Insts.push_back(std::move(O));
    }
  }
  llvm::json::Array Table;
  for (const ExceptionTableEntry &E : D.Table)
    Table.push_back(llvm::json::Object{{"start", E.Start},
                                       {"end", E.End},
                                       {"target", E.Target},
                                       {"depth", E.Depth},
                                       {"lasti", E.Lasti}});
  llvm::json::Object O{{"name", jsonSafe(C.Name)},
                       {"qualname", jsonSafe(C.QualName)},
                       {"firstlineno", C.FirstLineNo},
                       {"stacksize", C.StackSize},
                       {"flags", C.Flags},
                       {"instructions", std::move(Insts)},
                       {"exception_table", std::move(Table)}};
  if (A && A->CodeJson)
    A->CodeJson(O);
  return O;
}

static llvm::json::Object
codeTreeImpl(const CodeObject &C,
             llvm::function_ref<llvm::json::Object(const CodeObject &)> One,
             llvm::SmallPtrSetImpl<const CodeObject *> &Seen, unsigned Depth) {
  bool Duplicate = !Seen.insert(&C).second;
  if (Duplicate || Depth >= MaxJSONCodeDepth)
    return llvm::json::Object{{"name", jsonSafe(C.Name)},
                              {"qualname", jsonSafe(C.QualName)},
                              {"firstlineno", C.FirstLineNo},
                              {"stacksize", C.StackSize},
                              {"flags", C.Flags},
                              {Duplicate ? "duplicate" : "too_deep", true},
                              {"instructions", llvm::json::Array()},
                              {"exception_table", llvm::json::Array()},
                              {"children", llvm::json::Array()}};
  llvm::json::Object O = One(C);
  llvm::json::Array Kids;
  for (const CodeObject *K : C.children())
    Kids.push_back(codeTreeImpl(*K, One, Seen, Depth + 1));
  O["children"] = std::move(Kids);
  return O;
}

llvm::json::Object pyverify::codeTreeToJSON(
    const CodeObject &Root,
    llvm::function_ref<llvm::json::Object(const CodeObject &)> One) {
  llvm::SmallPtrSet<const CodeObject *, 16> Seen;
  return codeTreeImpl(Root, One, Seen, 0);
}

llvm::json::Object pyverify::codeTreeToJSON(
    const CodeObject &Root,
    llvm::function_ref<llvm::json::Object(const CodeObject &)> One,
    llvm::SmallPtrSetImpl<const CodeObject *> &Seen) {
  return codeTreeImpl(Root, One, Seen, 0);
}
