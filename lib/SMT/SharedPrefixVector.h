//===- SharedPrefixVector.h - Steps shared by a path's forks ----*- C++ -*-===//
//
// Contract (private to lib/SMT): a sequence that only grows at its end,
// whose copies share every element but the last few. Only the last element
// may be changed in place (back()); the others are immutable once a later
// element is appended. So copying one costs the same whatever its length:
// the explorers copy a path's steps at every fork (each branch outcome, each
// raising instruction), and a copy that had to copy every step so far made
// exploring a long code object quadratic in its length.
//
// Elements before the last TailLimit live in immutable chunks shared by
// reference count (each chunk knows its predecessor and the index of its
// first element); operator[] on an early element walks back over the chunks,
// which only the counterexample and the folding of the last step do, near
// the end. A SharedPrefixVector is used by one thread at a time, like the
// Side that holds it.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_LIB_SMT_SHAREDPREFIXVECTOR_H
#define PYVERIFY_LIB_SMT_SHAREDPREFIXVECTOR_H

#include <cassert>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace pyverify::smt::prover {

template <typename T> class SharedPrefixVector {
public:
  SharedPrefixVector() = default;
  /// Shares the chunks; the copy's tail has room for a full tail (the
  /// copy is appended to next).
  SharedPrefixVector(const SharedPrefixVector &O)
      : Prefix(O.Prefix), PrefixSize(O.PrefixSize) {
    Tail.reserve(TailLimit);
    Tail.insert(Tail.end(), O.Tail.begin(), O.Tail.end());
  }
  SharedPrefixVector(SharedPrefixVector &&O)
      : Prefix(std::move(O.Prefix)), PrefixSize(std::exchange(O.PrefixSize, 0)),
        Tail(std::move(O.Tail)) {
    O.Tail.clear();
  }
  SharedPrefixVector &operator=(const SharedPrefixVector &O) {
    if (this != &O)
      *this = SharedPrefixVector(O);
    return *this;
  }
  SharedPrefixVector &operator=(SharedPrefixVector &&O) {
    if (this != &O) {
      releasePrefix();
      Prefix = std::move(O.Prefix);
      PrefixSize = std::exchange(O.PrefixSize, 0);
      Tail = std::move(O.Tail);
      O.Tail.clear();
    }
    return *this;
  }
  ~SharedPrefixVector() { releasePrefix(); }

  size_t size() const { return PrefixSize + Tail.size(); }
  bool empty() const { return size() == 0; }

  /// The last element, the only one that may change.
  T &back() {
    assert(!Tail.empty() && "back() of an empty SharedPrefixVector");
    return Tail.back();
  }
  const T &back() const {
    assert(!Tail.empty() && "back() of an empty SharedPrefixVector");
    return Tail.back();
  }

  /// Appends \p V; every earlier element becomes immutable (and is shared
  /// by later copies once the tail is full).
  void push_back(T V) {
    if (Tail.size() >= TailLimit)
      freezeTail();
    Tail.push_back(std::move(V));
  }

  const T &operator[](size_t I) const {
    assert(I < size() && "index out of range");
    if (I >= PrefixSize)
      return Tail[I - PrefixSize];
    const Chunk *C = Prefix.get();
    while (I < C->Base)
      C = C->Prev.get();
    return C->Items[I - C->Base];
  }

  void clear() {
    releasePrefix();
    PrefixSize = 0;
    Tail.clear();
  }

  /// Every element, first to last.
  std::vector<T> toVector() const {
    std::vector<const Chunk *> Chunks;
    for (const Chunk *C = Prefix.get(); C; C = C->Prev.get())
      Chunks.push_back(C);
    std::vector<T> Out;
    Out.reserve(size());
    for (auto It = Chunks.rbegin(); It != Chunks.rend(); ++It)
      Out.insert(Out.end(), (*It)->Items.begin(), (*It)->Items.end());
    Out.insert(Out.end(), Tail.begin(), Tail.end());
    return Out;
  }

private:
  /// Elements [Base, Base + Items.size()), after those of Prev.
  struct Chunk {
    std::shared_ptr<const Chunk> Prev;
    size_t Base;
    std::vector<T> Items;
  };
  static constexpr size_t TailLimit = 8;

  void freezeTail() {
    auto C = std::make_shared<Chunk>();
    C->Prev = std::move(Prefix);
    C->Base = PrefixSize;
    C->Items = std::move(Tail);
    PrefixSize += C->Items.size();
    Prefix = std::move(C);
    Tail = std::vector<T>();
    Tail.reserve(TailLimit);
  }

  /// Drops this copy's hold on its chunks, one chunk at a time: releasing
  /// a long chain through the chunks' own destructors would recurse once
  /// per chunk.
  void releasePrefix() {
    std::shared_ptr<const Chunk> P = std::move(Prefix);
    while (P && P.use_count() == 1) {
      // The last holder: take its predecessor before it goes (every chunk
      // is made non-const by freezeTail).
      std::shared_ptr<const Chunk> Prev =
          std::move(const_cast<Chunk &>(*P).Prev);
      P = std::move(Prev);
    }
  }

  std::shared_ptr<const Chunk> Prefix;
  size_t PrefixSize = 0;
  std::vector<T> Tail;
};

} // namespace pyverify::smt::prover

#endif
