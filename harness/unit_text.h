// Quantities as people read them, shared by the profile findings and the
// profile report so both say a size the same way.
#ifndef TRNBENCH_HARNESS_UNIT_TEXT_H_
#define TRNBENCH_HARNESS_UNIT_TEXT_H_

#include <string>

namespace trn {

// A byte count in B, KiB, MiB or GiB ("512.0 KiB", "2.00 GiB").
std::string BytesText(double bytes);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_UNIT_TEXT_H_
