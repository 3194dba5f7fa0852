//===- InputFiles.cpp - Expanding command-line paths ----------------------===//

#include "InputFiles.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace pyverify::tool;

std::vector<std::string>
pyverify::tool::expandInputs(llvm::ArrayRef<std::string> Paths,
                             llvm::ArrayRef<llvm::StringRef> Extensions,
                             std::vector<std::string> &Missing) {
  std::vector<std::string> Out;
  for (const std::string &P : Paths) {
    if (!llvm::sys::fs::exists(P)) {
      Missing.push_back(P);
      continue;
    }
    if (!llvm::sys::fs::is_directory(P)) {
      Out.push_back(P);
      continue;
    }
    std::error_code EC;
    for (llvm::sys::fs::recursive_directory_iterator It(P, EC), End;
         It != End && !EC; It.increment(EC)) {
      if (It->type() != llvm::sys::fs::file_type::regular_file &&
          It->type() != llvm::sys::fs::file_type::symlink_file)
        continue;
      llvm::StringRef Ext = llvm::sys::path::extension(It->path());
      if (llvm::is_contained(Extensions, Ext) &&
          !llvm::sys::fs::is_directory(It->path()))
        Out.push_back(It->path());
    }
  }
  llvm::sort(Out);
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}
