//===- Overloaded.h - One lambda per std::variant alternative ---*- C++ -*-===//
//
// Contract: Overloaded{F1, F2, ...} is the overload set std::visit needs to
// take one lambda per alternative of a variant; a missing alternative does
// not compile, so a visit is exhaustive. OneOf<T, A, B, ...> names a group of
// alternatives handled alike ([&](const OneOf<A, B> auto &X) { ... }): a
// list, not a catch-all, so a new alternative still fails to compile.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SUPPORT_OVERLOADED_H
#define PYVERIFY_SUPPORT_OVERLOADED_H

#include <concepts>

namespace pyverify {

template <class... Fs> struct Overloaded : Fs... { using Fs::operator()...; };
template <class... Fs> Overloaded(Fs...) -> Overloaded<Fs...>;

template <class T, class... Ts>
concept OneOf = (std::same_as<std::remove_cvref_t<T>, Ts> || ...);

} // namespace pyverify

#endif
