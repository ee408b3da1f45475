// Copyright synetk authors. SPDX-License-Identifier: MIT
// Benchmark helpers: every case is timed against memcpy of the same bytes in
// the same run, interleaved iteration by iteration so that noise from the
// shared machine hits both alike.
#ifndef SYNETK_BENCH_BENCH_UTIL_H_
#define SYNETK_BENCH_BENCH_UTIL_H_

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <vector>

#include <hwy/aligned_allocator.h>
#include <hwy/base.h>
#include <hwy/targets.h>

namespace synetk_bench {

// Bytes the layer must read and write. memcpy of (read + written) / 2 bytes
// moves the same traffic (it reads and writes each byte once).
struct Traffic {
  size_t read = 0, written = 0;
  size_t Total() const { return read + written; }
};

// Layer tensors are 64-byte aligned, as an engine allocates them and as the
// memcpy yardstick's buffers are: from the heap (16-byte aligned) every other
// 32-byte access of a layer straddles two cache lines, a cost the yardstick
// does not pay and an engine's tensors do not either.
template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64})); }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t{64}); }
  friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) { return true; }
};
template <typename T>
using Tensor = std::vector<T, CacheLineAllocator<T>>;

// The data generator, seeded again after every timed case (TimeAgainstMemcpy)
// so that a case's data do not depend on which cases ran before it: with
// --benchmark_filter, QuantizedScale NHWC had drawn other scales than in the
// full run, and took 6 or 13 us by which channels its fixed-point planner
// could plan.
constexpr uint32_t kRandomSeed = 7;
inline std::mt19937& RandomEngine() {
  static std::mt19937 rng(kRandomSeed);
  return rng;
}

template <typename T>
Tensor<T> Random(size_t n, float lo = -2.0f, float hi = 2.0f) {
  std::mt19937& rng = RandomEngine();
  std::uniform_real_distribution<float> d(lo, hi);
  Tensor<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_same_v<T, float>) x = d(rng);
    else if constexpr (std::is_integral_v<T>) x = static_cast<T>(rng());
    else if constexpr (std::is_same_v<T, hwy::bfloat16_t>) x = hwy::BF16FromF32(d(rng));
    else {  // binary16: random sign and mantissa, magnitude in [0.25, 2)
      const uint16_t bits = static_cast<uint16_t>((rng() & 0x8000u) | ((13u + rng() % 3u) << 10) |
                                                  (rng() & 0x3FFu));
      std::memcpy(&x, &bits, 2);
    }
  }
  return v;
}

// The yardstick: memcpy of (read + written) / 2 bytes, between two buffers
// whose ends are both 64-byte aligned, as an engine's tensors are: with the
// heap's 16-byte alignment the two ends could differ mod 64, and on AMD Zen
// glibc's `rep movsb` (copies below the L2 size) then ran many times slower,
// which inflated every ratio it touched.
class MemcpyYardstick {
 public:
  explicit MemcpyYardstick(const Traffic& traffic)
      : bytes_(std::max<size_t>(traffic.Total() / 2, 1)),
        from_(hwy::AllocateAligned<uint8_t>(bytes_)),
        to_(hwy::AllocateAligned<uint8_t>(bytes_)) {
    std::memset(from_.get(), 1, bytes_);
    std::memset(to_.get(), 0, bytes_);
  }
  void operator()() const { std::memcpy(to_.get(), from_.get(), bytes_); }

 private:
  size_t bytes_;
  hwy::AlignedFreeUniquePtr<uint8_t[]> from_, to_;
};

// The median of a case's timings (reorders v).
inline double Median(std::vector<double>& v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// Runs `layer` under Google Benchmark's manual timing and, between its
// iterations, memcpy of the same traffic. Counters:
//   memcpy_ratio = median memcpy time / median layer time (>= 1: as fast)
//   layer_us, memcpy_us: the medians
//   ref_speedup (when a scalar reference is given): median time of the
//     scalar reference from tests/reference / median layer time
template <class Layer, class Reference>
void TimeAgainstMemcpy(benchmark::State& state, Traffic traffic, Layer&& layer,
                       Reference&& reference) {
  using Clock = std::chrono::steady_clock;
  const MemcpyYardstick copy(traffic);
  std::vector<double> tLayer, tCopy;
  layer();  // warm up caches and dispatch
  copy();
  for (auto _ : state) {
    const auto t0 = Clock::now();
    layer();
    const auto t1 = Clock::now();
    copy();
    benchmark::ClobberMemory();
    const auto t2 = Clock::now();
    const double l = std::chrono::duration<double>(t1 - t0).count();
    tLayer.push_back(l);
    tCopy.push_back(std::chrono::duration<double>(t2 - t1).count());
    state.SetIterationTime(l);
  }
  const double ml = Median(tLayer), mc = Median(tCopy);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * traffic.Total()));
  state.counters["memcpy_ratio"] = mc / ml;
  state.counters["layer_us"] = ml * 1e6;
  state.counters["memcpy_us"] = mc * 1e6;
  RandomEngine().seed(kRandomSeed);
  if constexpr (!std::is_same_v<std::decay_t<Reference>, std::nullptr_t>) {
    // The scalar reference is slow: a few runs, interleaved with the layer.
    std::vector<double> tRef;
    for (int i = 0; i < 3; ++i) {
      const auto r0 = Clock::now();
      reference();
      tRef.push_back(std::chrono::duration<double>(Clock::now() - r0).count());
    }
    state.counters["ref_speedup"] = Median(tRef) / ml;
  }
}

template <class Layer>
void TimeAgainstMemcpy(benchmark::State& state, Traffic traffic, Layer&& layer) {
  TimeAgainstMemcpy(state, traffic, std::forward<Layer>(layer), nullptr);
}

// Forces dispatch to one target for the lifetime of the object (per-target
// comparison benchmarks); the target must be supported.
class ForceTarget {
 public:
  explicit ForceTarget(int64_t target) { hwy::SetSupportedTargetsForTest(target); }
  ~ForceTarget() { hwy::SetSupportedTargetsForTest(0); }
};

// The targets this CPU supports among those compiled, as benchmark arguments.
inline std::vector<int64_t> BenchTargets() { return hwy::SupportedAndGeneratedTargets(); }

}  // namespace synetk_bench

#endif  // SYNETK_BENCH_BENCH_UTIL_H_
