// The one form of a bad-input message: "<file>: <JSON pointer>: <what>",
// used by every reader of specs, profiles, baselines and results, so that a
// user learns one shape of message and a test can check it everywhere.
#ifndef TRNBENCH_SUPPORT_INPUT_ERROR_H_
#define TRNBENCH_SUPPORT_INPUT_ERROR_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace trn {

// InvalidArgument("<file>: <pointer>: <what>"), "/" standing for the whole
// document when `pointer` is empty. Control characters are escaped, since
// the pointer and `what` may quote the input's keys and values.
absl::Status InputError(std::string_view file, std::string_view pointer,
                        std::string_view what);

// The JSON pointer (RFC 6901) of a member or an element under `pointer`.
std::string JsonChild(std::string_view pointer, std::string_view key);
std::string JsonChild(std::string_view pointer, size_t index);

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_INPUT_ERROR_H_
