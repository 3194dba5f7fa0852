//===- DisCommand.cpp - pyverify dis --------------------------------------===//
//
// pyverify dis [--format=text|json] [--fields] FILE...
// pyverify dis --list-opcodes [--python-version=3.11|3.12|3.13] [--format=json]
//
// Text: a listing per code object, recursively, like `python3.11 -m dis`.
// JSON: one line per top-level code object of each file:
//   {"file": "...", "target": null, "code": CODE}   (docs/json.md)
// A .pvb bundle gives every code object it holds, each labelled with its
// target (original, frame, resume:N): a "Bundle FILE, [target] (claims):"
// line before its listing, "target": "resume:0" in JSON.
// --fields adds to each CODE the raw code-object fields in a canonical,
// byte-exact form (hex for bytes and str) and the re-encoded exception table,
// so a test can compare them with marshal.loads.
//
//===----------------------------------------------------------------------===//

#include "CodeInputs.h"
#include "Commands.h"
#include "InputFiles.h"

#include "pyverify/Bytecode/CodeFile.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/Listing.h"
#include "pyverify/Bytecode/VersionOpcodes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <bit>
#include <cstring>

using namespace pyverify;
using namespace llvm;

namespace pyverify::tool {

cl::SubCommand DisCmd("dis", "Disassemble .pyc and marshal files");

namespace {

enum class Format { Text, Json };

cl::list<std::string> Inputs(cl::Positional, cl::ZeroOrMore,
                             cl::desc("<file or directory>..."),
                             cl::sub(DisCmd));
cl::opt<Format> OutputFormat(
    "format", cl::desc("Output format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "listing like python -m dis"),
               clEnumValN(Format::Json, "json", "the JSON contract")),
    cl::sub(DisCmd));
cl::opt<bool> WithFields("fields",
                         cl::desc("JSON: add raw code-object fields (hex)"),
                         cl::sub(DisCmd));

cl::opt<bool> ListOpcodes(
    "list-opcodes",
    cl::desc("List the base opcodes of --python-version (VersionOpcodes.h)"),
    cl::sub(DisCmd));

std::string hex(StringRef S) { return toHex(S, /*LowerCase=*/true); }

StringRef jumpKindName(JumpKind K) {
  switch (K) {
  case JumpKind::None:
    return "none";
  case JumpKind::Forward:
    return "forward";
  case JumpKind::ForwardCond:
    return "forward-cond";
  case JumpKind::Backward:
    return "backward";
  case JumpKind::BackwardCond:
    return "backward-cond";
  }
  return "none";
}

/// The arguments --list-opcodes evaluates each stack effect at.
constexpr uint32_t EffectArgs[] = {0,
                                   1,
                                   2,
                                   3,
                                   4,
                                   5,
                                   6,
                                   7,
                                   8,
                                   15,
                                   16,
                                   17,
                                   255,
                                   256,
                                   257,
                                   65535,
                                   65536,
                                   1u << 24,
                                   (1u << 24) + 3,
                                   1u << 30};

/// `dis --list-opcodes`: \p V's table, in opcode order.
int listOpcodes(PythonVersion V) {
  json::Array All;
  for (unsigned B = 0; B < 256; ++B) {
    const VersionOpcodeInfo *I = getVersionOpcodeInfo(V, uint8_t(B));
    if (!I)
      continue;
    if (OutputFormat == Format::Text) {
      outs() << formatv("{0,3} {1,-32} caches {2}{3}{4}{5}\n", B, I->Name,
                        I->Caches, I->HasArg ? ", arg" : "",
                        I->isJump() ? ", jump " + jumpKindName(I->Jump).str()
                                    : "",
                        I->Terminator ? ", terminator" : "");
      continue;
    }
    json::Array Effects;
    for (uint32_t A : I->HasArg ? ArrayRef<uint32_t>(EffectArgs)
                                : ArrayRef<uint32_t>(EffectArgs).take_front())
      Effects.push_back(
          json::Array{A, I->stackEffect(A, false), I->stackEffect(A, true)});
    All.push_back(json::Object{{"name", I->Name},
                               {"number", B},
                               {"caches", I->Caches},
                               {"has_arg", I->HasArg},
                               {"jump", jumpKindName(I->Jump)},
                               {"terminator", I->Terminator},
                               {"effects", std::move(Effects)}});
  }
  if (OutputFormat == Format::Json)
    outs() << formatv("{0:2}", json::Value(json::Object{
                                   {"python_version", pythonVersionName(V)},
                                   {"opcodes", std::move(All)}}))
           << "\n";
  return 0;
}

/// \p V as JSON: ["kind", payload]. Values nested MaxMarshalDepth levels
/// deep (back-references nest without marshal's cap) are ["too_deep"]: the
/// JSON is built, printed and freed by recursion, one level per level.
json::Value canonicalValue(const Value &V, unsigned Depth = 0) {
  using json::Array;
  if (Depth >= MaxMarshalDepth)
    return Array{"too_deep"};
  struct Visitor {
    unsigned Depth;
    json::Value operator()(const NoneValue &) { return Array{"None"}; }
    json::Value operator()(const EllipsisValue &) { return Array{"Ellipsis"}; }
    json::Value operator()(const StopIterationValue &) {
      return Array{"StopIteration"};
    }
    json::Value operator()(bool B) { return Array{"bool", B}; }
    json::Value operator()(int64_t I) {
      return Array{"int", std::to_string(I)};
    }
    json::Value operator()(const BigInt &B) {
      return Array{"int", B.toDecimal()};
    }
    json::Value operator()(double D) {
      char Buf[8];
      support::endian::write64le(Buf, std::bit_cast<uint64_t>(D));
      return Array{"float", hex(StringRef(Buf, 8))};
    }
    json::Value operator()(const std::complex<double> &C) {
      char Buf[16];
      support::endian::write64le(Buf, std::bit_cast<uint64_t>(C.real()));
      support::endian::write64le(Buf + 8, std::bit_cast<uint64_t>(C.imag()));
      return Array{"complex", hex(StringRef(Buf, 16))};
    }
    json::Value operator()(const BytesValue &B) {
      return Array{"bytes", hex(*B.Data)};
    }
    json::Value operator()(const StrValue &S) {
      return Array{"str", hex(*S.Utf8)};
    }
    json::Value operator()(const SequenceValue &S) {
      Array Items;
      for (const Value &X : *S.Items)
        Items.push_back(canonicalValue(X, Depth + 1));
      const char *Kind = S.Kind == SequenceKind::Tuple       ? "tuple"
                         : S.Kind == SequenceKind::List      ? "list"
                         : S.Kind == SequenceKind::Set       ? "set"
                         : S.Kind == SequenceKind::FrozenSet ? "frozenset"
                                                             : "slice";
      return Array{Kind, std::move(Items)};
    }
    json::Value operator()(const DictValue &D) {
      Array Items;
      for (const auto &KV : *D.Items)
        Items.push_back(Array{canonicalValue(KV.first, Depth + 1),
                              canonicalValue(KV.second, Depth + 1)});
      return Array{"dict", std::move(Items)};
    }
    json::Value operator()(const CodeValue &C) {
      return Array{"code", hex(C.Code->QualName)};
    }
    json::Value operator()(const OpaqueValue &O) {
      return Array{"opaque", *O.TypeName, *O.Repr};
    }
  };
  return std::visit(Visitor{Depth}, V.get());
}

json::Object rawFields(const DecodedCode &D) {
  const CodeObject &C = *D.Code;
  json::Array Consts, Names, LpNames;
  for (const Value &V : C.Consts)
    Consts.push_back(canonicalValue(V));
  for (llvm::StringRef N : C.Names)
    Names.push_back(hex(N));
  for (llvm::StringRef N : C.LocalsPlusNames)
    LpNames.push_back(hex(N));
  json::Object F{{"argcount", C.ArgCount},
                 {"posonlyargcount", C.PosOnlyArgCount},
                 {"kwonlyargcount", C.KwOnlyArgCount},
                 {"stacksize", C.StackSize},
                 {"flags", C.Flags},
                 {"code", hex(C.Code)},
                 {"consts", std::move(Consts)},
                 {"names", std::move(Names)},
                 {"localsplusnames", std::move(LpNames)},
                 {"localspluskinds", hex(C.LocalsPlusKinds)},
                 {"filename", hex(C.Filename)},
                 {"name", hex(C.Name)},
                 {"qualname", hex(C.QualName)},
                 {"firstlineno", C.FirstLineNo},
                 {"linetable", hex(C.LineTable)},
                 {"exceptiontable", hex(C.ExceptionTable)},
                 {"nlocals", int64_t(C.getNumLocals())}};
  if (D.TableDecoded)
    F["exceptiontable_reencoded"] = hex(encodeExceptionTable(D.Table));
  else
    F["exceptiontable_reencoded"] = nullptr;
  json::Array Findings;
  for (const Finding &Fd : D.Findings)
    Findings.push_back(json::Object{{"check", getCheckName(Fd.Check)},
                                    {"offset", Fd.Offset},
                                    {"message", jsonSafe(Fd.Message)}});
  F["findings"] = std::move(Findings);
  return F;
}

/// One code object's JSON: its listing, with "fields" under --fields.
void writeCodeJSON(json::OStream &J, const CodeObject &C) {
  DecodedCode D = DecodedCode::decode(C);
  if (!WithFields)
    return writeListingJSON(J, D);
  json::Value Fields = rawFields(D);
  JSONMember Extra[] = {{"fields", nullptr, &Fields}};
  writeListingJSON(J, D, nullptr, Extra);
}

} // namespace

int runDis() {
  Expected<InputVersions> V = versionsFromOptions();
  if (!V) {
    WithColor::error(errs(), "pyverify") << toString(V.takeError()) << "\n";
    return 2;
  }
  if (ListOpcodes)
    return listOpcodes(V->Marshal);
  if (Inputs.empty()) {
    WithColor::error(errs(), "pyverify")
        << "dis: no input (give files or directories, or --list-opcodes)\n";
    return 2;
  }
  TargetWalk Walk;
  return forEachTarget(
      Inputs,
      [&](const std::string &Path, const CodeTarget &T) {
        if (OutputFormat == Format::Json)
          return Walk.printJsonRecord(Path, T, writeCodeJSON);
        bool First = true;
        if (!T.Target.empty())
          outs() << targetHeader(Path, T) << "\n";
        Walk.visit(Path, T, [&](const CodeObject &C, unsigned) {
          if (!First)
            outs() << "\n";
          First = false;
          printListing(outs(), DecodedCode::decode(C));
        });
        if (!T.Target.empty())
          outs() << "\n";
      },
      *V);
}

} // namespace pyverify::tool
