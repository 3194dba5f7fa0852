//===- BundleArgs.cpp - Python arguments to code objects and bundles ------===//

#include "BundleArgs.h"
#include "LiveCode.h"

namespace py = pybind11;
using namespace pyverify;

namespace {

const char *typeName(const py::handle &V) { return Py_TYPE(V.ptr())->tp_name; }

ContextKind parseKind(const py::handle &V, const std::string &Where) {
  if (!py::isinstance<py::str>(V))
    throw py::type_error(Where + " must be 'with' or 'mode', not " +
                         typeName(V));
  std::string Kind = V.cast<std::string>();
  if (Kind == "with")
    return ContextKind::With;
  if (Kind == "mode")
    return ContextKind::Mode;
  throw py::value_error(Where + " must be 'with' or 'mode', not '" + Kind +
                        "'");
}

uint32_t offsetArg(const py::handle &V, const std::string &Where) {
  // An int (bool is not an offset); never pybind's internal cast error.
  if (!PyLong_Check(V.ptr()) || PyBool_Check(V.ptr()))
    throw py::type_error(Where + " must be an int, not " + typeName(V));
  long long N = PyLong_AsLongLong(V.ptr());
  if (N == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error(Where + " is out of range");
  }
  if (N < 0 || N > UINT32_MAX)
    throw py::value_error(Where + " is out of range: " + std::to_string(N));
  return uint32_t(N);
}

} // namespace

py::object python::codeOf(const py::handle &Obj, const char *What) {
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

std::shared_ptr<const CodeObject> python::readOrThrow(const py::object &Code,
                                                      bool Recursive) {
  auto C = python::readLiveCode(Code.ptr(), Recursive);
  if (!C)
    throw py::error_already_set();
  return C;
}

Bundle python::buildBundle(const py::object &Original, const py::object &Frame,
                           const py::object &BreakOffset,
                           const py::list &Resumes) {
  Bundle B;
  B.Original = readOrThrow(codeOf(Original, "original"), true);
  B.Path = B.Original->Filename;
  B.Version = B.Original->Version; // live objects: the running version
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
      R.Contexts.push_back({parseKind(C[0], CW + ".kind"),
                            offsetArg(C[1], CW + ".handler"),
                            offsetArg(C[2], CW + ".stack_index")});
    }
    B.Resumes.push_back(std::move(R));
  }
  return B;
}
