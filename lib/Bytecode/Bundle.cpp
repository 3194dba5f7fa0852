//===- Bundle.cpp - Emitted-code bundles (.pvb) ---------------------------===//

#include "pyverify/Bytecode/Bundle.h"
#include "pyverify/Bytecode/Marshal.h"
#include "pyverify/Support/InputError.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace pyverify;
using llvm::Expected;

namespace {

llvm::Error bad(const llvm::Twine &Key, const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 ("bundle key '" + Key + "': " + Msg).str());
}

/// A view of a marshal dict with str keys.
class DictView {
public:
  DictView(const DictValue &D, std::string Where)
      : D(D), Where(std::move(Where)) {}

  const Value *find(llvm::StringRef Key) const {
    for (const auto &KV : *D.Items)
      if (const std::string *K = KV.first.getStr(); K && *K == Key)
        return &KV.second;
    return nullptr;
  }
  std::string path(llvm::StringRef Key) const {
    return Where.empty() ? Key.str() : Where + "." + Key.str();
  }
  Expected<const Value *> get(llvm::StringRef Key) const {
    if (const Value *V = find(Key))
      return V;
    return bad(path(Key), "missing");
  }
  Expected<int64_t> getInt(llvm::StringRef Key) const {
    auto V = get(Key);
    if (!V)
      return V.takeError();
    const int64_t *I = (*V)->getIf<int64_t>();
    if (!I || (*V)->is<bool>())
      // (The key may be read before the bundle's version is: the value is
      // shown as the default version's repr() shows it.)
      return bad(path(Key), "expected an int, found " +
                                (*V)->repr(defaultPythonVersion()));
    return *I;
  }
  Expected<uint32_t> getOffset(llvm::StringRef Key) const {
    auto I = getInt(Key);
    if (!I)
      return I.takeError();
    if (*I < 0 || *I > int64_t(UINT32_MAX))
      return bad(path(Key), llvm::formatv("offset {0} out of range", *I));
    return uint32_t(*I);
  }
  Expected<std::string> getStr(llvm::StringRef Key) const {
    auto V = get(Key);
    if (!V)
      return V.takeError();
    if (const std::string *S = (*V)->getStr())
      return *S;
    return bad(path(Key), "expected a str");
  }
  Expected<std::shared_ptr<const CodeObject>>
  getCode(llvm::StringRef Key) const {
    auto V = get(Key);
    if (!V)
      return V.takeError();
    if (auto *C = (*V)->getIf<CodeValue>())
      return C->Code;
    return bad(path(Key), "expected a code object");
  }
  Expected<const std::vector<Value> *> getList(llvm::StringRef Key) const {
    auto V = get(Key);
    if (!V)
      return V.takeError();
    if (auto *S = (*V)->getIf<SequenceValue>();
        S && (S->Kind == SequenceKind::List || S->Kind == SequenceKind::Tuple))
      return S->Items.get();
    return bad(path(Key), "expected a list");
  }

private:
  const DictValue &D;
  std::string Where;
};

Expected<DictView> asDict(const Value &V, std::string Where) {
  if (auto *D = V.getIf<DictValue>())
    return DictView(*D, std::move(Where));
  return bad(Where, "expected a dict");
}

} // namespace

/// The optional frame_break_offset.
static llvm::Error readFrameBreak(const DictView &Top, Bundle &B) {
  const Value *FB = Top.find("frame_break_offset");
  if (!FB || FB->is<NoneValue>())
    return llvm::Error::success();
  auto Off = Top.getOffset("frame_break_offset");
  if (!Off)
    return Off.takeError();
  B.FrameBreakOffset = *Off;
  return llvm::Error::success();
}

/// The bundle's python_version, else \p Asked, else the default; an error
/// for a version without tables or one that \p Asked contradicts.
static Expected<PythonVersion>
bundleVersion(const DictView &Top, std::optional<PythonVersion> Asked) {
  const Value *PV = Top.find("python_version");
  if (!PV || PV->is<NoneValue>())
    return Asked.value_or(defaultPythonVersion());
  auto Name = Top.getStr("python_version");
  if (!Name)
    return Name.takeError();
  std::optional<PythonVersion> V = parsePythonVersion(*Name);
  if (!V)
    return bad("python_version", "'" + *Name +
                                     "' has no opcode tables (pyverify reads " +
                                     pythonVersionList() + ")");
  if (Asked && *Asked != *V)
    return bad("python_version",
               llvm::formatv("the bundle is CPython {0} bytecode, but "
                             "--python-version={1} was given",
                             pythonVersionName(*V), pythonVersionName(*Asked))
                   .str());
  return *V;
}

/// The bundle's dict, its code objects read as the bundle's version
/// (\p Version, set).
static Expected<Value> readBundleValue(llvm::StringRef Bytes,
                                       std::optional<PythonVersion> Asked,
                                       PythonVersion &Version) {
  auto V = readMarshal(Bytes);
  if (!V)
    return V.takeError();
  auto Top = asDict(*V, "");
  if (!Top)
    return makeInputError(0, "a bundle is a marshalled dict");
  auto Ver = bundleVersion(*Top, Asked);
  if (!Ver)
    return Ver.takeError();
  Version = *Ver;
  if (Version == defaultPythonVersion())
    return V;
  // The code objects were read as the default version: read them again as
  // the bundle's.
  return readMarshal(Bytes, 0, Version);
}

Expected<Bundle> pyverify::parseBundle(llvm::StringRef Path,
                                       llvm::StringRef Bytes,
                                       std::optional<PythonVersion> Asked) {
  auto Fail = [&](llvm::Error E) {
    return addInputContext(std::move(E), Path);
  };
  Bundle B;
  B.Path = Path.str();
  auto V = readBundleValue(Bytes, Asked, B.Version);
  if (!V)
    return Fail(V.takeError());
  auto Top = asDict(*V, "");
  if (!Top)
    return Fail(makeInputError(0, "a bundle is a marshalled dict"));
  auto Format = Top->getStr("format");
  if (!Format)
    return Fail(Format.takeError());
  if (*Format != "pyverify-bundle")
    return Fail(
        bad("format", "expected 'pyverify-bundle', found '" + *Format + "'"));
  auto Version = Top->getInt("version");
  if (!Version)
    return Fail(Version.takeError());
  if (*Version != BundleFormatVersion)
    return Fail(bad("version", llvm::formatv("version {0} is not supported "
                                             "(this pyverify reads {1})",
                                             *Version, BundleFormatVersion)));
  auto Original = Top->getCode("original");
  if (!Original)
    return Fail(Original.takeError());
  B.Original = *Original;
  if (const Value *F = Top->find("frame"); F && !F->is<NoneValue>()) {
    auto Frame = Top->getCode("frame");
    if (!Frame)
      return Fail(Frame.takeError());
    B.Frame = *Frame;
  }
  auto Break = Top->getOffset("break_offset");
  if (!Break)
    return Fail(Break.takeError());
  B.BreakOffset = *Break;
  if (llvm::Error E = readFrameBreak(*Top, B))
    return Fail(std::move(E));
  auto Resumes = Top->getList("resumes");
  if (!Resumes)
    return Fail(Resumes.takeError());
  for (size_t I = 0; I < (*Resumes)->size(); ++I) {
    std::string Where = "resumes[" + std::to_string(I) + "]";
    auto R = asDict((**Resumes)[I], Where);
    if (!R)
      return Fail(R.takeError());
    BundleResume Res;
    auto Code = R->getCode("code");
    if (!Code)
      return Fail(Code.takeError());
    Res.Code = *Code;
    auto Off = R->getOffset("original_offset");
    if (!Off)
      return Fail(Off.takeError());
    Res.OriginalOffset = *Off;
    auto Ctxs = R->getList("contexts");
    if (!Ctxs)
      return Fail(Ctxs.takeError());
    for (size_t K = 0; K < (*Ctxs)->size(); ++K) {
      auto C =
          asDict((**Ctxs)[K], Where + ".contexts[" + std::to_string(K) + "]");
      if (!C)
        return Fail(C.takeError());
      auto Kind = C->getStr("kind");
      if (!Kind)
        return Fail(Kind.takeError());
      BundleContext BC;
      if (*Kind == "with")
        BC.Kind = ContextKind::With;
      else if (*Kind == "mode")
        BC.Kind = ContextKind::Mode;
      else
        return Fail(bad(C->path("kind"),
                        "expected 'with' or 'mode', found '" + *Kind + "'"));
      auto H = C->getOffset("handler");
      if (!H)
        return Fail(H.takeError());
      BC.Handler = *H;
      auto SI = C->getOffset("stack_index");
      if (!SI)
        return Fail(SI.takeError());
      BC.StackIndex = *SI;
      Res.Contexts.push_back(BC);
    }
    B.Resumes.push_back(std::move(Res));
  }
  if (const Value *E = Top->find("expect"); E && !E->is<NoneValue>()) {
    auto Expect = Top->getStr("expect");
    if (!Expect)
      return Fail(Expect.takeError());
    B.Expect = *Expect;
  }
  return B;
}

Expected<Bundle> pyverify::loadBundle(llvm::StringRef Path,
                                      std::optional<PythonVersion> Asked) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "%s: cannot read: %s",
                                   Path.str().c_str(),
                                   Buf.getError().message().c_str());
  return parseBundle(Path, (*Buf)->getBuffer(), Asked);
}
