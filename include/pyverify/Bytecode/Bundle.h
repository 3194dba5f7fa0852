//===- Bundle.h - Emitted-code bundles (.pvb) -------------------*- C++ -*-===//
//
// Contract: readBundle() parses a pyverify bundle -- a marshal file holding
// one dict (docs/bundle-format.md):
//
//   {"format": "pyverify-bundle", "version": 1,
//    "python_version": "3.12" (optional: the bytecode's version),
//    "original": <code>, "frame": <code> (optional), "break_offset": int,
//    "frame_break_offset": int (optional: the frame's break instruction),
//    "resumes": [{"code": <code>, "original_offset": int,
//                 "contexts": [{"kind": "with" | "mode", "handler": int,
//                               "stack_index": int}]}],
//    "expect": "ok" | "<check-id>" (optional)}
//
// A missing key, a value of the wrong type, an unknown format or version, a
// negative offset or an unknown context kind is an llvm::Error naming the
// key path (e.g. "resumes[1].contexts[0].handler"). Unknown extra keys are
// ignored so the format can grow. The bundle owns its code objects.
//
// One version per bundle: every code object is decoded as python_version.
// A bundle without the key is read as the version the caller asks for, or
// defaultPythonVersion(); a bundle that names a version without tables, or
// another version than the caller asks for, is an error naming both.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_BUNDLE_H
#define PYVERIFY_BYTECODE_BUNDLE_H

#include "pyverify/Bytecode/CodeObject.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pyverify {

enum class ContextKind : uint8_t { With, Mode };

struct BundleContext {
  ContextKind Kind;
  uint32_t Handler;    ///< Original with-handler byte offset.
  uint32_t StackIndex; ///< Slot of the bound __exit__ in the original.
};

struct BundleResume {
  std::shared_ptr<const CodeObject> Code;
  uint32_t OriginalOffset;
  std::vector<BundleContext> Contexts;
};

struct Bundle {
  std::string Path;
  /// The bytecode version of every code object in the bundle.
  PythonVersion Version = defaultPythonVersion();
  std::shared_ptr<const CodeObject> Original;
  std::shared_ptr<const CodeObject> Frame; ///< May be null.
  uint32_t BreakOffset = 0;
  /// Where the frame's copy of the break instruction is, when the bundle
  /// names it (checked by the consumer: BreakLocation.h).
  std::optional<uint32_t> FrameBreakOffset;
  std::vector<BundleResume> Resumes;
  std::optional<std::string> Expect;
};

constexpr int64_t BundleFormatVersion = 1;

/// \p Asked: the version the caller was told the code is (--python-version),
/// if any.
llvm::Expected<Bundle>
parseBundle(llvm::StringRef Path, llvm::StringRef Bytes,
            std::optional<PythonVersion> Asked = std::nullopt);
llvm::Expected<Bundle>
loadBundle(llvm::StringRef Path,
           std::optional<PythonVersion> Asked = std::nullopt);

} // namespace pyverify

#endif
