//===- MustMayDomain.h - Sets that hold on every path / some path -*- C++
//-*-===//
//
// Contract: MustMaySet is the domain of a forward "definitely / possibly"
// analysis over a fixed universe of N elements (which locals are assigned
// on every path to a point, and on some path): Must joins by intersection,
// May by union, and Bottom (unreached) is the identity of both. Must is a
// subset of May in every state a transfer builds (not enforced: the domain
// only joins). Finite height, so widen is join. It knows nothing of Python.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_DOMAIN_MUSTMAYDOMAIN_H
#define PYVERIFY_DOMAIN_MUSTMAYDOMAIN_H

#include "pyverify/Fixpoint/AbstractDomain.h"

#include "llvm/ADT/BitVector.h"

namespace pyverify {

class MustMaySet {
public:
  static MustMaySet bottom(unsigned N) { return MustMaySet(N, true); }
  /// A reached state with the given sets (both of the universe's size).
  static MustMaySet of(llvm::BitVector Must, llvm::BitVector May) {
    MustMaySet S(Must.size(), false);
    S.Must = std::move(Must);
    S.May = std::move(May);
    return S;
  }

  bool isBottom() const { return Bottom; }
  const llvm::BitVector &must() const { return Must; }
  const llvm::BitVector &may() const { return May; }
  /// Element \p I holds on every path (set) or on none (reset) from here.
  void set(unsigned I) {
    Must.set(I);
    May.set(I);
  }
  /// Element \p I holds on some paths only from here (a store that may
  /// store nothing).
  void setMaybe(unsigned I) {
    Must.reset(I);
    May.set(I);
  }
  /// Element \p I holds on no path from here (May keeps what held before:
  /// it is about the paths, not the point).
  void resetMust(unsigned I) { Must.reset(I); }

  bool join(const MustMaySet &O) {
    if (O.Bottom)
      return false;
    if (Bottom) {
      *this = O;
      return true;
    }
    llvm::BitVector NewMust = Must, NewMay = May;
    NewMust &= O.Must;
    NewMay |= O.May;
    bool Changed = NewMust != Must || NewMay != May;
    Must = std::move(NewMust);
    May = std::move(NewMay);
    return Changed;
  }
  bool widen(const MustMaySet &O) { return join(O); } // finite height
  bool operator==(const MustMaySet &O) const {
    return Bottom == O.Bottom && (Bottom || (Must == O.Must && May == O.May));
  }

private:
  MustMaySet(unsigned N, bool Bottom) : Bottom(Bottom), Must(N), May(N) {}
  bool Bottom;
  llvm::BitVector Must, May;
};

} // namespace pyverify

#endif
