//===- CheckFiles.cpp - Running the checks over input files ---------------===//

#include "CheckFiles.h"

#include "pyverify/Check/BundleVerifier.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

using namespace llvm;

namespace pyverify::tool {

Error parseCheckSpecs(CheckOptions &Opts, ArrayRef<std::string> Specs) {
  for (const std::string &Spec : Specs)
    if (Error E = Opts.parseCheckSpec(Spec))
      return E;
  return Error::success();
}

FileOutcome checkFile(const std::string &Path, const CheckOptions &Opts,
                      InputVersions Versions) {
  FileOutcome O;
  O.Report.Path = displayName(Path);
  if (inputKind(Path) == InputKind::Bundle) {
    Expected<Bundle> B = loadBundleInput(Path, Versions);
    if (!B) {
      O.InputError = toString(B.takeError());
      return O;
    }
    O.Report = verifyBundle(*B, Opts);
    O.Targets = bundleTargets(*B);
    O.VersionNote = otherVersionNote(O.Targets);
    return O;
  }
  Expected<CodeFile> F = loadInput(Path, Versions);
  if (!F) {
    O.InputError = toString(F.takeError());
    return O;
  }
  O.Report = verifyCodeFile(*F, Opts, O.Report.Path);
  for (const auto &Root : F->Roots)
    O.Targets.push_back({"", "", Root});
  O.VersionNote = otherVersionNote(O.Targets);
  return O;
}

std::vector<FileOutcome> checkFiles(const std::vector<std::string> &Files,
                                    const CheckOptions &Opts, unsigned Jobs,
                                    InputVersions Versions) {
  std::vector<FileOutcome> Outcomes(Files.size());
  unsigned Threads =
      Jobs == 0 ? hardware_concurrency().compute_thread_count() : Jobs;
  if (Threads <= 1 || Files.size() <= 1) {
    for (size_t I = 0; I < Files.size(); ++I)
      Outcomes[I] = checkFile(Files[I], Opts, Versions);
    return Outcomes;
  }
  ThreadPool Pool(hardware_concurrency(Threads));
  for (size_t I = 0; I < Files.size(); ++I)
    Pool.async([&, I] { Outcomes[I] = checkFile(Files[I], Opts, Versions); });
  Pool.wait();
  return Outcomes;
}

} // namespace pyverify::tool
