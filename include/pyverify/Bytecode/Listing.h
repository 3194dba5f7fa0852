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
#include "pyverify/Support/JSONWriter.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
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
  /// The row keys writeListingJSON writes (rowKeyBit of each): a consumer
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

/// The key of a code object's nested code objects in the JSON (docs/json.md):
/// it sorts before every other key of a code object's JSON, so
/// writeCodeTreeJSON writes it first, before the code object's own members.
constexpr llvm::StringLiteral ChildrenKey = "children";

/// Writes the members of the JSON object for \p D (docs/json.md), but
/// "children", with \p Extra's among them, into the object \p J has open,
/// as it goes: each instruction row is built and written by itself, so
/// memory does not grow with the code object (a tree of rows took 2 GB for
/// a 1 MiB co_code). Every key sorts after ChildrenKey.
void writeListingJSON(llvm::json::OStream &J, const DecodedCode &D,
                      const ListingAnnotator *A = nullptr,
                      llvm::ArrayRef<JSONMember> Extra = {});

/// Writes one code object's members but "children" (writeListingJSON, or a
/// command's own) into the object \p J has open.
using CodeJSONWriter =
    llvm::function_ref<void(llvm::json::OStream &, const CodeObject &)>;

/// Writes the JSON tree of \p Root and its nested code objects ("children"
/// in co_consts order, written first: a code object's own members, and the
/// memory writing them takes, follow once its children are written, so the
/// recursion holds little per level), each node's other members by \p One.
/// A code object shared by several parents (marshal back-references;
/// compile() never does this), or already in \p Seen (written out under
/// another root of the same file), is written once; later occurrences are
/// stubs with "duplicate": true and empty instructions, table and children,
/// so the output stays linear in the input. A code object at depth
/// MaxJSONCodeDepth (the root is at 0) is such a stub with "too_deep": true:
/// writing the nested JSON recurses per level, and back-references nest
/// code objects without marshal's 2000-level cap. Every code object written
/// out takes two marshal levels, so a tree without back-references never
/// reaches the limit.
constexpr unsigned MaxJSONCodeDepth = 1000;
void writeCodeTreeJSON(llvm::json::OStream &J, const CodeObject &Root,
                       CodeJSONWriter One,
                       llvm::SmallPtrSetImpl<const CodeObject *> &Seen);

/// A JSON string for bytes that may not be UTF-8 (surrogatepass strings,
/// hostile input): valid UTF-8 passes through, otherwise it is repaired.
std::string jsonSafe(llvm::StringRef S);

} // namespace pyverify

#endif
