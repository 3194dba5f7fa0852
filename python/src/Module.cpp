//===- Module.cpp - The pyverify._pyverify extension module ---------------===//
//
// The native half of `import pyverify`: verify() on live code objects and
// bundles, _prove_bundle() (the SMT prover), and the Report / Diagnostic /
// Note types. Fields are read under the GIL (LiveCode.h); decoding, every
// analysis and every proof run with the GIL released, so several threads
// verify in parallel. The pure-Python package
// (python/pyverify/__init__.py) adds check(), install(), the bundle helpers
// and the pytest plugin.
//
//===----------------------------------------------------------------------===//

#include "LiveCode.h"

#include "pyverify/Bytecode/Bundle.h"
#include "pyverify/Bytecode/Marshal.h"
#include "pyverify/Check/BundleVerifier.h"
#include "pyverify/Check/DiagnosticPrinter.h"
#include "pyverify/Check/Verifier.h"
#include "pyverify/SMT/ProofPrinter.h"
#include "pyverify/SMT/Prover.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>

namespace py = pybind11;
using namespace pyverify;

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

/// The code object of \p Obj: a code object, or anything with __code__
/// (functions, methods).
py::object codeOf(const py::handle &Obj, const char *What) {
  if (PyCode_Check(Obj.ptr()))
    return py::reinterpret_borrow<py::object>(Obj);
  if (PyObject_HasAttrString(Obj.ptr(), "__code__")) {
    py::object Code = Obj.attr("__code__");
    if (PyCode_Check(Code.ptr()))
      return Code;
  }
  throw py::type_error(std::string(What) +
                       " must be a code object or a function, not " +
                       Py_TYPE(Obj.ptr())->tp_name);
}

std::shared_ptr<const CodeObject> readOrThrow(const py::object &Code,
                                              bool Recursive) {
  auto C = python::readLiveCode(Code.ptr(), Recursive);
  if (!C)
    throw py::error_already_set();
  return C;
}

Report verify(const py::object &Obj, const py::object &Checks, bool Recursive) {
  CheckOptions Opts = parseChecks(Checks);
  auto Root = readOrThrow(codeOf(Obj, "verify() argument"), Recursive);
  Report R;
  {
    py::gil_scoped_release Release;
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

ContextKind parseKind(const std::string &Kind) {
  if (Kind == "with")
    return ContextKind::With;
  if (Kind == "mode")
    return ContextKind::Mode;
  throw py::value_error("context kind must be 'with' or 'mode', not '" + Kind +
                        "'");
}

uint32_t offsetArg(const py::handle &V, const std::string &Where) {
  long long N = py::cast<long long>(V);
  if (N < 0 || N > UINT32_MAX)
    throw py::value_error(Where + " is out of range: " + std::to_string(N));
  return uint32_t(N);
}

/// The Bundle of a _verify_bundle / _prove_bundle call. \p Resumes: a
/// sequence of (code, original_offset, [(kind, handler, stack_index)])
/// tuples; the Python wrapper normalises dicts to this. Reads the code
/// objects, so the GIL must be held.
Bundle buildBundle(const py::object &Original, const py::object &Frame,
                   const py::object &BreakOffset, const py::list &Resumes) {
  Bundle B;
  B.Original = readOrThrow(codeOf(Original, "original"), true);
  B.Path = B.Original->Filename;
  if (!Frame.is_none())
    B.Frame = readOrThrow(codeOf(Frame, "frame"), true);
  B.BreakOffset = offsetArg(BreakOffset, "break_offset");
  for (size_t I = 0; I < Resumes.size(); ++I) {
    std::string Where = "resumes[" + std::to_string(I) + "]";
    py::tuple T = Resumes[I].cast<py::tuple>();
    BundleResume R;
    R.Code = readOrThrow(codeOf(T[0], Where.c_str()), true);
    R.OriginalOffset = offsetArg(T[1], Where + ".original_offset");
    py::list Ctxs = T[2].cast<py::list>();
    for (size_t J = 0; J < Ctxs.size(); ++J) {
      std::string CW = Where + ".contexts[" + std::to_string(J) + "]";
      py::tuple C = Ctxs[J].cast<py::tuple>();
      R.Contexts.push_back({parseKind(C[0].cast<std::string>()),
                            offsetArg(C[1], CW + ".handler"),
                            offsetArg(C[2], CW + ".stack_index")});
    }
    B.Resumes.push_back(std::move(R));
  }
  return B;
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

/// proveBundle() on a bundle built like verifyBundleCall's; the results as
/// a list of dicts with the keys of `pyverify prove --format=json`
/// (proofResultToJSON, decoded by the json module).
py::list proveBundleCall(const py::object &Original, const py::object &Frame,
                         const py::object &BreakOffset, const py::list &Resumes,
                         long long Unroll, long long Rlimit, long long Timeout,
                         bool AssumeNoSuppress) {
  if (Unroll < 0 || Unroll > UINT32_MAX)
    throw py::value_error("unroll is out of range: " + std::to_string(Unroll));
  if (Rlimit < 0)
    throw py::value_error("rlimit is out of range: " + std::to_string(Rlimit));
  if (Timeout < 0 || Timeout > UINT32_MAX)
    throw py::value_error("timeout is out of range: " +
                          std::to_string(Timeout));
  ProveOptions Opts;
  Opts.Unroll = unsigned(Unroll);
  Opts.Rlimit = uint64_t(Rlimit);
  Opts.TimeoutMs = unsigned(Timeout);
  Opts.AssumeNoSuppress = AssumeNoSuppress;
  Bundle B = buildBundle(Original, Frame, BreakOffset, Resumes);
  std::string Text;
  {
    py::gil_scoped_release Release;
    llvm::json::Array Items;
    for (const ProofResult &R : proveBundle(B, Opts))
      Items.push_back(proofResultToJSON(R));
    Text = llvm::formatv("{0}", llvm::json::Value(std::move(Items)));
  }
  return py::module_::import("json").attr("loads")(Text);
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
      .def_property_readonly("errors",
                             [](const Report &R) {
                               std::vector<Diagnostic> Out;
                               for (const Diagnostic &D : R.Diags)
                                 if (D.Sev == Severity::Error)
                                   Out.push_back(D);
                               return Out;
                             })
      .def_property_readonly("warnings",
                             [](const Report &R) {
                               std::vector<Diagnostic> Out;
                               for (const Diagnostic &D : R.Diags)
                                 if (D.Sev == Severity::Warning)
                                   Out.push_back(D);
                               return Out;
                             })
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
        "entries. The GIL is released during the analysis.");
  M.def("_verify_bundle", &verifyBundleCall);
  M.def("_prove_bundle", &proveBundleCall, py::arg("original"),
        py::arg("frame"), py::arg("break_offset"), py::arg("resumes"),
        py::kw_only(), py::arg("unroll") = 2, py::arg("rlimit") = 2'000'000,
        py::arg("timeout") = 5000, py::arg("assume_no_suppress") = true,
        "_prove_bundle(original, frame, break_offset, resumes, *, unroll=2, "
        "rlimit=2000000, timeout=5000, assume_no_suppress=True) -> list\n\n"
        "Proves the bundle's emitted code objects (docs/prove-cli.md); one "
        "dict per result. The GIL is released during the proof.");
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
