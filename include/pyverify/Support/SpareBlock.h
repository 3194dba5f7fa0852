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
// threadObject<T, Owner>() is the thread's one T for Owner (both keep theirs
// there): made on the thread's first call, destroyed when the thread ends,
// found with one thread-local lookup.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SUPPORT_SPAREBLOCK_H
#define PYVERIFY_SUPPORT_SPAREBLOCK_H

#include "llvm/Support/Compiler.h"

#include <cstddef>
#include <new>
#include <utility>

namespace pyverify {

/// The calling thread's \p T of kind \p Owner, made on the thread's first
/// call and destroyed when the thread ends. One thread-local lookup per
/// call: the pointer is constant-initialised and trivially destructible,
/// so it needs no guard, where a thread_local T with a destructor takes a
/// second lookup, for its guard, on every use. In a shared library (the
/// Python module) each lookup is a call to __tls_get_addr, about 11
/// instructions: 29 of them per verify() call before, 11 now.
template <typename T, typename Owner> T &threadObject() {
  static thread_local T *Object = nullptr;
  if (LLVM_LIKELY(Object))
    return *Object;
  thread_local T Owned;
  Object = &Owned;
  return Owned;
}

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
  static Slot &slot() { return threadObject<Slot, SpareBlock>(); }
};

template <typename T, typename Tag = T> class ThreadSpare {
public:
  static T take() { return std::move(slot()); }
  static void keep(T &&V) { slot() = std::move(V); }

private:
  static T &slot() { return threadObject<T, ThreadSpare>(); }
};

/// A std::unique_ptr deleter that gives its block back to SpareBlock<Tag>.
template <typename Tag> struct SpareBlockDeleter {
  size_t Capacity = 0;
  void operator()(void *P) const { SpareBlock<Tag>::give(P, Capacity); }
};

} // namespace pyverify

#endif
