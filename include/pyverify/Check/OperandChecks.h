//===- OperandChecks.h - Arguments against what they index ------*- C++ -*-===//
//
// Contract: checkOperands() reports operand-out-of-range, once per broken
// rule, for every decoded instruction of \p D (dead code too: the check
// needs no CFG, and compiled code breaks none of these anywhere) whose
// argument breaks one of its version's OperandRules.def rules against the
// code object: a constant, name or localsplus index past its table, a plain
// local used as a cell, a COPY_FREE_VARS count other than the free-variable
// count, an enumeration value outside the interpreter's table, a KW_NAMES
// constant that is not a tuple, is not directly followed by its call (3.11:
// PRECALL, CALL; 3.12: CALL), or names more keywords than that call passes
// arguments, or a 3.13 CALL_KW whose names, loaded by the LOAD_CONST right
// before it, are not a tuple or are more than its arguments. Each message says
// the index, the table's size and what CPython does instead (it checks none of
// these at run time).
//
//===----------------------------------------------------------------------===//

#ifndef PYVERIFY_CHECK_OPERANDCHECKS_H
#define PYVERIFY_CHECK_OPERANDCHECKS_H

#include "pyverify/Bytecode/DecodedCode.h"
#include "pyverify/Support/Finding.h"

#include <vector>

namespace pyverify {

void checkOperands(const DecodedCode &D, std::vector<Finding> &Out);

/// checkOperands() with every instruction taken through its rules, none
/// passed over by the quick test of the commonest bounds (an index below its
/// table's size, a value in a fixed range) that checkOperands() makes first:
/// the same findings, in the same order, at several times the cost. The
/// reference that test is held to (tests/unit/OperandChecksTest.cpp).
void checkOperandsByRules(const DecodedCode &D, std::vector<Finding> &Out);

} // namespace pyverify

#endif
