//===- CodeAnalysis.cpp - The analyses of one code object, once -----------===//

#include "pyverify/Analysis/CodeAnalysis.h"
#include "pyverify/Support/SpareBlock.h"

#include <cstddef>
#include <optional>
#include <string>

using namespace pyverify;

namespace {

/// A pass's result once asked for: its value, or why there is none.
template <typename T> struct Memo {
  bool Done = false;
  std::optional<T> Value;
  std::string Error;

  /// Runs \p Compute (returning an llvm::Expected<T>) the first time.
  template <typename Fn> void fill(Fn &&Compute) {
    if (Done)
      return;
    Done = true;
    auto R = Compute();
    if (R)
      Value.emplace(std::move(*R));
    else
      Error = llvm::toString(R.takeError());
  }

  llvm::Expected<const T &> get() const {
    if (Value)
      return *Value;
    return llvm::make_error<llvm::StringError>(Error,
                                               llvm::inconvertibleErrorCode());
  }
};

} // namespace

/// Every member has an initialiser: the constructors default-initialise it.
struct CodeAnalysis::State final {
  const CodeObject *Code = nullptr;
  ContextBalanceOptions Opts;
  const DecodedCode *D = nullptr; ///< Borrowed, or OwnDecoded once decoded.
  std::optional<DecodedCode> OwnDecoded;
  bool CFGDone = false;
  std::optional<CFG> G;
  Memo<StackDepthResult> Depth;
  Memo<BlockStack> Blocks;
  Memo<ContextBalanceResult> Contexts;

  const DecodedCode &decoded() {
    if (!D)
      D = &OwnDecoded.emplace(DecodedCode::decode(*Code));
    return *D;
  }
  const CFG *cfg() {
    if (!CFGDone) {
      CFGDone = true;
      if (decoded().isWellFormed())
        G.emplace(CFG::build(*D, SpareCFGStorage::take()));
    }
    return G ? &*G : nullptr;
  }

  /// From the thread's spare (SpareBlock.h): code objects are analysed
  /// one after another, and a block this size (about 1.2 KB) is past
  /// glibc's per-thread cache, so each malloc and free took its slow path
  /// (measured in `import pyverify`'s verify(): 440 Ir to allocate, about
  /// as much to free, of some 23,000 for a median code object).
  static void *operator new(size_t N) {
    size_t Capacity;
    return SpareBlock<State>::take(N, Capacity);
  }
  static void operator delete(void *P, size_t N) {
    SpareBlock<State>::give(P, N);
  }

  /// The thread's CFG storage and depth result of the code object
  /// analysed last, whose buffers the next one takes (CFG::build's and
  /// computeStackDepth's Storage): they are allocated once per thread, not
  /// once per code object.
  using SpareCFGStorage = ThreadSpare<std::unique_ptr<CFGStorage>>;
  using SpareDepth = ThreadSpare<StackDepthResult>;
  ~State() {
    // A huge code object's arrays are freed, not kept.
    constexpr size_t MaxKeptInsts = 32 * 1024;
    if (G) {
      std::unique_ptr<CFGStorage> Storage = std::move(*G).releaseStorage();
      if (Storage && Storage->InstToBlock.capacity() <= MaxKeptInsts)
        SpareCFGStorage::keep(std::move(Storage));
    }
    if (Depth.Value && Depth.Value->Before.capacity() <= MaxKeptInsts)
      SpareDepth::keep(std::move(*Depth.Value));
  }
};

// `new State`, not std::make_unique<State>(): value-initialising the
// aggregate would zero all of it (the memos and optionals: about 1.2 KB)
// before its members' own initialisers run, once per code object. Default
// initialisation is enough because every member of State has an
// initialiser (a new one needs one too).
CodeAnalysis::CodeAnalysis(const CodeObject &C,
                           const ContextBalanceOptions &Opts)
    : S(new State) {
  S->Code = &C;
  S->Opts = Opts;
}

CodeAnalysis::CodeAnalysis(const DecodedCode &D,
                           const ContextBalanceOptions &Opts)
    : S(new State) {
  S->Code = D.Code;
  S->Opts = Opts;
  S->D = &D;
}

CodeAnalysis::CodeAnalysis(CodeAnalysis &&) = default;
CodeAnalysis &CodeAnalysis::operator=(CodeAnalysis &&) = default;
CodeAnalysis::~CodeAnalysis() = default;

const CodeObject &CodeAnalysis::code() const { return *S->Code; }

const ContextBalanceOptions &CodeAnalysis::contextOptions() const {
  return S->Opts;
}

const DecodedCode &CodeAnalysis::decoded() const { return S->decoded(); }

const CFG *CodeAnalysis::cfg() const { return S->cfg(); }

llvm::Expected<const StackDepthResult &> CodeAnalysis::stackDepth() const {
  S->Depth.fill([&]() -> llvm::Expected<StackDepthResult> {
    const CFG *G = S->cfg();
    if (!G)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "the code object is not well-formed");
    return computeStackDepth(*G, DepthSolver::Auto, State::SpareDepth::take());
  });
  return S->Depth.get();
}

llvm::Expected<const BlockStack &> CodeAnalysis::blockStack() const {
  S->Blocks.fill([&]() -> llvm::Expected<BlockStack> {
    auto Depth = stackDepth();
    if (!Depth)
      return Depth.takeError();
    return BlockStack::compute(*S->G, *Depth);
  });
  return S->Blocks.get();
}

llvm::Expected<const ContextBalanceResult &> CodeAnalysis::contexts() const {
  S->Contexts.fill([&]() -> llvm::Expected<ContextBalanceResult> {
    auto Blocks = blockStack();
    if (!Blocks)
      return Blocks.takeError();
    return checkContextBalance(*S->G, cantFail(stackDepth()), *Blocks, S->Opts);
  });
  return S->Contexts.get();
}
