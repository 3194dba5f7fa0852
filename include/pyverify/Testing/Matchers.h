//===- Matchers.h - GoogleTest matchers for code objects --------*- C++ -*-===//
//
// Contract: gmock matchers that run pyverify's checks on the value they are
// given and match on the findings, for C++ projects that emit or rewrite
// CPython 3.11 bytecode:
//
//   EXPECT_THAT(Code, pyverify::testing::Verifies());
//   EXPECT_THAT(Code, pyverify::testing::Verifies("-*,stack-*"));
//   EXPECT_THAT(Code, pyverify::testing::HasFinding("stacksize-too-small"));
//
// The value may be a CodeObject (a const CodeObject * or a
// std::shared_ptr<const CodeObject> too; null never matches) or a CodeFile.
// A code object is checked with every code object nested in it, as a file
// is: verifyCodeFile() on it, diagnostics naming its co_filename.
//
//  * Verifies(O) matches when no check enabled in O reports an
//    error-severity finding; warnings and remarks do not fail it.
//  * HasFinding(Id, O) matches when a finding with check id Id is reported,
//    whatever its severity. Id is enabled on top of O, so checks that are
//    off by default (unreachable-code) can be asked for.
//
// Either way the match explanation lists the findings in the CLI's text form
// (printDiagnostic, no colour): a failing EXPECT_THAT shows what
// `pyverify check` would print. A spec that CheckOptions::parseCheckSpec()
// rejects, or an unknown check id, fails the test where the matcher is made
// (ADD_FAILURE) and the matcher then matches nothing.
//
// PrintTo below prints a CodeObject (and a CodeFile) as repr() names it.
// Include this header in every test file whose assertions may print one --
// a shared_ptr<const CodeObject> compared too: GoogleTest's printer for a
// type is one inline function, and a file without the overload instantiates
// another (a byte dump); the linker keeps either, so an unoptimised build
// printed the bytes in this header's own test.
//
// Header-only: link pyverify::pyverify and GTest::gmock. The names are
// CamelCase, as gmock's own matchers are. Inside `using namespace pyverify`,
// write gmock's namespace as ::testing, since pyverify::testing shadows it.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_TESTING_MATCHERS_H
#define PYVERIFY_TESTING_MATCHERS_H

#include "pyverify/Bytecode/CodeFile.h"
#include "pyverify/Bytecode/CodeObject.h"
#include "pyverify/Check/CheckOptions.h"
#include "pyverify/Check/Diagnostic.h"
#include "pyverify/Check/DiagnosticPrinter.h"
#include "pyverify/Check/Verifier.h"
#include "pyverify/Support/Check.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace pyverify {

/// Lets GoogleTest print a code object the way Python's repr() names it
/// instead of dumping its bytes.
inline void PrintTo(const CodeObject &C, std::ostream *OS) {
  *OS << "<code object " << C.QualName.str() << ", file \"" << C.Filename.str()
      << "\", line " << C.FirstLineNo << ">";
}

inline void PrintTo(const CodeFile &F, std::ostream *OS) {
  *OS << "<code file \"" << F.Path << "\", " << F.Roots.size()
      << " root code object(s)>";
}

namespace testing {
namespace detail {

/// Runs the checks on \p C and everything nested in it. The CodeFile root
/// is a non-owning shared_ptr (aliasing an empty owner): \p C outlives the
/// call.
inline std::optional<FileReport> verifyForMatcher(const CodeObject &C,
                                                  const CheckOptions &O) {
  CodeFile F;
  F.Path = C.Filename;
  F.Roots.emplace_back(std::shared_ptr<const CodeObject>(), &C);
  return verifyCodeFile(F, O);
}

inline std::optional<FileReport> verifyForMatcher(const CodeObject *C,
                                                  const CheckOptions &O) {
  if (!C)
    return std::nullopt;
  return verifyForMatcher(*C, O);
}

inline std::optional<FileReport>
verifyForMatcher(const std::shared_ptr<const CodeObject> &C,
                 const CheckOptions &O) {
  return verifyForMatcher(C.get(), O);
}

inline std::optional<FileReport> verifyForMatcher(const CodeFile &F,
                                                  const CheckOptions &O) {
  return verifyCodeFile(F, O);
}

/// The diagnostics for which \p Keep holds, in `pyverify check`'s text form.
template <typename Pred>
std::string printDiagnostics(llvm::ArrayRef<Diagnostic> Diags, Pred Keep) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  for (const Diagnostic &D : Diags)
    if (Keep(D))
      printDiagnostic(OS, D, /*Color=*/false);
  return OS.str();
}

inline std::string printDiagnostics(llvm::ArrayRef<Diagnostic> Diags) {
  return printDiagnostics(Diags, [](const Diagnostic &) { return true; });
}

/// What a matcher checks with: the options, how to describe them, and the
/// error that made them unusable (empty when they are fine).
struct MatcherOptions {
  CheckOptions Options;
  std::string Description;
  std::string SetupError;
};

inline MatcherOptions optionsFromSpec(llvm::StringRef Matcher,
                                      llvm::StringRef Spec) {
  MatcherOptions M;
  M.Description = "with checks \"" + Spec.str() + "\"";
  if (llvm::Error E = M.Options.parseCheckSpec(Spec)) {
    M.SetupError = Matcher.str() + "(\"" + Spec.str() +
                   "\"): " + llvm::toString(std::move(E));
    ADD_FAILURE() << M.SetupError;
  }
  return M;
}

class VerifiesMatcher {
public:
  explicit VerifiesMatcher(MatcherOptions M) : M(std::move(M)) {}

  template <typename T>
  bool MatchAndExplain(const T &Code,
                       ::testing::MatchResultListener *Listener) const {
    if (!M.SetupError.empty()) {
      *Listener << "which cannot be checked: " << M.SetupError;
      return false;
    }
    std::optional<FileReport> R = verifyForMatcher(Code, M.Options);
    if (!R) {
      *Listener << "which is a null code object";
      return false;
    }
    size_t Errors = 0;
    for (const Diagnostic &D : R->Diags)
      Errors += D.Sev == Severity::Error;
    if (Errors) {
      *Listener << "which has " << Errors << " error-severity finding(s) in "
                << R->CodeObjects << " code object(s):\n"
                << printDiagnostics(R->Diags);
      return false;
    }
    *Listener << "which has no error-severity finding in " << R->CodeObjects
              << " code object(s)";
    if (!R->Diags.empty())
      *Listener << ", only:\n" << printDiagnostics(R->Diags);
    return true;
  }

  void DescribeTo(std::ostream *OS) const {
    *OS << "verifies: no enabled check reports an error-severity finding";
    if (!M.Description.empty())
      *OS << " (" << M.Description << ")";
  }
  void DescribeNegationTo(std::ostream *OS) const {
    *OS << "fails verification: an enabled check reports an error-severity "
           "finding";
    if (!M.Description.empty())
      *OS << " (" << M.Description << ")";
  }

private:
  MatcherOptions M;
};

class HasFindingMatcher {
public:
  HasFindingMatcher(std::optional<CheckId> Id, std::string Name,
                    MatcherOptions M)
      : Id(Id), Name(std::move(Name)), M(std::move(M)) {
    if (this->Id)
      this->M.Options.set(*this->Id, true);
    else if (this->M.SetupError.empty()) {
      this->M.SetupError = "HasFinding(\"" + this->Name +
                           "\"): no check has this id (see Checks.def)";
      ADD_FAILURE() << this->M.SetupError;
    }
  }

  template <typename T>
  bool MatchAndExplain(const T &Code,
                       ::testing::MatchResultListener *Listener) const {
    if (!M.SetupError.empty()) {
      *Listener << "which cannot be checked: " << M.SetupError;
      return false;
    }
    std::optional<FileReport> R = verifyForMatcher(Code, M.Options);
    if (!R) {
      *Listener << "which is a null code object";
      return false;
    }
    auto IsIt = [&](const Diagnostic &D) { return D.Check == *Id; };
    size_t Hits = 0;
    for (const Diagnostic &D : R->Diags)
      Hits += IsIt(D);
    if (Hits) {
      *Listener << "which reports " << Hits << " [" << Name << "] finding(s):\n"
                << printDiagnostics(R->Diags, IsIt);
      return true;
    }
    *Listener << "which reports no [" << Name << "] finding in "
              << R->CodeObjects << " code object(s)";
    if (!R->Diags.empty())
      *Listener << "; it reports:\n" << printDiagnostics(R->Diags);
    return false;
  }

  void DescribeTo(std::ostream *OS) const {
    *OS << "has a [" << Name << "] finding";
    if (!M.Description.empty())
      *OS << " (" << M.Description << ")";
  }
  void DescribeNegationTo(std::ostream *OS) const {
    *OS << "has no [" << Name << "] finding";
    if (!M.Description.empty())
      *OS << " (" << M.Description << ")";
  }

private:
  std::optional<CheckId> Id;
  std::string Name;
  MatcherOptions M;
};

} // namespace detail

/// Matches when no check enabled by default reports an error-severity
/// finding.
inline ::testing::PolymorphicMatcher<detail::VerifiesMatcher> Verifies() {
  return ::testing::MakePolymorphicMatcher(
      detail::VerifiesMatcher(detail::MatcherOptions()));
}

/// Matches when no check enabled in \p O reports an error-severity finding.
inline ::testing::PolymorphicMatcher<detail::VerifiesMatcher>
Verifies(CheckOptions O) {
  return ::testing::MakePolymorphicMatcher(detail::VerifiesMatcher(
      detail::MatcherOptions{std::move(O), "with the given CheckOptions", ""}));
}

/// Matches when no check enabled by the default set changed by \p Spec (a
/// `--checks=` spec, CheckOptions::parseCheckSpec) reports an error-severity
/// finding.
inline ::testing::PolymorphicMatcher<detail::VerifiesMatcher>
Verifies(llvm::StringRef Spec) {
  return ::testing::MakePolymorphicMatcher(
      detail::VerifiesMatcher(detail::optionsFromSpec("Verifies", Spec)));
}

/// Matches when a finding of check \p Id is reported, \p Id enabled on top
/// of \p O.
inline ::testing::PolymorphicMatcher<detail::HasFindingMatcher>
HasFinding(CheckId Id, CheckOptions O = CheckOptions()) {
  return ::testing::MakePolymorphicMatcher(
      detail::HasFindingMatcher(Id, getCheckName(Id).str(),
                                detail::MatcherOptions{std::move(O), "", ""}));
}

/// Matches when a finding with check id \p Name ("stacksize-too-small") is
/// reported, that check enabled on top of \p O.
inline ::testing::PolymorphicMatcher<detail::HasFindingMatcher>
HasFinding(llvm::StringRef Name, CheckOptions O = CheckOptions()) {
  return ::testing::MakePolymorphicMatcher(
      detail::HasFindingMatcher(lookupCheck(Name), Name.str(),
                                detail::MatcherOptions{std::move(O), "", ""}));
}

} // namespace testing
} // namespace pyverify

#endif
