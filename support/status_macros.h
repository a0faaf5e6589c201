// Abseil 20220623 ships no status macros; these two cover what we need.
#ifndef TRNBENCH_SUPPORT_STATUS_MACROS_H_
#define TRNBENCH_SUPPORT_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TRN_CONCAT_INNER_(a, b) a##b
#define TRN_CONCAT_(a, b) TRN_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` is not OK.
#define TRN_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::absl::Status trn_status_ = (expr);       \
    if (!trn_status_.ok()) return trn_status_; \
  } while (false)

// `TRN_ASSIGN_OR_RETURN(auto x, F());` binds the value or returns the error.
#define TRN_ASSIGN_OR_RETURN(lhs, rexpr) \
  TRN_ASSIGN_OR_RETURN_IMPL_(TRN_CONCAT_(trn_statusor_, __LINE__), lhs, rexpr)
#define TRN_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                               \
  if (!statusor.ok()) return statusor.status();          \
  lhs = std::move(statusor).value()

#endif  // TRNBENCH_SUPPORT_STATUS_MACROS_H_
