//===- AnalyzeCommand.cpp - pyverify analyze ------------------------------===//
//
// pyverify analyze --print=stack-depth [--format=text|json] FILE...
//   The `dis` listing annotated with per-instruction facts of an analysis:
//   stack-depth adds the depth before each instruction and the maximum; in
//   JSON each CODE of the dis contract gains "max_depth": int|null and per
//   instruction "depth": int|null (null when unreachable).
//
//===----------------------------------------------------------------------===//

#include "CodeInputs.h"
#include "Commands.h"
#include "InputFiles.h"

#include "pyverify/Analysis/CodeAnalysis.h"
#include "pyverify/Bytecode/Listing.h"
#include "pyverify/CFG/CFG.h"
#include "pyverify/Check/StackChecks.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace pyverify;
using namespace llvm;

namespace pyverify::tool {

cl::SubCommand AnalyzeCmd("analyze",
                          "Print per-instruction facts of an analysis");

namespace {

enum class Format { Text, Json };
enum class PrintWhat { StackDepth, BlockStack, Contexts };

cl::list<std::string> AnalyzeInputs(cl::Positional, cl::ZeroOrMore,
                                    cl::desc("<file>..."), cl::sub(AnalyzeCmd));
cl::opt<PrintWhat>
    Print("print", cl::desc("What to print (required)"),
          cl::values(clEnumValN(PrintWhat::StackDepth, "stack-depth",
                                "operand-stack depth"),
                     clEnumValN(PrintWhat::BlockStack, "block-stack",
                                "active blocks (with, try, "
                                "...), outermost first"),
                     clEnumValN(PrintWhat::Contexts, "contexts",
                                "contexts active before each instruction "
                                "(enter offsets, entry order)")),
          cl::sub(AnalyzeCmd));
cl::opt<Format> AnalyzeFormat(
    "format", cl::desc("Output format"), cl::init(Format::Text),
    cl::values(clEnumValN(Format::Text, "text", "annotated listing"),
               clEnumValN(Format::Json, "json",
                          "the dis JSON contract plus "
                          "the analysis keys")),
    cl::sub(AnalyzeCmd));

cl::list<std::string> AnalyzeKeys(
    "keys", cl::CommaSeparated, cl::value_desc("key,..."),
    cl::desc("JSON: keep only these keys of each instruction row (the dis "
             "row keys and --print's key: depth, blocks or contexts)"),
    cl::sub(AnalyzeCmd));

cl::opt<bool> AnalyzeNoFastPath(
    "no-context-fast-path",
    cl::desc("Interpret code objects without contexts too (testing)"),
    cl::Hidden, cl::sub(AnalyzeCmd));

ContextBalanceOptions analyzeBalanceOptions() {
  ContextBalanceOptions BO;
  BO.SkipWithoutContexts = !AnalyzeNoFastPath;
  return BO;
}

/// One code object with whatever analyses apply to it.
struct Analyzed {
  CodeAnalysis A;
  const DecodedCode &D;
  const CFG *G = nullptr;
  const StackDepthResult *Depth = nullptr;
  const BlockStack *Blocks = nullptr;
  const ContextBalanceResult *Contexts = nullptr;
  std::string Why; ///< Why there is no analysis, if there is none.

  explicit Analyzed(const CodeObject &C)
      : A(C, analyzeBalanceOptions()), D(A.decoded()), G(A.cfg()) {
    if (!G) {
      Why = "not well-formed (run 'pyverify check')";
      return;
    }
    auto R = A.stackDepth();
    if (!R) {
      Why = toString(R.takeError());
      return;
    }
    Depth = &*R;
    Blocks = &cantFail(A.blockStack());
    auto Ctx = A.contexts();
    if (Ctx)
      Contexts = &*Ctx;
    else
      Why = toString(Ctx.takeError());
  }

  /// Offsets of the enter instructions of the contexts active before I.
  std::vector<uint32_t> activeAt(size_t I) const {
    std::vector<uint32_t> Out;
    if (Contexts)
      for (uint32_t C : Contexts->activeBefore(I))
        Out.push_back(D.Insts[C].Offset);
    return Out;
  }

  bool reachable(size_t I) const {
    return G && G->reachable().test(G->blockOf(uint32_t(I)));
  }
};

/// "[with@4 -> 64, try -> 90]": the block stack, outermost first.
std::string blocksText(const Analyzed &A, size_t I) {
  if (!A.Blocks)
    return "";
  if (!A.reachable(I))
    return "  ; unreachable";
  std::string S = "  ; [";
  bool First = true;
  for (const Block &B : A.Blocks->blocksAt(uint32_t(I))) {
    S += (First ? "" : ", ") + getBlockKindName(B.Kind).str();
    if (B.Enter)
      S += "@" + std::to_string(*B.Enter);
    S += " -> " + std::to_string(B.Handler);
    First = false;
  }
  return S + "]";
}

json::Value blocksJSON(const Analyzed &A, size_t I) {
  if (!A.Blocks || !A.reachable(I))
    return nullptr;
  json::Array Out;
  for (const Block &B : A.Blocks->blocksAt(uint32_t(I)))
    Out.push_back(json::Object{
        {"kind", getBlockKindName(B.Kind)},
        {"handler", B.Handler},
        {"enter", B.Enter ? json::Value(*B.Enter) : json::Value(nullptr)}});
  return Out;
}

/// The instruction-row key --print adds.
StringRef printKey() {
  switch (Print) {
  case PrintWhat::StackDepth:
    return "depth";
  case PrintWhat::BlockStack:
    return "blocks";
  case PrintWhat::Contexts:
    return "contexts";
  }
  llvm_unreachable("unknown --print");
}

/// The dis row keys --keys keeps (all without it) and whether it keeps
/// printKey(); set by runAnalyze.
unsigned RowKeys = AllRowKeys;
bool KeepPrintKey = true;

/// "offset, opname, ..., end_col".
std::string rowKeyNames() {
  std::string S;
  for (unsigned K = 0; K < NumRowKeys; ++K)
    S += (K ? ", " : "") + getRowKeyName(RowKey(K)).str();
  return S;
}

/// Reads --keys into RowKeys and KeepPrintKey; an error names a key that
/// is neither a row key nor printKey(), or --keys without JSON.
Error readKeys() {
  if (!AnalyzeKeys.getNumOccurrences())
    return Error::success();
  if (AnalyzeFormat != Format::Json)
    return createStringError(inconvertibleErrorCode(),
                             "--keys selects keys of the JSON output: give "
                             "--format=json");
  RowKeys = 0;
  KeepPrintKey = false;
  for (const std::string &K : AnalyzeKeys) {
    if (K == printKey())
      KeepPrintKey = true;
    else if (std::optional<RowKey> R = getRowKeyByName(K))
      RowKeys |= rowKeyBit(*R);
    else
      return createStringError(
          inconvertibleErrorCode(),
          formatv("--keys: '{0}' is not a key of an instruction row (the dis "
                  "row keys: {1}; and {2})",
                  K, rowKeyNames(), printKey()));
  }
  return Error::success();
}

json::Value depthJSON(const std::optional<int64_t> &V) {
  if (V)
    return *V;
  return nullptr;
}

void writeAnalyzedJSON(json::OStream &J, const CodeObject &C) {
  Analyzed A(C);
  ListingAnnotator Ann;
  auto Rows = [&](size_t I, json::Object &O) {
    if (!KeepPrintKey)
      return;
    if (Print == PrintWhat::Contexts) {
      if (!A.Contexts || !A.reachable(I)) {
        O["contexts"] = nullptr;
        return;
      }
      json::Array Arr;
      for (uint32_t Off : A.activeAt(I))
        Arr.push_back(Off);
      O["contexts"] = std::move(Arr);
      return;
    }
    if (Print == PrintWhat::StackDepth)
      O["depth"] =
          A.Depth ? depthJSON(A.Depth->Before[I]) : json::Value(nullptr);
    else
      O["blocks"] = blocksJSON(A, I);
  };
  auto Code = [&](json::Object &O) {
    if (Print == PrintWhat::StackDepth)
      O["max_depth"] = A.Depth ? json::Value(A.Depth->MaxDepth) : nullptr;
  };
  Ann.Json = Rows;
  Ann.CodeJson = Code;
  Ann.RowKeys = RowKeys;
  writeListingJSON(J, A.D, &Ann);
}

void analyzeText(const CodeObject &C) {
  Analyzed A(C);
  ListingAnnotator Ann;
  auto Text = [&](size_t I) -> std::string {
    if (Print == PrintWhat::BlockStack)
      return blocksText(A, I);
    if (Print == PrintWhat::Contexts) {
      if (!A.Contexts)
        return "";
      if (!A.reachable(I))
        return "  ; unreachable";
      std::string S = "  ; contexts [";
      bool First = true;
      for (uint32_t Off : A.activeAt(I)) {
        S += (First ? "" : ", ") + std::to_string(Off);
        First = false;
      }
      return S + "]";
    }
    if (!A.Depth)
      return "";
    std::optional<int64_t> B = A.Depth->Before[I];
    if (B)
      return formatv("  ; depth {0}", *B).str();
    return A.reachable(I) ? "  ; depth unknown (after a conflict or underflow)"
                          : "  ; unreachable";
  };
  auto Header = [&](raw_ostream &OS) {
    if (Print == PrintWhat::Contexts) {
      if (!A.Contexts)
        OS << "; no context analysis: " << A.Why << "\n";
      return;
    }
    if (Print == PrintWhat::BlockStack) {
      if (!A.Blocks)
        OS << "; no block-stack analysis: " << A.Why << "\n";
      return;
    }
    if (A.Depth)
      OS << "; max depth " << A.Depth->MaxDepth << " (co_stacksize "
         << C.StackSize << ")\n";
    else
      OS << "; no stack-depth analysis: " << A.Why << "\n";
  };
  Ann.Text = Text;
  Ann.Header = Header;
  printListing(outs(), A.D, &Ann);
}

} // namespace

int runAnalyze() {
  if (!Print.getNumOccurrences())
    return usageError("analyze", "give --print=stack-depth, "
                                 "--print=block-stack or --print=contexts");
  if (AnalyzeInputs.empty())
    return usageError("analyze", "no input (give files or directories)");
  if (Error E = readKeys())
    return usageError("analyze", toString(std::move(E)));
  Expected<InputVersions> Versions = versionsFromOptions();
  if (!Versions) {
    WithColor::error(errs(), "pyverify")
        << toString(Versions.takeError()) << "\n";
    return ExitUsage;
  }
  TargetWalk Walk;
  return forEachTarget(
      AnalyzeInputs,
      [&](const std::string &Path, const CodeTarget &T) {
        if (AnalyzeFormat == Format::Json)
          return Walk.printJsonRecord(Path, T, writeAnalyzedJSON);
        if (!T.Target.empty())
          outs() << targetHeader(Path, T) << "\n";
        bool First = true;
        Walk.visit(Path, T, [&](const CodeObject &C, unsigned) {
          if (!First)
            outs() << "\n";
          First = false;
          analyzeText(C);
        });
        if (!T.Target.empty())
          outs() << "\n";
      },
      *Versions);
}

} // namespace pyverify::tool
