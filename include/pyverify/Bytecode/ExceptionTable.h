//===- ExceptionTable.h - The 3.11 exception table --------------*- C++ -*-===//
//
// Contract:
//  * decodeExceptionTable() parses co_exceptiontable strictly: each entry is
//    four varints (start, length, target, depth<<1|lasti) of 6-bit chunks,
//    most significant first; 0x80 is set on an entry's first byte and on no
//    other; a value has at most five chunks; no truncated entry. Offsets in
//    the result are bytes (units * 2), End exclusive -- the form
//    dis._parse_exception_table returns. Malformed bytes are an llvm::Error
//    naming the byte offset in the table. Non-minimal varints (accepted by
//    CPython) are reported through \p NonCanonical when given.
//  * encodeExceptionTable() is the inverse with minimal varints, byte-for-byte
//    what CPython's assembler writes (Python/compile.c, assemble_emit_
//    exception_table_entry).
//  * validateExceptionTable() checks a decoded table against the decoded
//    instructions and co_stacksize and reports each violation as a Finding
//    with its own stable check id (see Checks.def).
//  * flattenExceptionRanges() turns properly nested protected ranges into
//    CPython's canonical flat table: innermost range wins, adjacent runs with
//    the same handler merge; a partial overlap is an llvm::Error naming both.
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_BYTECODE_EXCEPTIONTABLE_H
#define PYVERIFY_BYTECODE_EXCEPTIONTABLE_H

#include "pyverify/Bytecode/InstructionStream.h"
#include "pyverify/Support/Finding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyverify {

struct ExceptionTableEntry {
  uint32_t Start;  ///< Byte offset of the first covered unit.
  uint32_t End;    ///< Byte offset just past the last covered unit.
  uint32_t Target; ///< Byte offset of the handler.
  uint32_t Depth;  ///< Stack height to unwind to.
  bool Lasti;      ///< Push the raising instruction's offset (in units).
  uint32_t TableOffset = 0; ///< Byte offset of the entry in the table.

  bool covers(uint64_t ByteOffset) const {
    return Start <= ByteOffset && ByteOffset < End;
  }
  /// Stack depth at the handler's first instruction.
  uint64_t handlerDepth() const { return uint64_t(Depth) + Lasti + 1; }
  bool sameHandler(const ExceptionTableEntry &O) const {
    return Target == O.Target && Depth == O.Depth && Lasti == O.Lasti;
  }
};

/// Largest value one varint may carry (five 6-bit chunks).
constexpr uint32_t MaxExceptionTableVarint = (1u << 30) - 1;

llvm::Expected<std::vector<ExceptionTableEntry>>
decodeExceptionTable(llvm::StringRef Bytes,
                     std::vector<uint32_t> *NonCanonical = nullptr);

/// Encodes \p Entries (byte offsets, as decoded). Asserts that offsets are
/// even and values fit in a varint: callers validate first.
std::string encodeExceptionTable(llvm::ArrayRef<ExceptionTableEntry> Entries);

/// Appends a Finding per violation to \p Findings. With \p CheckDepths
/// false, exception-table-depth-exceeds-stacksize is left to the caller,
/// which can limit it to live entries (checkExceptionTableDepths).
void validateExceptionTable(llvm::ArrayRef<ExceptionTableEntry> Entries,
                            const InstructionStream &Insts, int64_t StackSize,
                            std::vector<Finding> &Findings,
                            bool CheckDepths = true);

/// exception-table-depth-exceeds-stacksize for the entries \p IsLive
/// accepts: resume functions legitimately keep dead handlers whose depth
/// the (reachable) stack size need not cover.
void checkExceptionTableDepths(llvm::ArrayRef<ExceptionTableEntry> Entries,
                               const InstructionStream &Insts,
                               int64_t StackSize,
                               llvm::function_ref<bool(size_t)> IsLive,
                               std::vector<Finding> &Findings);

/// exception-table-callee-split, for the instructions (indices into
/// \p Insts) \p IsReachable accepts. From 3.13 (CalleeRaiseLookupBefore,
/// VersionTraits.def) an exception raised in a frame an instruction pushed
/// inline (a Python callee: mayRunCalleeFrame, RaiseModel.h) is looked up at
/// the code unit before that instruction, any other at the instruction; the
/// passes look every raise up at the instruction. Reports each instruction
/// where the two lookups find different handlers (or one none): which
/// handler runs then depends on what is called. \p Entries must be
/// validated (lookupHandler's contract). Unreachable instructions never
/// raise, so a rewriter's dead code after a return is not reported.
void checkCalleeLookups(llvm::ArrayRef<ExceptionTableEntry> Entries,
                        const InstructionStream &Insts,
                        llvm::function_ref<bool(size_t)> IsReachable,
                        std::vector<Finding> &Findings);

/// The entry covering the instruction whose opcode unit is at \p Key, found
/// as CPython's lookup does (first entry in order whose range holds the key,
/// stopping at the first entry that starts past it); null when none.
/// \p Entries must be a validated table (sorted, no overlap:
/// validateExceptionTable() finds no error): then that entry is found by a
/// binary search, O(log entries).
const ExceptionTableEntry *
lookupHandler(llvm::ArrayRef<ExceptionTableEntry> Entries, uint64_t Key);

/// A protected range before flattening: Start/End in bytes, End exclusive.
struct ProtectedRange {
  uint32_t Start, End, Target, Depth;
  bool Lasti;
};

llvm::Expected<std::vector<ExceptionTableEntry>>
flattenExceptionRanges(llvm::ArrayRef<ProtectedRange> Ranges);

} // namespace pyverify

#endif
