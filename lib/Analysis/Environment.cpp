//===- Environment.cpp - What a rewriter installs -------------------------===//

#include "pyverify/Analysis/Environment.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringExtras.h"

using namespace pyverify;

namespace {

const EnvGlobal Globals[] = {
#define PYV_ENV_GLOBAL(Id, Pattern, Role, Assumption)                          \
  {EnvGlobalId::Id, Pattern, GlobalRole::Role, Assumption},
#include "pyverify/Analysis/Environment.def"
};

struct ModeOp {
  EnvGlobalId Module;
  const char *Attribute;
  ModeEffect Effect;
};

const ModeOp ModeOps[] = {
#define PYV_ENV_MODE_OP(Module, Attribute, Effect)                             \
  {EnvGlobalId::Module, Attribute, ModeEffect::Effect},
#include "pyverify/Analysis/Environment.def"
};

struct EnvClass {
  EnvGlobalId Module;
  const char *Attribute;
  EnvClassKind Kind;
};

const EnvClass Classes[] = {
#define PYV_ENV_CLASS(Module, Attribute, Kind)                                 \
  {EnvGlobalId::Module, Attribute, EnvClassKind::Kind},
#include "pyverify/Analysis/Environment.def"
};

bool isIdentChar(char C) { return llvm::isAlnum(C) || C == '_'; }

} // namespace

bool pyverify::matchesEnvPattern(llvm::StringRef P, llvm::StringRef N) {
  while (!P.empty()) {
    bool Int = P.startswith("{int}"), Name = P.startswith("{name}");
    if (!Int && !Name) {
      if (N.empty() || N.front() != P.front())
        return false;
      P = P.drop_front();
      N = N.drop_front();
      continue;
    }
    P = P.drop_front(Int ? 5 : 6);
    auto Fits = [&](char C) { return Int ? llvm::isDigit(C) : isIdentChar(C); };
    // One or more characters of the class, then the rest of the pattern
    // (backtracking: {name} may end where a later literal begins).
    size_t Max = 0;
    while (Max < N.size() && Fits(N[Max]))
      ++Max;
    for (size_t Take = Max; Take >= 1; --Take)
      if (matchesEnvPattern(P, N.drop_front(Take)))
        return true;
    return false;
  }
  return N.empty();
}

const EnvGlobal *pyverify::lookupGlobal(llvm::StringRef Name) {
  for (const EnvGlobal &G : Globals)
    if (matchesEnvPattern(G.Pattern, Name))
      return &G;
  return nullptr;
}

std::optional<ModeEffect> pyverify::lookupModeOp(const EnvGlobal &Module,
                                                 llvm::StringRef Attribute) {
  if (Module.Role != GlobalRole::ModeStackModule)
    return std::nullopt;
  for (const ModeOp &Op : ModeOps)
    if (Op.Module == Module.Id && Attribute == Op.Attribute)
      return Op.Effect;
  return std::nullopt;
}

std::optional<EnvClassKind>
pyverify::lookupEnvClass(const EnvGlobal &Module, llvm::StringRef Attribute) {
  for (const EnvClass &C : Classes)
    if (C.Module == Module.Id && Attribute == C.Attribute)
      return C.Kind;
  return std::nullopt;
}

llvm::ArrayRef<EnvGlobal> pyverify::environmentGlobals() { return Globals; }

std::optional<uint32_t> pyverify::resumeGlobalOffset(llvm::StringRef Name) {
  const EnvGlobal *G = lookupGlobal(Name);
  if (!G || G->Role != GlobalRole::ResumeFunction)
    return std::nullopt;
  // The pattern's first {int} is the offset: the name's digits at the
  // position of the pattern's literal prefix.
  llvm::StringRef Prefix = llvm::StringRef(G->Pattern).split("{int}").first;
  assert(Prefix.size() < llvm::StringRef(G->Pattern).size() &&
         "a ResumeFunction pattern starts its offset with {int}");
  llvm::StringRef Digits = Name.drop_front(Prefix.size());
  Digits = Digits.take_while(llvm::isDigit);
  uint64_t V;
  if (Digits.getAsInteger(10, V) || V > UINT32_MAX)
    return std::nullopt;
  return uint32_t(V);
}
