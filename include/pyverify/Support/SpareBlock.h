//===- SpareBlock.h - A thread's spare heap block, reused -------*- C++ -*-===//
//
// Contract: SpareBlock<Tag>::take(Bytes, Capacity) returns memory for at
// least Bytes bytes, aligned as operator new's, and sets Capacity to its
// size: the calling thread's spare block of kind Tag when it has one that
// large, else a new block of Bytes. give(P, Capacity) takes the block back:
// the thread keeps it as its spare (the larger of it and the spare it has,
// if neither exceeds MaxBytes) or frees it. A thread frees its spares when
// it ends. Memory only: what was in a block is not kept (take() returns it
// uninitialised).
//
// For the few blocks made and freed once per code object that glibc's
// per-thread cache does not hold (past 1,032 bytes: the decoded
// instructions, an analysis's state), whose malloc and free otherwise take
// glibc's slow path on every code object `import pyverify` verifies, one
// after another on the caller's thread. The CLI links tcmalloc, which
// caches such sizes itself.
//
// ThreadSpare<T, Tag> is the same for an object whose buffers the next
// code object reuses (a vector, a result made of vectors, a unique_ptr to
// storage): take() moves the calling thread's spare out (a default T when
// it has none: a moved-from vector is empty, so a nested take() gets an
// empty one), keep(V) makes V the thread's spare. Memory only: the taker
// replaces the contents; whether an object is worth keeping (a bound on a
// huge code object's buffers) is the keeper's call.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SUPPORT_SPAREBLOCK_H
#define PYVERIFY_SUPPORT_SPAREBLOCK_H

#include <cstddef>
#include <new>
#include <utility>

namespace pyverify {

template <typename Tag> class SpareBlock {
public:
  /// Larger blocks are never kept: a huge code object's would stay.
  static constexpr size_t MaxBytes = 256 * 1024;

  static void *take(size_t Bytes, size_t &Capacity) {
    Slot &S = slot();
    if (S.Mem && S.Capacity >= Bytes) {
      Capacity = S.Capacity;
      return std::exchange(S.Mem, nullptr);
    }
    Capacity = Bytes;
    return ::operator new(Bytes);
  }

  static void give(void *P, size_t Capacity) {
    if (!P)
      return;
    Slot &S = slot();
    if (Capacity > MaxBytes || (S.Mem && S.Capacity >= Capacity)) {
      ::operator delete(P);
      return;
    }
    ::operator delete(S.Mem);
    S.Mem = P;
    S.Capacity = Capacity;
  }

private:
  struct Slot {
    void *Mem = nullptr;
    size_t Capacity = 0;
    ~Slot() { ::operator delete(Mem); }
  };
  static Slot &slot() {
    thread_local Slot S;
    return S;
  }
};

template <typename T, typename Tag = T> class ThreadSpare {
public:
  static T take() { return std::move(slot()); }
  static void keep(T &&V) { slot() = std::move(V); }

private:
  static T &slot() {
    thread_local T S;
    return S;
  }
};

/// A std::unique_ptr deleter that gives its block back to SpareBlock<Tag>.
template <typename Tag> struct SpareBlockDeleter {
  size_t Capacity = 0;
  void operator()(void *P) const { SpareBlock<Tag>::give(P, Capacity); }
};

} // namespace pyverify

#endif
