#!/usr/bin/env python3
"""Write a copy of LLVM 14's llvm/Support/JSON.h that clang accepts in C++20.

    llvm14_json_compat.py /usr/lib/llvm-14/include/llvm/Support/JSON.h OUT_DIR

LLVM 14's JSON.h does not compile with clang -std=c++20 against libstdc++ 12
(llvm/llvm-project#55780, fixed in LLVM 15): json::Array's in-class member
bodies call std::vector<json::Value> members while Value is still incomplete,
and clang instantiates the (C++20 constexpr) vector members on the spot. The
LLVM 15 fix moves those bodies out of the class, after Value; this script
makes exactly that change to the installed header and writes the result to
OUT_DIR/llvm/Support/JSON.h, which the fuzz build puts ahead of LLVM's
include directory. Only declarations move: the classes, their layout and the
ABI are unchanged. If the installed header is not the LLVM 14 text this was
written against, it stops with an error rather than guess.
"""

import os
import sys

IN_CLASS = """\
  Value &operator[](size_t I) { return V[I]; }
  const Value &operator[](size_t I) const { return V[I]; }
  Value &front() { return V.front(); }
  const Value &front() const { return V.front(); }
  Value &back() { return V.back(); }
  const Value &back() const { return V.back(); }
  Value *data() { return V.data(); }
  const Value *data() const { return V.data(); }

  iterator begin() { return V.begin(); }
  const_iterator begin() const { return V.begin(); }
  iterator end() { return V.end(); }
  const_iterator end() const { return V.end(); }

  bool empty() const { return V.empty(); }
  size_t size() const { return V.size(); }
  void reserve(size_t S) { V.reserve(S); }

  void clear() { V.clear(); }
  void push_back(const Value &E) { V.push_back(E); }
  void push_back(Value &&E) { V.push_back(std::move(E)); }
  template <typename... Args> void emplace_back(Args &&... A) {
    V.emplace_back(std::forward<Args>(A)...);
  }
  void pop_back() { V.pop_back(); }
  // FIXME: insert() takes const_iterator since C++11, old libstdc++ disagrees.
  iterator insert(iterator P, const Value &E) { return V.insert(P, E); }
  iterator insert(iterator P, Value &&E) {
    return V.insert(P, std::move(E));
  }
  template <typename It> iterator insert(iterator P, It A, It Z) {
    return V.insert(P, A, Z);
  }
  template <typename... Args> iterator emplace(const_iterator P, Args &&... A) {
    return V.emplace(P, std::forward<Args>(A)...);
  }

  friend bool operator==(const Array &L, const Array &R) { return L.V == R.V; }
};
"""

DECLARATIONS = """\
  inline Value &operator[](size_t I);
  inline const Value &operator[](size_t I) const;
  inline Value &front();
  inline const Value &front() const;
  inline Value &back();
  inline const Value &back() const;
  inline Value *data();
  inline const Value *data() const;

  inline iterator begin();
  inline const_iterator begin() const;
  inline iterator end();
  inline const_iterator end() const;

  inline bool empty() const;
  inline size_t size() const;
  inline void reserve(size_t S);

  inline void clear();
  inline void push_back(const Value &E);
  inline void push_back(Value &&E);
  template <typename... Args> void emplace_back(Args &&... A) {
    V.emplace_back(std::forward<Args>(A)...);
  }
  inline void pop_back();
  // FIXME: insert() takes const_iterator since C++11, old libstdc++ disagrees.
  inline iterator insert(iterator P, const Value &E);
  inline iterator insert(iterator P, Value &&E);
  template <typename It> iterator insert(iterator P, It A, It Z) {
    return V.insert(P, A, Z);
  }
  template <typename... Args> iterator emplace(const_iterator P, Args &&... A) {
    return V.emplace(P, std::forward<Args>(A)...);
  }

  friend bool operator==(const Array &L, const Array &R);
};
"""

AFTER_VALUE = """\
bool operator==(const Value &, const Value &);
inline bool operator!=(const Value &L, const Value &R) { return !(L == R); }
"""

DEFINITIONS = """
// pyverify fuzz build: json::Array members moved here from the class, as in
// LLVM 15 (llvm/llvm-project#55780).
inline Value &Array::operator[](size_t I) { return V[I]; }
inline const Value &Array::operator[](size_t I) const { return V[I]; }
inline Value &Array::front() { return V.front(); }
inline const Value &Array::front() const { return V.front(); }
inline Value &Array::back() { return V.back(); }
inline const Value &Array::back() const { return V.back(); }
inline Value *Array::data() { return V.data(); }
inline const Value *Array::data() const { return V.data(); }
inline Array::iterator Array::begin() { return V.begin(); }
inline Array::const_iterator Array::begin() const { return V.begin(); }
inline Array::iterator Array::end() { return V.end(); }
inline Array::const_iterator Array::end() const { return V.end(); }
inline bool Array::empty() const { return V.empty(); }
inline size_t Array::size() const { return V.size(); }
inline void Array::reserve(size_t S) { V.reserve(S); }
inline void Array::clear() { V.clear(); }
inline void Array::push_back(const Value &E) { V.push_back(E); }
inline void Array::push_back(Value &&E) { V.push_back(std::move(E)); }
inline void Array::pop_back() { V.pop_back(); }
inline Array::iterator Array::insert(iterator P, const Value &E) {
  return V.insert(P, E);
}
inline Array::iterator Array::insert(iterator P, Value &&E) {
  return V.insert(P, std::move(E));
}
inline bool operator==(const Array &L, const Array &R) { return L.V == R.V; }
"""


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out_dir = sys.argv[1], sys.argv[2]
    with open(src) as f:
        text = f.read()
    for needle in (IN_CLASS, AFTER_VALUE):
        if text.count(needle) != 1:
            sys.exit(f"llvm14_json_compat.py: {src} is not the LLVM 14 "
                     f"JSON.h this workaround was written for")
    text = text.replace(IN_CLASS, DECLARATIONS)
    text = text.replace(AFTER_VALUE, AFTER_VALUE + DEFINITIONS)
    dest = os.path.join(out_dir, "llvm", "Support", "JSON.h")
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    try:
        with open(dest) as f:
            if f.read() == text:
                return  # unchanged: keep the timestamp, avoid rebuilds
    except OSError:
        pass
    with open(dest, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
