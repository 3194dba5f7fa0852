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
#include "pyverify/Check/ResumePairing.h"
#include "pyverify/Check/Verifier.h"
#include "pyverify/Support/JSONWriter.h"
#include "pyverify/Support/SpareBlock.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <functional>
#include <memory>
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
    {
      StringOStream OS(S);
      for (const Diagnostic &D : Diags)
        printDiagnostic(OS, D);
      OS << "pyverify: " << CodeObjects
         << " code object(s): " << count(Severity::Error) << " error(s), "
         << count(Severity::Warning) << " warning(s), "
         << count(Severity::Remark) << " remark(s)\n";
    }
    return S;
  }

  /// Written one diagnostic at a time.
  std::string json() const {
    llvm::json::Value Summary =
        llvm::json::Object{{"code_objects", int64_t(CodeObjects)},
                           {"errors", int64_t(count(Severity::Error))},
                           {"warnings", int64_t(count(Severity::Warning))},
                           {"remarks", int64_t(count(Severity::Remark))}};
    auto Items = [&](llvm::json::OStream &J) {
      writeDiagnosticsJSON(J, Diags);
    };
    std::string S;
    {
      StringOStream OS(S);
      llvm::json::OStream J(OS);
      JSONMember Members[] = {{"diagnostics", Items},
                              {"summary", nullptr, &Summary}};
      writeJSONObject(J, Members);
    }
    return S;
  }
};

/// The spec of a `checks` argument (not None): a str, or the entries of an
/// iterable joined with commas.
std::string checkSpec(const py::handle &Checks) {
  if (py::isinstance<py::str>(Checks))
    return Checks.cast<std::string>();
  if (!py::isinstance<py::iterable>(Checks))
    throw py::type_error(
        std::string("checks must be a str or an iterable of str, not ") +
        Py_TYPE(Checks.ptr())->tp_name);
  std::string Spec;
  size_t I = 0;
  for (py::handle Item : Checks) {
    if (!py::isinstance<py::str>(Item))
      throw py::type_error("checks[" + std::to_string(I) +
                           "] must be a str, not " +
                           Py_TYPE(Item.ptr())->tp_name);
    if (!Spec.empty())
      Spec += ',';
    Spec += Item.cast<std::string>();
    ++I;
  }
  return Spec;
}

/// The CheckOptions of a `checks` argument. None gives the default set,
/// built once; a spec is parsed once per thread and reused while calls pass
/// the same spec (a compiler loop passes one spec throughout). Shared, so a
/// verify() re-entered from a constant's __repr__ with another spec cannot
/// change the options of the call it interrupted.
/// The default options (checks=None), built once and never freed.
const std::shared_ptr<const CheckOptions> &defaultChecks() {
  static const auto Default = std::make_shared<const CheckOptions>();
  return Default;
}

std::shared_ptr<const CheckOptions> parseChecks(const py::handle &Checks) {
  if (Checks.is_none())
    return defaultChecks();
  std::string Spec = checkSpec(Checks);
  struct Parsed {
    std::string Spec;
    std::shared_ptr<const CheckOptions> Opts;
  };
  Parsed &Last = threadObject<Parsed, Parsed>();
  if (Last.Opts && Last.Spec == Spec)
    return Last.Opts;
  auto O = std::make_shared<CheckOptions>();
  if (llvm::Error E =
          O->parseCheckSpec(Spec, {"checks", "pyverify.check_ids()"}))
    throw py::value_error(llvm::toString(std::move(E)));
  Last.Spec = std::move(Spec);
  Last.Opts = std::move(O);
  return Last.Opts;
}

/// Code size (bytes of co_code over the tree) from which verify() releases
/// the GIL.
constexpr size_t ReleaseGilFromBytes = 512;

/// Releases the GIL for its lifetime when asked to (pybind11's
/// gil_scoped_release also looks up its internals on every use).
class GilRelease {
public:
  explicit GilRelease(bool Release)
      : State(Release ? PyEval_SaveThread() : nullptr) {}
  ~GilRelease() {
    if (State)
      PyEval_RestoreThread(State);
  }
  GilRelease(const GilRelease &) = delete;
  GilRelease &operator=(const GilRelease &) = delete;

private:
  PyThreadState *State;
};

/// The reader verify() reads a live code object with: the thread's own,
/// whose buffers are reused from call to call (LiveCodeReader), or a fresh
/// one when the thread's is in use -- verify() re-entered on this thread
/// from a constant's __repr__ during the read. Ends the read (clear()) when
/// it goes out of scope.
class ThreadReader {
public:
  ThreadReader() {
    Slot &S = threadObject<Slot, ThreadReader>();
    if (!S.InUse) {
      S.InUse = true;
      Lent = &S;
      R = &S.Reader;
    } else {
      Own = std::make_unique<LiveCodeReader>();
      R = Own.get();
    }
  }
  ~ThreadReader() {
    R->clear();
    if (Lent)
      Lent->InUse = false;
  }
  ThreadReader(const ThreadReader &) = delete;
  ThreadReader &operator=(const ThreadReader &) = delete;

  LiveCodeReader &operator*() { return *R; }
  LiveCodeReader *operator->() { return R; }

private:
  struct Slot {
    LiveCodeReader Reader;
    bool InUse = false;
  };
  Slot *Lent = nullptr;
  std::unique_ptr<LiveCodeReader> Own;
  LiveCodeReader *R;
};

/// verify() on a code object: read it (GIL held), then decode and check
/// it with the GIL released unless it is small.
Report verifyCodeArg(const py::handle &CodeArg, const CheckOptions &Opts,
                     bool Recursive) {
  py::object Code = codeOf(CodeArg, "verify() argument");
  ThreadReader Reader;
  if (!Reader->read(Code.ptr(), Recursive))
    throw py::error_already_set();
  const CodeObject &Root = Reader->root();
  Report R;
  // Releasing and taking back the GIL costs two thread hand-offs when
  // other threads run Python: more than verifying a small code object.
  // Keep it for those (a few microseconds); release it for the rest.
  size_t Bytes = 0;
  if (Recursive)
    forEachCodeObject(
        Root, [&](const CodeObject &C, unsigned) { Bytes += C.Code.size(); });
  else
    Bytes = Root.Code.size();
  GilRelease Release(Bytes >= ReleaseGilFromBytes);
  if (Recursive) {
    CodeFile F;
    F.Path = Root.Filename;
    // The file does not own the root (the aliasing constructor with no
    // owner): the reader keeps it until the end of the call.
    F.Roots.emplace_back(std::shared_ptr<const CodeObject>(), &Root);
    FileReport FR = verifyCodeFile(F, Opts);
    R.Diags = std::move(FR.Diags);
    R.CodeObjects = FR.CodeObjects;
  } else {
    DecodedCode D = DecodedCode::decode(Root);
    for (const Finding &Fd : verifyCode(D, Opts))
      R.Diags.push_back(makeDiagnostic(Fd, D, Root.Filename, 0));
    if (R.Diags.size() > 1) // Nothing to order otherwise (nearly every call).
      sortDiagnostics(R.Diags);
    R.CodeObjects = 1;
  }
  return R;
}

/// Clean reports of up to this many code objects are shared.
constexpr uint32_t CleanReportCacheSize = 64;

/// The Python object of a Report. Reports are immutable, so a clean one
/// (no diagnostic: nearly every call) is one shared object per code-object
/// count, made once; only reports with diagnostics are built per call.
/// Called with the GIL held, which guards the cache.
PyObject *reportObject(Report &&R) {
  if (R.Diags.empty() && R.CodeObjects < CleanReportCacheSize) {
    static PyObject *Clean[CleanReportCacheSize]; // Never freed.
    PyObject *&Slot = Clean[R.CodeObjects];
    if (!Slot)
      Slot = py::cast(std::move(R)).release().ptr();
    Py_INCREF(Slot);
    return Slot;
  }
  return py::cast(std::move(R)).release().ptr();
}

Report verify(const py::object &Obj, const py::object &Checks, bool Recursive) {
  auto Opts = parseChecks(Checks);
  return verifyCodeArg(Obj, *Opts, Recursive);
}

/// Sets the Python error for the C++ exception being handled, as a
/// pybind11-bound function would (module-local translators, then global
/// ones, which end with pybind11's default translation).
void setErrorFromCurrentException() {
  auto Apply = [](auto &Translators) {
    std::exception_ptr Last = std::current_exception();
    for (auto &Translate : Translators) {
      try {
        Translate(Last);
        return true;
      } catch (...) {
        Last = std::current_exception();
      }
    }
    return false;
  };
  if (Apply(py::detail::get_local_internals().registered_exception_translators))
    return;
  if (Apply(py::detail::get_internals().registered_exception_translators))
    return;
  PyErr_SetString(PyExc_SystemError,
                  "Exception escaped from default exception translator!");
}

/// pybind11's binding of verify(): kept for the calls the fast entry point
/// below does not handle, which it forwards here, so that they convert
/// arguments and fail exactly as before.
PyObject *BoundVerify = nullptr;
PyObject *ChecksName = nullptr;
PyObject *RecursiveName = nullptr;

/// A keyword name the caller did not intern (call sites do).
bool isKeyword(PyObject *Name, const char *Text) {
  return PyUnicode_Check(Name) &&
         PyUnicode_CompareWithASCIIString(Name, Text) == 0;
}

/// verify(code, *, checks=None, recursive=True) as a vectorcall function:
/// pybind11's dispatcher builds an argument tuple and a keyword dict, looks
/// each keyword up by a new string, and allocates the Report it returns,
/// which costs as much as reading a small code object. The usual call --
/// one positional argument, `checks` and `recursive` by keyword, recursive
/// a bool -- is handled here; any other goes to the pybind11 binding.
PyObject *verifyFast(PyObject *, PyObject *const *Args, Py_ssize_t NArgs,
                     PyObject *KwNames) {
  Py_ssize_t NKw = KwNames ? PyTuple_GET_SIZE(KwNames) : 0;
  PyObject *Checks = Py_None;
  bool Recursive = true;
  bool Handled = NArgs == 1;
  for (Py_ssize_t I = 0; Handled && I < NKw; ++I) {
    PyObject *Name = PyTuple_GET_ITEM(KwNames, I);
    PyObject *Val = Args[NArgs + I];
    bool IsRecursive = Name == RecursiveName, IsChecks = Name == ChecksName;
    if (!IsRecursive && !IsChecks) {
      IsRecursive = isKeyword(Name, "recursive");
      IsChecks = isKeyword(Name, "checks");
    }
    if (IsChecks)
      Checks = Val;
    else if (IsRecursive && (Val == Py_True || Val == Py_False))
      Recursive = Val == Py_True;
    else
      Handled = false;
  }
  if (!Handled)
    return PyObject_Vectorcall(BoundVerify, Args, size_t(NArgs), KwNames);
  try {
    // checks=None (nearly every call): the default options live as long as
    // the process, so no reference to them is taken.
    if (Checks == Py_None)
      return reportObject(verifyCodeArg(Args[0], *defaultChecks(), Recursive));
    auto Opts = parseChecks(Checks);
    return reportObject(verifyCodeArg(Args[0], *Opts, Recursive));
  } catch (py::error_already_set &E) {
    E.restore();
  } catch (...) {
    setErrorFromCurrentException();
  }
  return nullptr;
}

Report verifyBundleCall(const py::object &Original, const py::object &Frame,
                        const py::object &BreakOffset, const py::list &Resumes,
                        const py::object &Checks) {
  auto Opts = parseChecks(Checks);
  Bundle B = buildBundle(Original, Frame, BreakOffset, Resumes);
  Report Rep;
  {
    py::gil_scoped_release Release;
    FileReport FR = pyverify::verifyBundle(B, *Opts);
    Rep.Diags = std::move(FR.Diags);
    Rep.CodeObjects = FR.CodeObjects;
  }
  return Rep;
}

/// The claims of \p P as _pair_resumes returns them.
py::dict pairedBundleDict(const PairedBundle &P) {
  py::list Resumes;
  for (const PairedResume &R : P.Resumes) {
    py::list Ctxs;
    for (const BundleContext &C : R.Contexts) {
      py::dict D;
      D["kind"] = C.Kind == ContextKind::Mode ? "mode" : "with";
      D["handler"] = C.Handler;
      D["stack_index"] = C.StackIndex;
      Ctxs.append(D);
    }
    py::dict D;
    D["global"] = R.Global;
    D["original_offset"] = R.OriginalOffset;
    D["contexts"] = Ctxs;
    Resumes.append(D);
  }
  py::dict Out;
  Out["break_offset"] = P.BreakOffset;
  Out["resumes"] = Resumes;
  return Out;
}

/// _pair_resumes(original, frame) -> {"break_offset": int, "resumes":
/// [{"global", "original_offset", "contexts": [{"kind", "handler",
/// "stack_index"}]}]}: the bundle claims ResumePairing.h derives; ValueError
/// with its reason when it cannot.
py::dict pairResumesCall(const py::object &Original, const py::object &Frame) {
  auto O = readOrThrow(codeOf(Original, "original"), false);
  auto F = readOrThrow(codeOf(Frame, "frame"), false);
  llvm::Expected<PairedBundle> P = [&] {
    py::gil_scoped_release Release;
    return pairResumes(*O, *F);
  }();
  if (!P)
    throw py::value_error(llvm::toString(P.takeError()));
  return pairedBundleDict(*P);
}

/// _pair_resume_offsets(original, offsets) -> the same dict ("global" empty)
/// for resume offsets a rewriter reported (pairResumeOffsets).
py::dict pairResumeOffsetsCall(const py::object &Original,
                               const std::vector<uint32_t> &Offsets) {
  auto O = readOrThrow(codeOf(Original, "original"), false);
  std::vector<PairedResume> Resumes;
  for (uint32_t Off : Offsets)
    Resumes.push_back({"", Off, {}});
  llvm::Expected<PairedBundle> P = [&] {
    py::gil_scoped_release Release;
    return pairResumeOffsets(*O, std::move(Resumes));
  }();
  if (!P)
    throw py::value_error(llvm::toString(P.takeError()));
  return pairedBundleDict(*P);
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

/// Benchmark hook (bench_python_module.py): the fastest of \p Repeat runs of
/// the two parts of verify(code, recursive=False) done in C++, in
/// nanoseconds: reading the live code object (with the thread's reader,
/// and ending the read), and the check proper
/// (DecodedCode::decode and verifyCode with the default checks). The
/// clock's own cost (the fastest of a few back-to-back reads) is taken off
/// each timed interval, as the bench takes its timer's off verify(). What
/// verify() costs beyond their sum is the binding's: the call, the
/// arguments, the Report.
py::tuple timePhases(const py::object &Obj, unsigned Repeat) {
  using Clock = std::chrono::steady_clock;
  py::object Code = codeOf(Obj, "code");
  auto Opts = parseChecks(py::none());
  Clock::duration Tick = Clock::duration::max();
  for (unsigned I = 0; I < 16; ++I) {
    Clock::time_point A = Clock::now();
    Tick = std::min(Tick, Clock::now() - A);
  }
  Clock::duration Read = Clock::duration::max(), Check = Read;
  size_t Findings = 0;
  for (unsigned I = 0; I < Repeat; ++I) {
    Clock::time_point T0 = Clock::now(), T1, T2;
    {
      ThreadReader Reader;
      if (!Reader->read(Code.ptr(), /*Recursive=*/false))
        throw py::error_already_set();
      T1 = Clock::now();
      DecodedCode D = DecodedCode::decode(Reader->root());
      Findings += verifyCode(D, *Opts).size();
      T2 = Clock::now();
    }
    Clock::time_point T3 = Clock::now();
    // Read spans two intervals (T0-T1, T2-T3), the check one.
    Read = std::min(Read, (T1 - T0) + (T3 - T2) - 2 * Tick);
    Check = std::min(Check, T2 - T1 - Tick);
  }
  auto Ns = [](Clock::duration D) {
    return std::max<int64_t>(
        0, std::chrono::duration_cast<std::chrono::nanoseconds>(D).count());
  };
  return py::make_tuple(Ns(Read), Ns(Check), Findings);
}

/// Test hook: compares the live reader's CodeObject tree for \p Code with
/// what the marshal reader makes of \p Marshalled (marshal.dumps(code)).
/// Returns None when every field of every nested code object agrees, else
/// the first difference. \p Reuse: read the root with the thread's reader,
/// as verify() does.
py::object compareWithMarshal(const py::object &Code,
                              const py::bytes &Marshalled, bool Reuse) {
  // With Reuse, into the buffers and payloads the previous reads left.
  std::optional<ThreadReader> Reader;
  std::shared_ptr<const CodeObject> Live;
  if (Reuse) {
    Reader.emplace();
    if (!(*Reader)->read(codeOf(Code, "code").ptr(), /*Recursive=*/true))
      throw py::error_already_set();
    Live = std::shared_ptr<const CodeObject>(std::shared_ptr<void>(),
                                             &(*Reader)->root());
  } else {
    Live = readOrThrow(codeOf(Code, "code"), true);
  }
  // The marshal is the running interpreter's, as the live object is: read
  // as that version (the constants' reprs below are the version's).
  llvm::Expected<Value> V =
      readMarshal(std::string_view(Marshalled), 0, Live->Version);
  if (!V)
    throw py::value_error(llvm::toString(V.takeError()));
  const CodeObject *Ref = V->getCode();
  if (!Ref)
    throw py::value_error("not a marshalled code object");
  std::string Diff;
  std::function<bool(const CodeObject &, const CodeObject &)> Same =
      [&](const CodeObject &A, const CodeObject &B) {
        auto Fail = [&](const char *Field) {
          Diff = A.QualName.str() + ": " + Field + " differs";
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
          if (CA ? !Same(*CA, *CB)
                 : A.Consts[I].repr(A.Version) != B.Consts[I].repr(B.Version)) {
            if (Diff.empty())
              Diff = A.QualName.str() + ": co_consts[" + std::to_string(I) +
                     "] differs: " + A.Consts[I].repr(A.Version) + " vs " +
                     B.Consts[I].repr(B.Version);
            return false;
          }
        }
        return true;
      };
  if (Same(*Live, *Ref))
    return py::none();
  return py::str(Diff);
}

/// A JSON value as the Python object json.loads makes of it.
py::object toPython(const llvm::json::Value &V) {
  switch (V.kind()) {
  case llvm::json::Value::Null:
    return py::none();
  case llvm::json::Value::Boolean:
    return py::bool_(*V.getAsBoolean());
  case llvm::json::Value::Number:
    if (llvm::Optional<int64_t> I = V.getAsInteger())
      return py::int_(*I);
    return py::float_(*V.getAsNumber());
  case llvm::json::Value::String:
    return py::str(V.getAsString()->str());
  case llvm::json::Value::Array: {
    py::list L;
    for (const llvm::json::Value &E : *V.getAsArray())
      L.append(toPython(E));
    return std::move(L);
  }
  case llvm::json::Value::Object: {
    py::dict D;
    for (const auto &KV : *V.getAsObject())
      D[py::str(KV.first.str())] = toPython(KV.second);
    return std::move(D);
  }
  }
  llvm_unreachable("unknown JSON kind");
}

py::object noneIfEmpty(const std::string &S) {
  return S.empty() ? py::object(py::none()) : py::object(py::str(S));
}

/// The Diagnostic and Note types. Their attributes are the keys of the
/// `pyverify check --format=json` item (docs/json.md), under the same names
/// and with the same values; a key the JSON leaves out is None here
/// (not_run: an empty list). qualname and first_lineno are deprecated
/// aliases of code and firstlineno.
void bindNote(py::module_ &M) {
  py::class_<DiagnosticNote>(M, "Note",
                             "A note attached to a diagnostic (e.g. a step "
                             "of a witness path); its attributes are the "
                             "keys of a note in the JSON.")
      .def_readonly("offset", &DiagnosticNote::Offset)
      .def_property_readonly(
          "line", [](const DiagnosticNote &N) { return optionalInt(N.Line); })
      .def_property_readonly(
          "col", [](const DiagnosticNote &N) { return optionalInt(N.Col); })
      .def_readonly("message", &DiagnosticNote::Message)
      .def("to_dict",
           [](const DiagnosticNote &N) {
             py::dict D;
             D["offset"] = N.Offset;
             D["line"] = optionalInt(N.Line);
             D["col"] = optionalInt(N.Col);
             D["message"] = N.Message;
             return D;
           })
      .def("__repr__", [](const DiagnosticNote &N) {
        return "<pyverify.Note at offset " + std::to_string(N.Offset) + ": " +
               N.Message + ">";
      });
}

void bindDiagnostic(py::module_ &M) {
  bindNote(M);
  auto Deprecated = [](const char *Old, const char *New) {
    std::string Msg = std::string("pyverify.Diagnostic.") + Old +
                      " is deprecated: use ." + New +
                      " (the JSON's name, docs/json.md)";
    if (PyErr_WarnEx(PyExc_DeprecationWarning, Msg.c_str(), 1) < 0)
      throw py::error_already_set();
  };
  py::class_<Diagnostic>(M, "Diagnostic",
                         "One finding, placed in its code object. Its "
                         "attributes are the keys of its `pyverify check "
                         "--format=json` item (to_dict()).")
      .def_property_readonly(
          "check",
          [](const Diagnostic &D) { return getCheckName(D.Check).str(); })
      .def_property_readonly(
          "severity",
          [](const Diagnostic &D) { return getSeverityName(D.Sev).str(); })
      .def_property_readonly(
          "certainty",
          [](const Diagnostic &D) { return getCertaintyName(D.Cert).str(); },
          "'definite', or 'possible' when the finding rests on a merged "
          "fact (docs/json.md).")
      .def_readonly("file", &Diagnostic::File)
      .def_property_readonly(
          "source",
          [](const Diagnostic &D) { return noneIfEmpty(D.SourceFile); },
          "co_filename when it is an existing file other than file, else "
          "None.")
      .def_property_readonly(
          "target", [](const Diagnostic &D) { return noneIfEmpty(D.Target); },
          "Bundles: 'original', 'frame', 'resume:<i>'; else None.")
      .def_readonly("code", &Diagnostic::QualName,
                    "The code object's co_qualname.")
      .def_readonly("code_index", &Diagnostic::CodeIndex)
      .def_readonly("firstlineno", &Diagnostic::FirstLineNo)
      .def_readonly("offset", &Diagnostic::Offset)
      .def_property_readonly(
          "instruction",
          [](const Diagnostic &D) { return noneIfEmpty(D.Instruction); })
      .def_property_readonly(
          "line", [](const Diagnostic &D) { return optionalInt(D.Line); })
      .def_property_readonly(
          "col", [](const Diagnostic &D) { return optionalInt(D.Col); })
      .def_readonly("message", &Diagnostic::Message)
      .def_readonly("notes", &Diagnostic::Notes)
      .def_property_readonly(
          "not_run",
          [](const Diagnostic &D) {
            std::vector<std::string> Ids;
            for (CheckId Id : D.NotRun)
              Ids.push_back(getCheckName(Id).str());
            return Ids;
          },
          "checks-not-run / analysis-limit: the ids of the enabled checks "
          "that did not run on this code object (else empty).")
      .def_property_readonly("qualname",
                             [Deprecated](const Diagnostic &D) {
                               Deprecated("qualname", "code");
                               return D.QualName;
                             })
      .def_property_readonly("first_lineno",
                             [Deprecated](const Diagnostic &D) {
                               Deprecated("first_lineno", "firstlineno");
                               return D.FirstLineNo;
                             })
      .def("to_dict",
           [](const Diagnostic &D) {
             return toPython(llvm::json::Value(diagnosticToJSON(D)));
           })
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
}

} // namespace

PYBIND11_MODULE(_pyverify, M) {
  M.doc() = "Static verification of CPython code objects (native part): "
            "live code objects are read as the bytecode of the interpreter "
            "the module is built for (bytecode_version).";
  M.attr("bytecode_version") =
      std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION);

  bindDiagnostic(M);

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

  // verify(): pybind11's binding, kept unexposed for the calls verifyFast
  // forwards, and the vectorcall function that `verify` names.
  BoundVerify =
      py::cpp_function(
          &verify, py::name("verify"), py::scope(M), py::sibling(py::none()),
          py::arg("code"), py::kw_only(), py::arg("checks") = py::none(),
          py::arg("recursive") = true,
          "verify(code, *, checks=None, recursive=True) -> Report\n\n"
          "Runs every enabled check on a live code object (or a function's "
          "__code__) and, with recursive, on every nested code object.\n"
          "checks: a spec like the CLI's --checks ('-*,stack-*') or a list of "
          "entries. The GIL is released during the analysis (kept for code "
          "under 512 bytes of co_code in all, where a hand-off would cost "
          "more than the analysis).")
          .release()
          .ptr();
  ChecksName = PyUnicode_InternFromString("checks");
  RecursiveName = PyUnicode_InternFromString("recursive");
  if (!ChecksName || !RecursiveName)
    throw py::error_already_set();
  // The method definition and its docstring (pybind11's: the signature
  // line, then the text above) live as long as the process, like the
  // module.
  static PyMethodDef VerifyDef = {
      "verify",
      reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&verifyFast)),
      METH_FASTCALL | METH_KEYWORDS,
      (new std::string(py::str(py::handle(BoundVerify).attr("__doc__"))))
          ->c_str()};
  PyObject *Verify =
      PyCFunction_NewEx(&VerifyDef, nullptr, M.attr("__name__").ptr());
  if (!Verify)
    throw py::error_already_set();
  M.add_object("verify", py::reinterpret_steal<py::object>(Verify));
  M.def("_time_phases", &timePhases, py::arg("code"), py::arg("repeat"));
  M.def("_verify_bundle", &verifyBundleCall);
  M.def("_pair_resumes", &pairResumesCall, py::arg("original"),
        py::arg("frame"));
  M.def("_pair_resume_offsets", &pairResumeOffsetsCall, py::arg("original"),
        py::arg("offsets"));
  M.def(
      "_resume_globals",
      [](const py::object &Frame) {
        return resumeGlobalsOf(*readOrThrow(codeOf(Frame, "frame"), false));
      },
      py::arg("frame"));
  M.def("_compare_with_marshal", &compareWithMarshal, py::arg("code"),
        py::arg("marshalled"), py::kw_only(), py::arg("reuse") = false);
  M.def("_check_ids", [] {
    py::list Out;
    for (const CheckInfo &C : allChecks())
      Out.append(py::make_tuple(C.Name.str(),
                                getSeverityName(C.DefaultSeverity).str(),
                                C.EnabledByDefault, C.Summary.str()));
    return Out;
  });
}
