//===- AbstractDomain.h - The abstract-domain contract ----------*- C++ -*-===//
//
// Contract (SPARTA's AbstractDomain, Clang's DataflowLattice): a domain is a
// join-semilattice value type
//
//   * with no default constructor: bottom and the entry state are named by
//     the analysis, never conjured;
//   * join(Other): this := this ⊔ Other; returns true iff this changed;
//   * widen(Other): this := this ∇ Other, an upper bound of both that makes
//     every ascending chain finite; returns true iff this changed (domains of
//     finite height may widen by joining);
//   * isBottom(): the unreachable state;
//   * operator==: equality of the abstract values.
//
// Join must be commutative, associative and idempotent with bottom as
// identity; tests/unit/LatticeLaws.h checks any domain in a few lines.
//
// The domains and the fixpoint engine know nothing of Python.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_FIXPOINT_ABSTRACTDOMAIN_H
#define PYVERIFY_FIXPOINT_ABSTRACTDOMAIN_H

#include <concepts>
#include <type_traits>

namespace pyverify {

template <typename D>
concept AbstractDomain =
    std::copy_constructible<D> && !std::is_default_constructible_v<D> &&
    requires(D & A, const D &B) {
  { A.join(B) } -> std::same_as<bool>;
  { A.widen(B) } -> std::same_as<bool>;
  { B.isBottom() } -> std::same_as<bool>;
  { B == B } -> std::convertible_to<bool>;
};

} // namespace pyverify

#endif
