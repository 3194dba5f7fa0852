//===- fuzz_marshal.cpp - Fuzz the marshal/.pyc reader and everything after
//===//
//
// Input: any bytes, read both as a raw marshal stream (readMarshal) and as a
// .pyc file (readPyc); the seeds are real .pyc files and marshal.dumps() of
// stdlib code objects. Every code object that loads goes through what
// `pyverify dis` does with it: DecodedCode::decode(), the text listing and
// the JSON listing, walking nested code objects like forEachCodeObject().
//
// Checks: errors name a byte offset; DecodedCode keeps its contract (positions
// per code unit or none, TableDecoded matches the findings); the JSON listing
// serialises to text that parses back to the same value.
//
// Known issues, kept out of the way so the fuzzer looks for new ones:
// marshal back-references let a few hundred bytes describe a DAG whose tree
// expansion is exponential -- nested code objects sharing children (every
// forEachCodeObject walk and `pyverify dis` visits each path) and tuples
// sharing items (Value::repr() prints each path). When the code walk would
// make more than MaxCodeVisits visits it visits each distinct code object
// once instead, and constants expanding to more than MaxReprNodes nodes are
// not printed. Set PYVERIFY_FUZZ_STRICT=1 to run the plain
// walk anyway (e.g. to check a fix against the reproducers).
//
//===----------------------------------------------------------------------===//

#include "FuzzCheck.h"

#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Bytecode/Listing.h"
#include "pyverify/Bytecode/Marshal.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

using namespace pyverify;

namespace {

constexpr size_t MaxParseBackBytes = 32 * 1024;
constexpr uint64_t MaxReprNodes = 200000;
constexpr uint64_t MaxCodeVisits = 4096;

bool strictMode() {
  static const bool Strict = [] {
    const char *E = std::getenv("PYVERIFY_FUZZ_STRICT");
    return E && *E && *E != '0';
  }();
  return Strict;
}

uint64_t saturatingAdd(uint64_t A, uint64_t B) {
  return A + B < A ? UINT64_MAX : A + B;
}

/// Post-order sizes of a DAG's tree expansion, memoised per node, from an
/// explicit stack (back-references nest values and code objects far deeper
/// than a recursion could go). \p Key gives a node's memo key (null for a
/// leaf, size 1) and \p ForEachChild its children.
template <typename Node, typename KeyFn, typename ChildFn>
uint64_t treeSize(const Node &Root,
                  llvm::DenseMap<const void *, uint64_t> &Memo, KeyFn Key,
                  ChildFn ForEachChild) {
  auto SizeOf = [&](const Node &N) -> uint64_t {
    const void *K = Key(N);
    return K ? Memo.lookup(K) : 1;
  };
  llvm::SmallVector<std::pair<const Node *, bool>, 16> Work{{&Root, false}};
  while (!Work.empty()) {
    auto [N, Expanded] = Work.pop_back_val();
    const void *K = Key(*N);
    if (!K || Memo.count(K))
      continue;
    if (!Expanded) {
      Work.push_back({N, true});
      ForEachChild(*N, [&](const Node &C) { Work.push_back({&C, false}); });
      continue;
    }
    uint64_t Size = 1;
    ForEachChild(*N,
                 [&](const Node &C) { Size = saturatingAdd(Size, SizeOf(C)); });
    Memo[K] = Size;
  }
  return SizeOf(Root);
}

/// Nodes in the tree expansion of a value's DAG (what repr() walks), with
/// shared payloads counted once per path but computed once.
uint64_t valueTreeSize(const Value &V,
                       llvm::DenseMap<const void *, uint64_t> &Memo) {
  auto Key = [](const Value &X) -> const void * {
    if (auto *S = X.getIf<SequenceValue>())
      return S->Items.get();
    if (auto *D = X.getIf<DictValue>())
      return D->Items.get();
    return nullptr; // Leaves; code objects print as one line.
  };
  auto ForEachChild = [](const Value &X, auto Visit) {
    if (auto *S = X.getIf<SequenceValue>())
      for (const Value &Item : *S->Items)
        Visit(Item);
    else if (auto *D = X.getIf<DictValue>())
      for (const auto &KV : *D->Items) {
        Visit(KV.first);
        Visit(KV.second);
      }
  };
  return treeSize(V, Memo, Key, ForEachChild);
}

/// Code objects forEachCodeObject() visits from \p C (paths, not objects).
uint64_t codeTreeSize(const CodeObject &C,
                      llvm::DenseMap<const void *, uint64_t> &Memo) {
  auto Key = [](const CodeObject &X) -> const void * { return &X; };
  auto ForEachChild = [](const CodeObject &X, auto Visit) {
    for (const CodeObject *K : X.children())
      Visit(*K);
  };
  return treeSize(C, Memo, Key, ForEachChild);
}

bool constsAreSmall(const CodeObject &C) {
  if (strictMode())
    return true;
  llvm::DenseMap<const void *, uint64_t> Memo;
  uint64_t N = 0;
  for (const Value &V : C.Consts)
    N = saturatingAdd(N, valueTreeSize(V, Memo));
  return N <= MaxReprNodes;
}

void checkError(llvm::Error E) {
  std::string Msg = llvm::toString(std::move(E));
  FUZZ_CHECK(llvm::StringRef(Msg).startswith("at byte "),
             "error without a byte offset: %s", Msg.c_str());
}

void exerciseCode(const CodeObject &C) {
  DecodedCode D = DecodedCode::decode(C);
  FUZZ_CHECK(D.Code == &C, "DecodedCode does not point at its code object");
  FUZZ_CHECK(D.Insts.codeSize() == C.Code.size() / 2 * 2, "code size %u of %zu",
             D.Insts.codeSize(), C.Code.size());
  FUZZ_CHECK(D.positions().empty() || D.positions().size() == C.Code.size() / 2,
             "%zu positions for %zu code units", D.positions().size(),
             C.Code.size() / 2);
  bool TableError = false, PositionsError = false, AnyError = false;
  for (const Finding &F : D.Findings) {
    TableError |= F.Check == CheckId::ExceptionTableDecode;
    PositionsError |= F.Check == CheckId::LocationTableDecode;
    // A broken location table leaves the code well-formed (DecodedCode.h).
    AnyError |=
        F.Sev == Severity::Error && F.Check != CheckId::LocationTableDecode;
  }
  FUZZ_CHECK(D.TableDecoded != TableError, "TableDecoded %d, decode error %d",
             int(D.TableDecoded), int(TableError));
  FUZZ_CHECK(D.TableDecoded || D.Table.empty(), "undecoded table has entries");
  if (C.Code.size() >= 2)
    FUZZ_CHECK(D.positions().empty() == PositionsError,
               "positions empty %d, decode error %d",
               int(D.positions().empty()), int(PositionsError));
  FUZZ_CHECK(D.isWellFormed() == !AnyError, "isWellFormed() disagrees");
  for (const Instruction &I : D.Insts.instructions())
    (void)D.positionAt(I.Offset);

  // Text listing, and the repr of every constant (what --fields shows).
  if (constsAreSmall(C)) {
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    printListing(OS, D);
    for (const Value &V : C.Consts)
      (void)V.repr(C.Version);
  }
  (void)C.getNumLocals();
  (void)C.getVarNames();
  (void)C.getCellVars();
  (void)C.getFreeVars();

  // JSON listing (streamed, as dis writes it): must be valid JSON that
  // llvm::json prints back to the same text (its keys in llvm::json's
  // order). Parsing back costs more than everything else together, so big
  // listings (whole seed modules) are only written; mutants are mostly
  // small.
  std::string Out;
  {
    llvm::raw_string_ostream JS(Out);
    llvm::json::OStream J(JS);
    J.object([&] { writeListingJSON(J, D); });
  }
  if (Out.size() > MaxParseBackBytes)
    return;
  auto Back = llvm::json::parse(Out);
  if (!Back) {
    std::string Msg = llvm::toString(Back.takeError());
    FUZZ_CHECK(false, "listing JSON does not parse: %s", Msg.c_str());
  }
  std::string Again;
  llvm::raw_string_ostream(Again) << *Back;
  FUZZ_CHECK(Again == Out, "listing JSON changes when parsed back");
}

void exerciseRoot(const CodeObject &Root) {
  llvm::DenseMap<const void *, uint64_t> Memo;
  if (strictMode() || codeTreeSize(Root, Memo) <= MaxCodeVisits) {
    forEachCodeObject(Root,
                      [](const CodeObject &C, unsigned) { exerciseCode(C); });
    return;
  }
  // Known issue (see the top of the file): each distinct code object once.
  llvm::DenseSet<const CodeObject *> Seen;
  llvm::SmallVector<const CodeObject *, 16> Work{&Root};
  while (!Work.empty()) {
    const CodeObject *C = Work.pop_back_val();
    if (!Seen.insert(C).second)
      continue;
    exerciseCode(*C);
    for (const CodeObject *K : C->children())
      Work.push_back(K);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);

  if (auto V = readMarshal(Bytes)) {
    for (const auto &Root : collectTopLevelCode(*V))
      exerciseRoot(*Root);
    llvm::DenseMap<const void *, uint64_t> Memo;
    // A value's repr must work whatever it holds, in every version (each
    // has its own table of what a str's repr escapes): one version per
    // input, picked by its size, so that every table is exercised without
    // printing each value five times.
    if (strictMode() || valueTreeSize(*V, Memo) <= MaxReprNodes)
      (void)V->repr(AllPythonVersions[Bytes.size() % NumPythonVersions]);
  } else {
    checkError(V.takeError());
  }

  if (auto Pyc = readPyc(Bytes)) {
    FUZZ_CHECK(Pyc->Code != nullptr, "readPyc succeeded without code");
    FUZZ_CHECK(Pyc->Header.Magic == PycMagic311 && Pyc->Header.Flags <= 3,
               "bad header accepted");
    exerciseRoot(*Pyc->Code);
  } else {
    checkError(Pyc.takeError());
  }
  return 0;
}
