#ifndef TRNBENCH_HARNESS_STATISTICS_BOOST_POLICY_H_
#define TRNBENCH_HARNESS_STATISTICS_BOOST_POLICY_H_

#include "boost/math/policies/policy.hpp"

namespace trn::stats {

// Boost's default policy throws; a report should show NaN for a statistic
// it cannot compute rather than abort the whole run.
using NoThrowPolicy = boost::math::policies::policy<
    boost::math::policies::domain_error<boost::math::policies::ignore_error>,
    boost::math::policies::pole_error<boost::math::policies::ignore_error>,
    boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
    boost::math::policies::evaluation_error<
        boost::math::policies::ignore_error>,
    boost::math::policies::rounding_error<boost::math::policies::ignore_error>>;

}  // namespace trn::stats

#endif  // TRNBENCH_HARNESS_STATISTICS_BOOST_POLICY_H_
