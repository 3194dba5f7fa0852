//===- Listing.h - Disassembly listings (text and JSON) ---------*- C++ -*-===//
//
// Contract: a listing shows one decoded code object the way `python3.11 -m
// dis` does -- one row per code unit instruction (EXTENDED_ARG prefixes as
// their own rows, caches hidden), byte offsets, opnames, arguments with
// resolved names and constants, jump targets, line numbers and an
// ExceptionTable section -- and JSON in the `pyverify dis --format=json`
// contract (docs/json.md). The text of an argument (describeArgument, the
// JSON's "argrepr") is what the code object's version's dis shows: its
// operand kind and texts come from that version's table (VersionOpcodes.h);
// a jump shows its target offset where 3.13's dis shows a label. Output
// depends only on the code object.
//
// Per-instruction annotations (stack depth, block stack) are added by later
// layers through ListingAnnotator, so that one printer serves every
// `pyverify analyze --print=...` view.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_LISTING_H
#define PYVERIFY_BYTECODE_LISTING_H

#include "pyverify/Bytecode/DecodedCode.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
}

namespace pyverify {

/// The keys of a JSON instruction row (docs/json.md), in row order; their
/// names are getRowKeyName's, the one table of them.
enum class RowKey : unsigned {
  Offset,
  Opname,
  Opcode,
  Arg,
  Argrepr,
  Target,
  Line,
  Col,
  EndLine,
  EndCol,
};
constexpr unsigned NumRowKeys = unsigned(RowKey::EndCol) + 1;
/// The set of every row key.
constexpr unsigned AllRowKeys = (1u << NumRowKeys) - 1;
constexpr unsigned rowKeyBit(RowKey K) { return 1u << unsigned(K); }

/// "offset", "opname", ..., "end_col".
llvm::StringRef getRowKeyName(RowKey K);
/// The key named \p Name, if there is one.
std::optional<RowKey> getRowKeyByName(llvm::StringRef Name);

/// Optional per-instruction annotations.
struct ListingAnnotator {
  /// The row keys listingToJSON writes (rowKeyBit of each): a consumer
  /// that reads a few of them (`pyverify analyze --keys=`) is spared
  /// building, printing and parsing the others.
  unsigned RowKeys = AllRowKeys;
  /// Text appended to the row of instruction \p Index (the opcode row).
  llvm::function_ref<std::string(size_t Index)> Text;
  /// Keys added to the JSON object of every row of instruction \p Index
  /// (its EXTENDED_ARG prefix rows included).
  llvm::function_ref<void(size_t Index, llvm::json::Object &)> Json;
  /// Keys added to the code object's JSON object.
  llvm::function_ref<void(llvm::json::Object &)> CodeJson;
  /// Lines printed after the header of the text listing.
  llvm::function_ref<void(llvm::raw_ostream &)> Header;
};

/// The human-readable argument description, as dis's argrepr.
std::string describeArgument(const CodeObject &C, const Instruction &I);

/// Prints the listing of \p D (not its children).
void printListing(llvm::raw_ostream &OS, const DecodedCode &D,
                  const ListingAnnotator *A = nullptr);

/// The JSON object for \p D without "children".
llvm::json::Object listingToJSON(const DecodedCode &D,
                                 const ListingAnnotator *A = nullptr);

/// The JSON tree of \p Root and its nested code objects ("children" in
/// co_consts order), each node built by \p One. A code object shared by
/// several parents (marshal back-references; compile() never does this) is
/// built once; later occurrences are stubs with "duplicate": true and empty
/// instructions, table and children, so the output stays linear in the
/// input. A code object at depth MaxJSONCodeDepth (the root is at 0) is such
/// a stub with "too_deep": true: building, printing and freeing the nested
/// JSON recurse per level (llvm::json), and back-references nest code
/// objects without marshal's 2000-level cap. Every code object written out
/// takes two marshal levels, so a tree without back-references never
/// reaches the limit.
constexpr unsigned MaxJSONCodeDepth = 1000;
llvm::json::Object
codeTreeToJSON(const CodeObject &Root,
               llvm::function_ref<llvm::json::Object(const CodeObject &)> One);
/// The same, where \p Seen holds the code objects already written out
/// (another root of the same file): those are stubs too, so a file whose
/// roots share one chain stays linear.
llvm::json::Object
codeTreeToJSON(const CodeObject &Root,
               llvm::function_ref<llvm::json::Object(const CodeObject &)> One,
               llvm::SmallPtrSetImpl<const CodeObject *> &Seen);

/// A JSON string for bytes that may not be UTF-8 (surrogatepass strings,
/// hostile input): valid UTF-8 passes through, otherwise it is repaired.
std::string jsonSafe(llvm::StringRef S);

} // namespace pyverify

#endif
