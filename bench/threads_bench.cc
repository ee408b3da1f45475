// Copyright synetk authors. SPDX-License-Identifier: MIT
// Multi-core scaling: larger-than-L3 tensors (512 MiB of input per case), each
// call split into parts (synetk::Range) over 1, 2, ... N threads, N the
// hardware threads of the machine. Every layer family takes a part: fused and
// scale/shuffle by positions, normalize V2 by positions, pooling by channels
// (NCHW) or rows (NHWC), gather by outer items, dequantize/quantize by
// elements, concat by blocks. Per case (TimeThreads): the speedup over one
// thread, and the fraction of the machine's copy bandwidth at that many
// threads (memcpy of the same traffic split over the same threads).
#include <algorithm>
#include <chrono>
#include <thread>

#include <hwy/aligned_allocator.h>

#include "bench_util.h"
#include "synetk/synetk.h"

namespace {

using namespace synetk_bench;

// A tensor as engines allocate them: aligned to the vector size (64 bytes),
// every page touched before timing.
template <typename T>
class Buffer {
 public:
  explicit Buffer(size_t n) : p_(hwy::AllocateAligned<T>(n)), n_(n) {
    std::memset(static_cast<void*>(p_.get()), 0, n * sizeof(T));
  }
  T* data() { return p_.get(); }
  const T* data() const { return p_.get(); }
  size_t size() const { return n_; }
  T& operator[](size_t i) { return p_[i]; }

 private:
  hwy::AlignedFreeUniquePtr<T[]> p_;
  size_t n_;
};

// Cheap deterministic fill: a 1 GiB tensor from mt19937 would take seconds.
template <typename T>
Buffer<T> Pattern(size_t n) {
  Buffer<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t h = static_cast<uint32_t>(i) * 2654435761u;
    if constexpr (std::is_integral_v<T>) {
      v[i] = static_cast<T>(h >> 24);
    } else {
      v[i] = static_cast<T>(static_cast<float>(h >> 8) * (4.0f / 16777216.0f) - 2.0f);
    }
  }
  return v;
}

// Runs part(range) over [0, count) split evenly across `threads` threads.
template <class Part>
void Split(size_t count, int threads, const Part& part) {
  if (threads <= 1) {
    part(synetk::Range{0, count});
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) {
    const size_t b = count * t / threads, e = count * (t + 1) / threads;
    pool.emplace_back([&part, b, e] { part(synetk::Range{b, e}); });
  }
  part(synetk::Range{0, count / threads});
  for (auto& th : pool) th.join();
}

// Times run(threads) against run(1) and against memcpy of the same traffic
// split over `threads` threads, interleaved iteration by iteration. Counters:
//   copy_bw_fraction = median split-memcpy time / median layer time
//   speedup          = median one-thread layer time / median layer time
//   layer_us, memcpy_us: the medians at `threads` threads
template <class Run>
void TimeThreads(benchmark::State& state, Traffic traffic, int threads, const Run& run) {
  using Clock = std::chrono::steady_clock;
  const size_t copyBytes = std::max<size_t>(traffic.Total() / 2, 1);
  Buffer<uint8_t> from(copyBytes), to(copyBytes);
  auto copy = [&] {
    Split(copyBytes, threads, [&](synetk::Range r) {
      std::memcpy(to.data() + r.begin, from.data() + r.begin, r.end - r.begin);
    });
  };
  auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  run(threads);  // warm up pages and dispatch
  copy();
  std::vector<double> tLayer, tOne, tCopy;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    run(threads);
    const auto t1 = Clock::now();
    if (threads > 1) run(1);
    const auto t2 = Clock::now();
    copy();
    benchmark::ClobberMemory();
    const auto t3 = Clock::now();
    tLayer.push_back(seconds(t0, t1));
    tOne.push_back(threads > 1 ? seconds(t1, t2) : seconds(t0, t1));
    tCopy.push_back(seconds(t2, t3));
    state.SetIterationTime(seconds(t0, t1));
  }
  const double ml = Median(tLayer), mo = Median(tOne), mc = Median(tCopy);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * traffic.Total()));
  state.counters["copy_bw_fraction"] = mc / ml;
  state.counters["speedup"] = mo / ml;
  state.counters["layer_us"] = ml * 1e6;
  state.counters["memcpy_us"] = mc * 1e6;
}

constexpr size_t kC = 128, kHW = 1024 * 1024;  // fp32: 512 MiB
constexpr size_t kBytesC = 512;                // uint8: 512 MiB

enum Layer { kFused3Nchw, kFused3Nhwc, kNormV2Nchw, kPoolMax2x2Nchw, kPoolMax3x3Nhwc, kGather,
             kDequantize, kQuantize, kConcat, kScaleNchw, kShuffleNhwc, kLayers };
const char* const kNames[] = {"fused3/nchw",  "fused3/nhwc",  "normalizeV2/nchw",
                              "poolmax2x2s2/nchw", "poolmax3x3s2/nhwc", "gather/f32/i32",
                              "dequantize/u8->f32", "quantize/f32->u8", "concat/u8",
                              "scale/u8/nchw", "shuffle0/u8/nhwc"};

void BM_Threads(benchmark::State& state) {
  const auto layer = static_cast<Layer>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  state.SetLabel(std::string(kNames[layer]) + " x" + std::to_string(threads));
  Traffic tr;
  switch (layer) {
    case kFused3Nchw:
    case kFused3Nhwc: {
      auto src = Pattern<float>(kC * kHW);
      Buffer<float> dst(src.size());
      std::vector<float> bias(kC, 0.1f), scale(kC, 0.5f);
      tr = {src.size() * 4, dst.size() * 4};
      TimeThreads(state, tr, threads, [&](int t) {
        Split(kHW, t, [&](synetk::Range r) {
          if (layer == kFused3Nchw) {
            synetk::FusedLayer3<float, synetk::Nchw>()(src.data(), bias.data(), scale.data(), kC,
                                                       kHW, dst.data(), r);
          } else {
            synetk::FusedLayer3<float, synetk::Nhwc>()(src.data(), bias.data(), scale.data(), kC,
                                                       kHW, dst.data(), r);
          }
        });
      });
      break;
    }
    case kNormV2Nchw: {
      auto src = Pattern<float>(kC * kHW);
      Buffer<float> dst(src.size());
      std::vector<float> scale(kC, 1.5f), shift(kC, 0.25f);
      const float eps = 1e-5f;
      tr = {src.size() * 4, dst.size() * 4};
      TimeThreads(state, tr, threads, [&](int t) {
        Split(kHW, t, [&](synetk::Range r) {
          synetk::NormalizeV2<float, synetk::Nchw>()(src.data(), 1, kC, kHW, scale.data(),
                                                     shift.data(), &eps, nullptr, 0, dst.data(), r);
        });
      });
      break;
    }
    case kPoolMax2x2Nchw:
    case kPoolMax3x3Nhwc: {
      const size_t H = 1024, k = layer == kPoolMax2x2Nchw ? 2 : 3, p = k == 3 ? 1 : 0;
      const size_t D = (H + 2 * p - k) / 2 + 1;
      auto src = Pattern<float>(kC * H * H);
      Buffer<float> dst(kC * D * D);
      tr = {src.size() * 4, dst.size() * 4};
      TimeThreads(state, tr, threads, [&](int t) {
        if (layer == kPoolMax2x2Nchw) {
          Split(kC, t, [&](synetk::Range r) {
            synetk::PoolingMax<float, synetk::Nchw>()(src.data(), kC, H, H, k, k, 2, 2, p, p,
                                                      dst.data(), D, D, r);
          });
        } else {
          Split(D, t, [&](synetk::Range r) {
            synetk::PoolingMax<float, synetk::Nhwc>()(src.data(), kC, H, H, k, k, 2, 2, p, p,
                                                      dst.data(), D, D, r);
          });
        }
      });
      break;
    }
    case kGather: {
      // src [2048, 65536, 1] (512 MiB) -> [2048, 16384, 1].
      const size_t outer = 2048, srcCount = 65536, idxCount = 16384;
      auto src = Pattern<float>(outer * srcCount);
      Buffer<int32_t> idx(outer * idxCount);
      for (size_t i = 0; i < idx.size(); ++i) {
        idx[i] = static_cast<int32_t>((static_cast<uint32_t>(i) * 2654435761u) % srcCount);
      }
      Buffer<float> dst(idx.size());
      synetk::GatherElements<float, int32_t> g({outer}, srcCount, 1, idxCount);
      tr = {idx.size() * 8, dst.size() * 4};  // indices and the gathered elements
      TimeThreads(state, tr, threads, [&](int t) {
        Split(outer, t, [&](synetk::Range r) { g.Forward(src.data(), idx.data(), dst.data(), r); });
      });
      break;
    }
    case kDequantize:
    case kQuantize: {
      const size_t n = kC * kHW;  // 128 Mi elements: 512 MiB of fp32
      auto q = Pattern<uint8_t>(n);
      auto f = Pattern<float>(n);
      const float norm = 0.0213f, inv = 1.0f / 0.0213f;
      tr = {n * (layer == kDequantize ? 1 : 4), n * (layer == kDequantize ? 4 : 1)};
      TimeThreads(state, tr, threads, [&](int t) {
        Split(n, t, [&](synetk::Range r) {
          if (layer == kDequantize) {
            synetk::DequantizeLinear<uint8_t, float>()(q.data(), n, -12, &norm, f.data(), r);
          } else {
            synetk::QuantizeLinear<float, uint8_t>()(f.data(), n, &inv, 12, q.data(), r);
          }
        });
      });
      break;
    }
    case kConcat:
    case kScaleNchw:
    case kShuffleNhwc: {
      const size_t C = kBytesC, S = kHW, half = C / 2 * S;
      auto a = Pattern<uint8_t>(C * S);
      Buffer<uint8_t> d(C * S);
      const float n0 = 0.0213f, n1 = 0.0347f, scale = 1.0f / 0.0419f;
      tr = {C * S, C * S};
      if (layer == kConcat) {
        // Two NCHW inputs of C/2 channels concatenated per image: num = 1
        // would leave nothing to split, so 256 blocks of C/2*S/256 bytes.
        const size_t num = 256, size = half / num;
        const uint8_t* srcs[2] = {a.data(), a.data() + half};
        const size_t sizes[2] = {size, size};
        const int32_t bias[2] = {-12, -130};
        const float norms[2] = {n0, n1};
        TimeThreads(state, tr, threads, [&](int t) {
          Split(num, t, [&](synetk::Range r) {
            synetk::QuantizedConcat()(2, srcs, num, sizes, bias, norms, &scale, 5, d.data(), r);
          });
        });
      } else if (layer == kScaleNchw) {
        std::vector<float> sc(C, 0.7f), bi(C, 0.1f);
        const float srcScale = 0.02f, dstScale = 0.05f;
        TimeThreads(state, tr, threads, [&](int t) {
          Split(S, t, [&](synetk::Range r) {
            synetk::QuantizedScale<synetk::Nchw>()(a.data(), &srcScale, 100, C, S, sc.data(),
                                                   bi.data(), d.data(), &dstScale, 120, r);
          });
        });
      } else {
        TimeThreads(state, tr, threads, [&](int t) {
          Split(S, t, [&](synetk::Range r) {
            synetk::QuantizedShuffle<synetk::Nhwc>()(a.data(), -12, &n0, C / 2, a.data() + half,
                                                     -200, &n1, C / 2, S, d.data(),
                                                     d.data() + half, &scale, 9, 0, r);
          });
        });
      }
      break;
    }
    default:
      state.SkipWithError("no such layer");
  }
}

void ThreadArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"layer", "threads"});
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int layer = 0; layer < kLayers; ++layer)
    for (int threads = 1; threads <= cores; ++threads) b->Args({layer, threads});
  b->UseManualTime()->Iterations(5);
}

BENCHMARK(BM_Threads)->Apply(ThreadArgs);

}  // namespace
