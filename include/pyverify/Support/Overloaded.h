//===- Overloaded.h - One lambda per std::variant alternative ---*- C++ -*-===//
//
// Contract: Overloaded{F1, F2, ...} is the overload set std::visit needs to
// take one lambda per alternative of a variant; a missing alternative does
// not compile, so a visit is exhaustive.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_SUPPORT_OVERLOADED_H
#define PYVERIFY_SUPPORT_OVERLOADED_H

namespace pyverify {

template <class... Fs> struct Overloaded : Fs... { using Fs::operator()...; };
template <class... Fs> Overloaded(Fs...) -> Overloaded<Fs...>;

} // namespace pyverify

#endif
