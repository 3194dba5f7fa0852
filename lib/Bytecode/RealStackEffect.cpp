//===- RealStackEffect.cpp - What an instruction really pops --------------===//
//
// One case per base opcode, read off the 3.11 interpreter loop
// (Python/ceval.c): "pops" counts every value taken off the stack, including
// one the instruction replaces in place (SET_TOP), so that an analysis that
// tags slots sees the replaced value consumed.
//
//===----------------------------------------------------------------------===//

#include "pyverify/Bytecode/RealStackEffect.h"

#include "llvm/Support/ErrorHandling.h"

#include <bit>

using namespace pyverify;

RealStackEffect pyverify::getRealStackEffect(Opcode Op, uint32_t Arg,
                                             bool Jump) {
  int64_t A = Arg;
  switch (Op) {
  case Opcode::CACHE:
  case Opcode::NOP:
  case Opcode::EXTENDED_ARG:
  case Opcode::RESUME:
  case Opcode::MAKE_CELL:
  case Opcode::COPY_FREE_VARS:
  case Opcode::KW_NAMES:
  case Opcode::PRECALL: // Real PRECALL moves nothing; CALL pops everything.
  case Opcode::RETURN_GENERATOR:
  case Opcode::SETUP_ANNOTATIONS:
  case Opcode::DELETE_NAME:
  case Opcode::DELETE_GLOBAL:
  case Opcode::DELETE_FAST:
  case Opcode::DELETE_DEREF:
  case Opcode::JUMP_FORWARD:
  case Opcode::JUMP_BACKWARD:
  case Opcode::JUMP_BACKWARD_NO_INTERRUPT:
  case Opcode::SWAP: // permutes; handled by the analyses
    return {0, 0};
  case Opcode::POP_TOP:
  case Opcode::RETURN_VALUE:
  case Opcode::PRINT_EXPR:
  case Opcode::IMPORT_STAR:
  case Opcode::POP_EXCEPT:
  case Opcode::RERAISE:
  case Opcode::STORE_NAME:
  case Opcode::STORE_GLOBAL:
  case Opcode::STORE_FAST:
  case Opcode::STORE_DEREF:
  case Opcode::DELETE_ATTR:
  case Opcode::LIST_APPEND:
  case Opcode::SET_ADD:
  case Opcode::LIST_EXTEND:
  case Opcode::SET_UPDATE:
  case Opcode::DICT_MERGE:
  case Opcode::DICT_UPDATE:
  case Opcode::POP_JUMP_FORWARD_IF_FALSE:
  case Opcode::POP_JUMP_FORWARD_IF_TRUE:
  case Opcode::POP_JUMP_FORWARD_IF_NONE:
  case Opcode::POP_JUMP_FORWARD_IF_NOT_NONE:
  case Opcode::POP_JUMP_BACKWARD_IF_FALSE:
  case Opcode::POP_JUMP_BACKWARD_IF_TRUE:
  case Opcode::POP_JUMP_BACKWARD_IF_NONE:
  case Opcode::POP_JUMP_BACKWARD_IF_NOT_NONE:
    return {1, 0};
  case Opcode::PUSH_NULL:
  case Opcode::GET_LEN:
  case Opcode::MATCH_MAPPING:
  case Opcode::MATCH_SEQUENCE:
  case Opcode::MATCH_KEYS:
  case Opcode::WITH_EXCEPT_START: // calls PEEK(4), pushes the result
  case Opcode::GET_ANEXT:
  case Opcode::LOAD_BUILD_CLASS:
  case Opcode::LOAD_ASSERTION_ERROR:
  case Opcode::LOAD_CONST:
  case Opcode::LOAD_NAME:
  case Opcode::IMPORT_FROM:
  case Opcode::LOAD_FAST:
  case Opcode::LOAD_CLOSURE:
  case Opcode::LOAD_DEREF:
  case Opcode::LOAD_CLASSDEREF:
  case Opcode::COPY: // pushes a copy of PEEK(arg); handled by the analyses
    return {0, 1};
  case Opcode::UNARY_POSITIVE:
  case Opcode::UNARY_NEGATIVE:
  case Opcode::UNARY_NOT:
  case Opcode::UNARY_INVERT:
  case Opcode::CHECK_EXC_MATCH: // pops the type, replaces nothing below
  case Opcode::GET_AITER:
  case Opcode::GET_ITER:
  case Opcode::GET_YIELD_FROM_ITER:
  case Opcode::LIST_TO_TUPLE:
  case Opcode::YIELD_VALUE:
  case Opcode::ASYNC_GEN_WRAP:
  case Opcode::LOAD_ATTR:
  case Opcode::GET_AWAITABLE:
    return {1, 1};
  case Opcode::PUSH_EXC_INFO:
  case Opcode::BEFORE_WITH:
  case Opcode::BEFORE_ASYNC_WITH:
  case Opcode::LOAD_METHOD:
    return {1, 2};
  case Opcode::BINARY_SUBSCR:
  case Opcode::BINARY_OP:
  case Opcode::COMPARE_OP:
  case Opcode::IS_OP:
  case Opcode::CONTAINS_OP:
  case Opcode::IMPORT_NAME:
  case Opcode::PREP_RERAISE_STAR:
    return {2, 1};
  case Opcode::CHECK_EG_MATCH:
    return {2, 2};
  case Opcode::END_ASYNC_FOR:
  case Opcode::DELETE_SUBSCR:
  case Opcode::STORE_ATTR:
  case Opcode::MAP_ADD:
    return {2, 0};
  case Opcode::STORE_SUBSCR:
    return {3, 0};
  case Opcode::MATCH_CLASS:
    return {3, 1};
  case Opcode::UNPACK_SEQUENCE:
    return {1, A};
  case Opcode::UNPACK_EX:
    return {1, (A & 0xFF) + (A >> 8) + 1};
  case Opcode::FOR_ITER: // the iterator stays; exhausted: it is popped
    return Jump ? RealStackEffect{1, 0} : RealStackEffect{0, 1};
  case Opcode::SEND:
    return Jump ? RealStackEffect{2, 1} : RealStackEffect{1, 1};
  case Opcode::JUMP_IF_FALSE_OR_POP:
  case Opcode::JUMP_IF_TRUE_OR_POP:
    return Jump ? RealStackEffect{0, 0} : RealStackEffect{1, 0};
  case Opcode::BUILD_TUPLE:
  case Opcode::BUILD_LIST:
  case Opcode::BUILD_SET:
  case Opcode::BUILD_STRING:
    return {A, 1};
  case Opcode::BUILD_MAP:
    return {2 * A, 1};
  case Opcode::BUILD_CONST_KEY_MAP:
    return {A + 1, 1};
  case Opcode::LOAD_GLOBAL:
    return {0, 1 + (A & 1)};
  case Opcode::RAISE_VARARGS:
    return {A, 0};
  case Opcode::CALL:
    return {A + 2, 1};
  case Opcode::CALL_FUNCTION_EX:
    return {3 + (A & 1), 1};
  case Opcode::MAKE_FUNCTION:
    return {1 + int64_t(std::popcount(Arg & 0xFu)), 1};
  case Opcode::BUILD_SLICE:
    return {A == 3 ? 3 : 2, 1};
  case Opcode::FORMAT_VALUE:
    return {(A & 4) ? 2 : 1, 1};
  }
  llvm_unreachable("unknown opcode");
}
