//===- ContextDomain.cpp - The context-balance abstract state -------------===//
//
// The join of ContextDomain.h's contract: rename, then merge pointwise, then
// recompute the canonical entry order when the active set or the order
// pairs changed.
//
//===----------------------------------------------------------------------===//

#include "pyverify/Domain/ContextDomain.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <optional>

using namespace pyverify;

bool ContextState::join(const ContextState &Other) {
  if (Other.isBottom() || isTop())
    return false;
  if (isBottom()) {
    *this = Other;
    return true;
  }
  if (Other.isTop() || Stack.size() != Other.Stack.size()) {
    K = Kind::Top; // keep this content as the representative
    return true;
  }
  // Equal values (a revisit that brings nothing new, consecutive raising
  // instructions unwinding alike): every step below would find nothing to
  // rename, merge or reorder, so the answer is known (a hot path).
  if (*this == Other)
    return false;
  bool Changed = false;
  // Copy the other state only when a slot needs renaming (a hot path).
  std::optional<ContextState> Renamed;
  Renaming R = sameSlotRenaming(*this, Other);
  if (!R.empty()) {
    Changed |= rename(R);
    Renamed = Other;
    Renamed->rename(R);
  }
  const ContextState &O = Renamed ? *Renamed : Other;
  Changed |= joinStack(O);
  Changed |= joinLocals(O);
  Changed |= joinActive(O);
  return Changed;
}

ContextState::Renaming ContextState::sameSlotRenaming(const ContextState &A,
                                                      const ContextState &B) {
  // Union-find over the ids that share a slot, each class rooted at its
  // smallest id: a union links the larger root to the smaller.
  Renaming Parent; // (id, parent) for every id that is not a root
  auto Find = [&](uint32_t X) {
    for (;;) {
      auto It =
          llvm::find_if(Parent, [&](const auto &P) { return P.first == X; });
      if (It == Parent.end())
        return X;
      X = It->second;
    }
  };
  for (size_t I = 0; I < A.Stack.size(); ++I) {
    uint32_t X = A.Stack[I].context(), Y = B.Stack[I].context();
    if (X == ContextSlot::NoContext || Y == ContextSlot::NoContext || X == Y)
      continue;
    uint32_t RX = Find(X), RY = Find(Y);
    if (RX != RY)
      Parent.push_back({std::max(RX, RY), std::min(RX, RY)});
  }
  for (auto &P : Parent)
    P.second = Find(P.second);
  return Parent;
}

bool ContextState::rename(const Renaming &R) {
  bool Changed = false;
  auto Apply = [&](uint32_t &X) {
    for (const auto &[From, To] : R)
      if (From == X) {
        X = To;
        Changed = true;
        return;
      }
  };
  for (ContextSlot &X : Stack)
    if (X.context() != ContextSlot::NoContext || X.T == SlotTag::ExitSelf)
      Apply(X.Id);
  for (ContextLocal &L : Locals)
    Apply(L.Ctx);
  for (ActiveContext &A : Active)
    Apply(A.Ctx);
  for (auto &[A, B] : Order) {
    Apply(A);
    Apply(B);
  }
  if (!Changed)
    return false;
  // Two active contexts renamed into one: definite if either was.
  for (size_t I = 0; I < Active.size(); ++I)
    for (size_t J = Active.size(); J-- > I + 1;)
      if (Active[J].Ctx == Active[I].Ctx) {
        Active[I].Maybe &= Active[J].Maybe;
        Active.erase(Active.begin() + J);
      }
  llvm::erase_if(Order, [](const auto &P) { return P.first == P.second; });
  llvm::sort(Order);
  Order.erase(std::unique(Order.begin(), Order.end()), Order.end());
  orderActive();
  return true;
}

bool ContextState::joinStack(const ContextState &O) {
  bool Changed = false;
  for (size_t I = 0; I < Stack.size(); ++I) {
    if (Stack[I] == O.Stack[I])
      continue;
    // Two withs' selves: a self of one of them (3.14's exit slots).
    if (Stack[I].T == SlotTag::ExitSelf && O.Stack[I].T == SlotTag::ExitSelf) {
      if (Stack[I].Id != ContextSlot::NoContext) {
        Stack[I].Id = ContextSlot::NoContext;
        Changed = true;
      }
      continue;
    }
    // After the renaming both name the same context if both name one.
    uint32_t C = Stack[I].context();
    if (C == ContextSlot::NoContext)
      C = O.Stack[I].context();
    ContextSlot M = ContextSlot::mixed(C);
    if (!(Stack[I] == M)) {
      Stack[I] = M;
      Changed = true;
    }
  }
  return Changed;
}

bool ContextState::joinLocals(const ContextState &O) {
  bool Changed = false;
  for (const ContextLocal &L : O.Locals) {
    ContextLocal *Mine = findLocal(L.Local);
    if (!Mine) {
      setLocal({L.Local, LocalStatus::Maybe, L.Ctx});
      Changed = true;
      continue;
    }
    if (*Mine == L)
      continue;
    ContextLocal M{L.Local, LocalStatus::Maybe, std::min(Mine->Ctx, L.Ctx)};
    if (!(*Mine == M)) {
      *Mine = M;
      Changed = true;
    }
  }
  for (ContextLocal &L : Locals)
    if (L.S != LocalStatus::Maybe && !O.findLocal(L.Local)) {
      L.S = LocalStatus::Maybe;
      Changed = true;
    }
  return Changed;
}

bool ContextState::joinActive(const ContextState &O) {
  if (Active == O.Active && Order == O.Order)
    return false;
  bool Changed = false, Reorder = false;
  for (ActiveContext &A : Active) {
    const ActiveContext *Theirs = O.findActive(A.Ctx);
    if (!A.Maybe && (!Theirs || Theirs->Maybe)) {
      A.Maybe = true;
      Changed = true;
    }
  }
  for (const ActiveContext &A : O.Active)
    if (!findActive(A.Ctx)) {
      Active.push_back({A.Ctx, true});
      Changed = Reorder = true;
    }
  if (!std::includes(Order.begin(), Order.end(), O.Order.begin(),
                     O.Order.end())) {
    decltype(Order) Union;
    std::set_union(Order.begin(), Order.end(), O.Order.begin(), O.Order.end(),
                   std::back_inserter(Union));
    Order.assign(Union.begin(), Union.end()); // Order keeps its buffer
    Changed = Reorder = true;
  }
  if (Reorder)
    orderActive();
  return Changed;
}

void ContextState::orderActive() {
  if (Active.size() < 2)
    return;
  auto Precedes = [&](uint32_t A, uint32_t B) {
    return enteredBefore(A, B) && !enteredBefore(B, A);
  };
  // Copied out, not moved: Active keeps its buffer.
  decltype(Active) Left(Active);
  Active.clear();
  while (!Left.empty()) {
    size_t Best = 0;
    unsigned BestCount = ~0u;
    for (size_t I = 0; I < Left.size(); ++I) {
      unsigned Count = llvm::count_if(Left, [&](const ActiveContext &X) {
        return Precedes(X.Ctx, Left[I].Ctx);
      });
      if (Count < BestCount ||
          (Count == BestCount && Left[I].Ctx < Left[Best].Ctx)) {
        Best = I;
        BestCount = Count;
      }
    }
    Active.push_back(Left[Best]);
    Left.erase(Left.begin() + Best);
  }
}

ContextLocal *ContextState::findLocal(uint32_t L) {
  for (ContextLocal &E : Locals)
    if (E.Local == L)
      return &E;
  return nullptr;
}

void ContextState::setLocal(ContextLocal E) {
  if (ContextLocal *Mine = findLocal(E.Local)) {
    *Mine = E;
    return;
  }
  auto It = llvm::find_if(
      Locals, [&](const ContextLocal &X) { return X.Local > E.Local; });
  Locals.insert(It, E);
}

void ContextState::eraseLocal(uint32_t L) {
  llvm::erase_if(Locals, [&](const ContextLocal &X) { return X.Local == L; });
}

const ActiveContext *ContextState::findActive(uint32_t C) const {
  for (const ActiveContext &A : Active)
    if (A.Ctx == C)
      return &A;
  return nullptr;
}

void ContextState::enterActive(uint32_t C) {
  removeActive(C);
  // Entered after every active context: it sorts last (the others' order
  // does not change), so appending keeps the order canonical.
  for (const ActiveContext &A : Active) {
    std::pair<uint32_t, uint32_t> P{A.Ctx, C};
    Order.insert(llvm::lower_bound(Order, P), P);
  }
  Active.push_back({C, false});
}

void ContextState::removeActive(uint32_t C) {
  if (!findActive(C))
    return;
  llvm::erase_if(Active, [&](const ActiveContext &A) { return A.Ctx == C; });
  size_t Pairs = Order.size();
  llvm::erase_if(Order,
                 [&](const auto &P) { return P.first == C || P.second == C; });
  if (Order.size() != Pairs)
    orderActive(); // C no longer constrains the others
}

bool ContextState::enteredBefore(uint32_t A, uint32_t B) const {
  return std::binary_search(Order.begin(), Order.end(),
                            std::pair<uint32_t, uint32_t>{A, B});
}
