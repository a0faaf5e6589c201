// A counter-based random generator: every draw is a pure function of
// (key, counter), so any run can be replayed alone and the stream is the
// same on every compiler and standard library.
#ifndef TRNBENCH_SUPPORT_COUNTER_RNG_H_
#define TRNBENCH_SUPPORT_COUNTER_RNG_H_

#include <cstdint>

namespace trn {

// SplitMix64's finaliser: a bijective mix with full avalanche.
constexpr uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class CounterRng {
 public:
  // Derives the stream key from the run's identity.
  static constexpr uint64_t KeyFor(uint64_t seed, uint64_t stream,
                                   uint64_t index) {
    return Mix64(Mix64(Mix64(seed) ^ stream) + index * 0x9e3779b97f4a7c15ULL);
  }

  constexpr explicit CounterRng(uint64_t key) : key_(key) {}

  constexpr uint64_t NextU64() { return U64At(++counter_); }

  // Uniform on [0, 1) with 53 random bits.
  constexpr double NextUniform() { return UniformAt(++counter_); }

  // The values the draw numbered `counter` gives (the first draw is 1), in
  // any order: a caller that knows which draw belongs to what can make them
  // when it needs them, then Skip() past them, and the stream is the same
  // as drawing them in turn.
  constexpr uint64_t U64At(uint64_t counter) const {
    return Mix64(key_ + 0x9e3779b97f4a7c15ULL * counter);
  }
  constexpr double UniformAt(uint64_t counter) const {
    return static_cast<double>(U64At(counter) >> 11) * 0x1.0p-53;
  }
  constexpr void Skip(uint64_t draws) { counter_ += draws; }

  // Uniform integer in [0, n), n > 0; Lemire's multiply-shift with
  // rejection so every value is equally likely.
  uint64_t NextBelow(uint64_t n) {
    for (;;) {
      uint64_t x = NextU64();
      __uint128_t m = static_cast<__uint128_t>(x) * n;
      auto low = static_cast<uint64_t>(m);
      if (low >= n || low >= (-n) % n) return static_cast<uint64_t>(m >> 64);
    }
  }

  constexpr uint64_t counter() const { return counter_; }

 private:
  uint64_t key_;
  uint64_t counter_ = 0;
};

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_COUNTER_RNG_H_
