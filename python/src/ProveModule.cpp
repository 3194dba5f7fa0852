//===- ProveModule.cpp - The pyverify._pyverify_prove extension module ----===//
//
// The prover half of `import pyverify`: _prove_bundle(), behind
// pyverify.prove_bundle(). A module of its own because it links lib/SMT and
// libz3, whose loading would otherwise cost every `import pyverify` about
// 4 ms; the package imports it on the first prove_bundle() call. The bundle
// is read under the GIL (BundleArgs.h); the proof runs with it released.
//
//===----------------------------------------------------------------------===//

#include "BundleArgs.h"

#include "pyverify/SMT/ProofPrinter.h"
#include "pyverify/SMT/Prover.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <pybind11/pybind11.h>

namespace py = pybind11;
using namespace pyverify;
using namespace pyverify::python;

namespace {

/// proveBundle() on a bundle built like verifyBundleCall's; the results as
/// a list of dicts with the keys of `pyverify prove --format=json`
/// (proofResultToJSON, decoded by the json module).
py::list proveBundleCall(const py::object &Original, const py::object &Frame,
                         const py::object &BreakOffset, const py::list &Resumes,
                         long long Unroll, long long Rlimit, long long Timeout,
                         bool AssumeNoSuppress, long long MaxSteps,
                         long long MaxStates, bool Tracing, bool EvalBreaker) {
  if (Unroll < 0 || Unroll > UINT32_MAX)
    throw py::value_error("unroll is out of range: " + std::to_string(Unroll));
  if (Rlimit < 0)
    throw py::value_error("rlimit is out of range: " + std::to_string(Rlimit));
  if (Timeout < 0 || Timeout > UINT32_MAX)
    throw py::value_error("timeout is out of range: " +
                          std::to_string(Timeout));
  if (MaxSteps < 0)
    throw py::value_error("max_steps is out of range: " +
                          std::to_string(MaxSteps));
  if (MaxStates < 0)
    throw py::value_error("max_states is out of range: " +
                          std::to_string(MaxStates));
  ProveOptions Opts;
  Opts.MaxSteps = uint64_t(MaxSteps);
  Opts.MaxStates = uint64_t(MaxStates);
  Opts.Unroll = unsigned(Unroll);
  Opts.Rlimit = uint64_t(Rlimit);
  Opts.TimeoutMs = unsigned(Timeout);
  Opts.AssumeNoSuppress = AssumeNoSuppress;
  Opts.TierTracing = Tracing;
  Opts.TierEvalBreaker = EvalBreaker;
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

} // namespace

PYBIND11_MODULE(_pyverify_prove, M) {
  M.doc() = "pyverify's prover (lib/SMT); use pyverify.prove_bundle().";
  M.def("_prove_bundle", &proveBundleCall, py::arg("original"),
        py::arg("frame"), py::arg("break_offset"), py::arg("resumes"),
        py::kw_only(), py::arg("unroll") = 2, py::arg("rlimit") = 2'000'000,
        py::arg("timeout") = 5000, py::arg("assume_no_suppress") = true,
        py::arg("max_steps") = ProveOptions().MaxSteps,
        py::arg("max_states") = ProveOptions().MaxStates,
        py::arg("tracing") = true, py::arg("eval_breaker") = true,
        "_prove_bundle(original, frame, break_offset, resumes, *, unroll=2, "
        "rlimit=2000000, timeout=5000, assume_no_suppress=True, "
        "max_steps=1000000, max_states=20000, tracing=True, "
        "eval_breaker=True) -> list\n\n"
        "Proves the bundle's emitted code objects (docs/prove-cli.md); one "
        "dict per result. The GIL is released during the proof.");
}
