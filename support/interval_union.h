// Unions and overlaps of time intervals: how busy a set of lanes is, and how
// much of one activity overlaps another.
#ifndef TRNBENCH_SUPPORT_INTERVAL_UNION_H_
#define TRNBENCH_SUPPORT_INTERVAL_UNION_H_

#include <utility>
#include <vector>

namespace trn {

using TimeInterval = std::pair<double, double>;  // [start, end)

// Sorted, merged intervals covering the same time; empty ones dropped.
std::vector<TimeInterval> UnionOf(std::vector<TimeInterval> v);
// Total length of a union.
double LengthOf(const std::vector<TimeInterval>& u);
// Length of the intersection of two unions.
double OverlapOf(const std::vector<TimeInterval>& a,
                 const std::vector<TimeInterval>& b);

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_INTERVAL_UNION_H_
