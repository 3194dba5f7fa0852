//===- DepthDomain.h - The flat lattice of stack depths ---------*- C++ -*-===//
//
// Contract: DepthValue is the domain of the stack-depth analysis
// (StackDepth.h): Bottom (unreached) < every depth < Conflict (paths that
// reach the same point at different depths). It has finite height, so widen
// is join. It knows nothing of Python: the analysis decides which depth an
// instruction or an edge produces.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_DOMAIN_DEPTHDOMAIN_H
#define PYVERIFY_DOMAIN_DEPTHDOMAIN_H

#include "pyverify/Fixpoint/AbstractDomain.h"

#include <cstdint>

namespace pyverify {

/// Flat lattice of stack depths: Bottom < every depth < Conflict.
///
/// A Conflict keeps a *representative* depth -- the one the block had when
/// the conflict arose -- so that later passes still see concrete depths for
/// the code after a conflict (and a loop whose head conflicts is not mistaken
/// for dead code). The representative is an annotation, not part of the
/// abstract value: equality and the lattice laws ignore it.
class DepthValue {
public:
  static DepthValue bottom() { return DepthValue(Kind::Bottom, 0); }
  static DepthValue conflict(int64_t Representative = 0) {
    return DepthValue(Kind::Conflict, Representative);
  }
  static DepthValue of(int64_t D) { return DepthValue(Kind::Value, D); }

  bool isBottom() const { return K == Kind::Bottom; }
  bool isConflict() const { return K == Kind::Conflict; }
  bool isValue() const { return K == Kind::Value; }
  /// The depth (Value) or the representative depth (Conflict).
  int64_t value() const { return V; }

  bool join(const DepthValue &O) {
    if (O.K == Kind::Bottom || K == Kind::Conflict)
      return false;
    if (K == Kind::Bottom) {
      *this = O;
      return true;
    }
    if (O.K == Kind::Conflict) {
      *this = conflict(V);
      return true;
    }
    if (V == O.V)
      return false;
    *this = conflict(V);
    return true;
  }
  bool widen(const DepthValue &O) { return join(O); } // finite height
  bool operator==(const DepthValue &O) const {
    return K == O.K && (K != Kind::Value || V == O.V);
  }

private:
  enum class Kind : uint8_t { Bottom, Value, Conflict };
  DepthValue(Kind K, int64_t V) : K(K), V(V) {}
  Kind K;
  int64_t V;
};

static_assert(AbstractDomain<DepthValue>);

} // namespace pyverify

#endif
