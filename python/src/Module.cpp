//===- Module.cpp - The pyverify._pyverify extension module ---------------===//
//
// The native half of `import pyverify`: verify() on live code objects and
// bundles, and the Report / Diagnostic / Note types. Fields are read under
// the GIL (LiveCode.h); decoding and every analysis run with the GIL
// released, so several threads verify in parallel. It does not link the
// prover (lib/SMT, libz3): _pyverify_prove (ProveModule.cpp) does, and is
// imported only when prove_bundle() is called -- loading libz3 would
// otherwise cost every `import pyverify` about 4 ms. The pure-Python package
// (python/pyverify/__init__.py) adds check(), install(), the bundle helpers
// and the pytest plugin.
//
//===----------------------------------------------------------------------===//

#include "BundleArgs.h"
#include "LiveCode.h"

#include "pyverify/Bytecode/Bundle.h"
#include "pyverify/Bytecode/Marshal.h"
#include "pyverify/Check/BundleVerifier.h"
#include "pyverify/Check/DiagnosticPrinter.h"
#include "pyverify/Check/Verifier.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <optional>

namespace py = pybind11;
using namespace pyverify;
using namespace pyverify::python;

namespace {

/// What verify() returns: the diagnostics of one call, sorted.
struct Report {
  std::vector<Diagnostic> Diags;
  uint32_t CodeObjects = 0;

  unsigned count(Severity S) const {
    unsigned N = 0;
    for (const Diagnostic &D : Diags)
      N += D.Sev == S;
    return N;
  }
  bool ok() const { return count(Severity::Error) == 0; }
  std::vector<Diagnostic> only(Severity S) const {
    std::vector<Diagnostic> Out;
    for (const Diagnostic &D : Diags)
      if (D.Sev == S)
        Out.push_back(D);
    return Out;
  }

  std::string text() const {
    std::string S;
    llvm::raw_string_ostream OS(S);
    for (const Diagnostic &D : Diags)
      printDiagnostic(OS, D);
    OS << "pyverify: " << CodeObjects
       << " code object(s): " << count(Severity::Error) << " error(s), "
       << count(Severity::Warning) << " warning(s), " << count(Severity::Remark)
       << " remark(s)\n";
    return OS.str();
  }

  std::string json() const {
    llvm::json::Array Items;
    for (const Diagnostic &D : Diags)
      Items.push_back(diagnosticToJSON(D));
    llvm::json::Object Out{
        {"diagnostics", std::move(Items)},
        {"summary",
         llvm::json::Object{{"code_objects", int64_t(CodeObjects)},
                            {"errors", int64_t(count(Severity::Error))},
                            {"warnings", int64_t(count(Severity::Warning))},
                            {"remarks", int64_t(count(Severity::Remark))}}}};
    return llvm::formatv("{0}", llvm::json::Value(std::move(Out)));
  }
};

CheckOptions parseChecks(const py::object &Checks) {
  CheckOptions O;
  if (Checks.is_none())
    return O;
  std::string Spec;
  if (py::isinstance<py::str>(Checks)) {
    Spec = Checks.cast<std::string>();
  } else {
    for (py::handle Item : Checks) {
      if (!Spec.empty())
        Spec += ',';
      Spec += py::cast<std::string>(Item);
    }
  }
  if (llvm::Error E = O.parseCheckSpec(Spec))
    throw py::value_error("checks: " + llvm::toString(std::move(E)));
  return O;
}

/// Code size (bytes of co_code over the tree) from which verify() releases
/// the GIL.
constexpr size_t ReleaseGilFromBytes = 512;

Report verify(const py::object &Obj, const py::object &Checks, bool Recursive) {
  CheckOptions Opts = parseChecks(Checks);
  auto Root = readOrThrow(codeOf(Obj, "verify() argument"), Recursive);
  Report R;
  {
    // Releasing and taking back the GIL costs two thread hand-offs when
    // other threads run Python: more than verifying a small code object.
    // Keep it for those (a few microseconds); release it for the rest.
    size_t Bytes = 0;
    forEachCodeObject(
        *Root, [&](const CodeObject &C, unsigned) { Bytes += C.Code.size(); });
    std::optional<py::gil_scoped_release> Release;
    if (Bytes >= ReleaseGilFromBytes)
      Release.emplace();
    if (Recursive) {
      CodeFile F;
      F.Path = Root->Filename;
      F.Roots.push_back(Root);
      FileReport FR = verifyCodeFile(F, Opts);
      R.Diags = std::move(FR.Diags);
      R.CodeObjects = FR.CodeObjects;
    } else {
      DecodedCode D = DecodedCode::decode(*Root);
      for (const Finding &Fd : verifyCode(D, Opts))
        R.Diags.push_back(makeDiagnostic(Fd, D, Root->Filename, 0));
      sortDiagnostics(R.Diags);
      R.CodeObjects = 1;
    }
  }
  return R;
}

Report verifyBundleCall(const py::object &Original, const py::object &Frame,
                        const py::object &BreakOffset, const py::list &Resumes,
                        const py::object &Checks) {
  CheckOptions Opts = parseChecks(Checks);
  Bundle B = buildBundle(Original, Frame, BreakOffset, Resumes);
  Report Rep;
  {
    py::gil_scoped_release Release;
    FileReport FR = pyverify::verifyBundle(B, Opts);
    Rep.Diags = std::move(FR.Diags);
    Rep.CodeObjects = FR.CodeObjects;
  }
  return Rep;
}

py::object optionalInt(const std::optional<int32_t> &V) {
  return V ? py::object(py::int_(*V)) : py::object(py::none());
}

std::string diagnosticText(const Diagnostic &D) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printDiagnostic(OS, D);
  return OS.str();
}

/// Test hook: compares the live reader's CodeObject tree for \p Code with
/// what the marshal reader makes of \p Marshalled (marshal.dumps(code)).
/// Returns None when every field of every nested code object agrees, else
/// the first difference.
py::object compareWithMarshal(const py::object &Code,
                              const py::bytes &Marshalled) {
  auto Live = readOrThrow(codeOf(Code, "code"), true);
  llvm::Expected<Value> V = readMarshal(std::string_view(Marshalled));
  if (!V)
    throw py::value_error(llvm::toString(V.takeError()));
  const CodeObject *Ref = V->getCode();
  if (!Ref)
    throw py::value_error("not a marshalled code object");
  std::string Diff;
  std::function<bool(const CodeObject &, const CodeObject &)> Same =
      [&](const CodeObject &A, const CodeObject &B) {
        auto Fail = [&](const char *Field) {
          Diff = A.QualName + ": " + Field + " differs";
          return false;
        };
        if (A.ArgCount != B.ArgCount ||
            A.PosOnlyArgCount != B.PosOnlyArgCount ||
            A.KwOnlyArgCount != B.KwOnlyArgCount)
          return Fail("argument counts");
        if (A.StackSize != B.StackSize)
          return Fail("co_stacksize");
        if (A.Flags != B.Flags)
          return Fail("co_flags");
        if (A.FirstLineNo != B.FirstLineNo)
          return Fail("co_firstlineno");
        if (A.Code != B.Code)
          return Fail("co_code");
        if (A.Names != B.Names)
          return Fail("co_names");
        if (A.LocalsPlusNames != B.LocalsPlusNames)
          return Fail("co_localsplusnames");
        if (A.LocalsPlusKinds != B.LocalsPlusKinds)
          return Fail("co_localspluskinds");
        if (A.Filename != B.Filename || A.Name != B.Name ||
            A.QualName != B.QualName)
          return Fail("names");
        if (A.LineTable != B.LineTable)
          return Fail("co_linetable");
        if (A.ExceptionTable != B.ExceptionTable)
          return Fail("co_exceptiontable");
        if (A.Consts.size() != B.Consts.size())
          return Fail("len(co_consts)");
        for (size_t I = 0; I < A.Consts.size(); ++I) {
          const CodeObject *CA = A.Consts[I].getCode();
          const CodeObject *CB = B.Consts[I].getCode();
          if (bool(CA) != bool(CB))
            return Fail("co_consts kinds");
          if (CA ? !Same(*CA, *CB) : A.Consts[I].repr() != B.Consts[I].repr()) {
            if (Diff.empty())
              Diff = A.QualName + ": co_consts[" + std::to_string(I) +
                     "] differs: " + A.Consts[I].repr() + " vs " +
                     B.Consts[I].repr();
            return false;
          }
        }
        return true;
      };
  if (Same(*Live, *Ref))
    return py::none();
  return py::str(Diff);
}

} // namespace

PYBIND11_MODULE(_pyverify, M) {
  M.doc() = "Static verification of CPython 3.11 code objects (native part).";

  py::class_<DiagnosticNote>(M, "Note",
                             "A note attached to a diagnostic (e.g. a step "
                             "of a witness path).")
      .def_readonly("offset", &DiagnosticNote::Offset)
      .def_property_readonly(
          "line", [](const DiagnosticNote &N) { return optionalInt(N.Line); })
      .def_property_readonly(
          "col", [](const DiagnosticNote &N) { return optionalInt(N.Col); })
      .def_readonly("message", &DiagnosticNote::Message)
      .def("__repr__", [](const DiagnosticNote &N) {
        return "<pyverify.Note at offset " + std::to_string(N.Offset) + ": " +
               N.Message + ">";
      });

  py::class_<Diagnostic>(M, "Diagnostic",
                         "One finding, placed in its code object.")
      .def_property_readonly(
          "check",
          [](const Diagnostic &D) { return getCheckName(D.Check).str(); })
      .def_property_readonly(
          "severity",
          [](const Diagnostic &D) { return getSeverityName(D.Sev).str(); })
      .def_readonly("message", &Diagnostic::Message)
      .def_readonly("offset", &Diagnostic::Offset)
      .def_property_readonly(
          "line", [](const Diagnostic &D) { return optionalInt(D.Line); })
      .def_property_readonly(
          "col", [](const Diagnostic &D) { return optionalInt(D.Col); })
      .def_readonly("qualname", &Diagnostic::QualName)
      .def_readonly("first_lineno", &Diagnostic::FirstLineNo)
      .def_readonly("file", &Diagnostic::File)
      .def_readonly("target", &Diagnostic::Target)
      .def_readonly("code_index", &Diagnostic::CodeIndex)
      .def_readonly("instruction", &Diagnostic::Instruction)
      .def_readonly("notes", &Diagnostic::Notes)
      .def("to_json",
           [](const Diagnostic &D) {
             return std::string(
                 llvm::formatv("{0}", llvm::json::Value(diagnosticToJSON(D))));
           })
      .def("__str__", &diagnosticText)
      .def("__repr__", [](const Diagnostic &D) {
        return "<pyverify.Diagnostic " + getSeverityName(D.Sev).str() + " [" +
               getCheckName(D.Check).str() + "] in " + D.QualName +
               " at offset " + std::to_string(D.Offset) + ">";
      });

  py::class_<Report>(M, "Report",
                     "The diagnostics of one verify() call, sorted by code "
                     "object, offset and check id.")
      .def_property_readonly("ok", &Report::ok,
                             "True when no diagnostic is an error.")
      .def_property_readonly(
          "errors", [](const Report &R) { return R.only(Severity::Error); })
      .def_property_readonly(
          "warnings", [](const Report &R) { return R.only(Severity::Warning); })
      .def_readonly("code_objects", &Report::CodeObjects)
      .def("__len__", [](const Report &R) { return R.Diags.size(); })
      .def("__getitem__",
           [](const Report &R, py::ssize_t I) {
             py::ssize_t N = py::ssize_t(R.Diags.size());
             if (I < 0)
               I += N;
             if (I < 0 || I >= N)
               throw py::index_error("report index out of range");
             return R.Diags[size_t(I)];
           })
      .def(
          "__iter__",
          [](const Report &R) {
            return py::make_iterator(R.Diags.begin(), R.Diags.end());
          },
          py::keep_alive<0, 1>())
      .def("__bool__",
           [](const Report &) -> bool {
             throw py::type_error(
                 "the truth value of a pyverify.Report is ambiguous: use "
                 "report.ok (no errors) or len(report) (any diagnostic)");
           })
      .def("_json", &Report::json)
      .def("__str__", &Report::text)
      .def("__repr__", [](const Report &R) {
        return "<pyverify.Report " + std::to_string(R.CodeObjects) +
               " code object(s), " + std::to_string(R.count(Severity::Error)) +
               " error(s), " + std::to_string(R.count(Severity::Warning)) +
               " warning(s)>";
      });

  M.def("verify", &verify, py::arg("code"), py::kw_only(),
        py::arg("checks") = py::none(), py::arg("recursive") = true,
        "verify(code, *, checks=None, recursive=True) -> Report\n\n"
        "Runs every enabled check on a live code object (or a function's "
        "__code__) and, with recursive, on every nested code object.\n"
        "checks: a spec like the CLI's --checks ('-*,stack-*') or a list of "
        "entries. The GIL is released during the analysis (kept for code "
        "under 512 bytes of co_code in all, where a hand-off would cost "
        "more than the analysis).");
  M.def("_verify_bundle", &verifyBundleCall);
  M.def("_compare_with_marshal", &compareWithMarshal);
  M.def("_check_ids", [] {
    py::list Out;
    for (const CheckInfo &C : allChecks())
      Out.append(py::make_tuple(C.Name.str(),
                                getSeverityName(C.DefaultSeverity).str(),
                                C.EnabledByDefault, C.Summary.str()));
    return Out;
  });
}
