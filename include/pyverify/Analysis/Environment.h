//===- Environment.h - What a rewriter installs -----------------*- C++ -*-===//
//
// Contract: lookupGlobal() tells whether a global name is one a rewriter
// installs (Environment.def, the one table of them) and which; a name is
// matched against the whole of a pattern, never by substring.
// lookupModeOp() tells what an attribute of a mode-stack module does. Any
// name not in the table is an arbitrary value (may raise when loaded,
// accessed or called; does not touch the tracked contexts). lookupEnvClass()
// tells whether an attribute of a module global is a class the table lists
// (the no-enter mode class a frame hands its resume function).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_ANALYSIS_ENVIRONMENT_H
#define PYVERIFY_ANALYSIS_ENVIRONMENT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace pyverify {

enum class GlobalRole {
  ResumeFunction,
  CompiledGraph,
  Helper,
  ModeStackModule,
  Module
};

enum class EnvGlobalId {
#define PYV_ENV_GLOBAL(Id, Pattern, Role, Assumption) Id,
#include "pyverify/Analysis/Environment.def"
};

struct EnvGlobal {
  EnvGlobalId Id;
  const char *Pattern;
  GlobalRole Role;
  const char *Assumption;
};

enum class ModeEffect { Push, Pop, GetStack, SetStack };

/// What a class Environment.def lists (PYV_ENV_CLASS) is.
enum class EnvClassKind { NoEnterMode };

/// The table entry whose pattern matches all of \p Name, or null.
const EnvGlobal *lookupGlobal(llvm::StringRef Name);

/// What \p Attribute of the mode-stack module \p Module does, if anything.
std::optional<ModeEffect> lookupModeOp(const EnvGlobal &Module,
                                       llvm::StringRef Attribute);

/// What \p Attribute of the module global \p Module is, when Environment.def
/// lists it as a class (PYV_ENV_CLASS).
std::optional<EnvClassKind> lookupEnvClass(const EnvGlobal &Module,
                                           llvm::StringRef Attribute);

/// The original offset a resume-function global names: the first {int} of
/// a ResumeFunction pattern (Environment.def); nullopt for any other name or
/// an offset past UINT32_MAX.
std::optional<uint32_t> resumeGlobalOffset(llvm::StringRef Name);

/// Every entry, in table order (for the printed assumptions).
llvm::ArrayRef<EnvGlobal> environmentGlobals();

/// Whether \p Name matches all of \p Pattern ({int}: digits, {name}:
/// identifier characters; one or more each).
bool matchesEnvPattern(llvm::StringRef Pattern, llvm::StringRef Name);

} // namespace pyverify

#endif
