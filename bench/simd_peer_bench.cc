// Copyright synetk authors. SPDX-License-Identifier: MIT
// synetk against the Simd Library (a local build named by the Meson option
// simd_dir; docs/peer-simd.md): the same inputs through synetk/simd.h and
// through Simd's own functions, with the same positional arguments, timed
// in one loop, each after memcpy of the same traffic (TimePeers). Counters:
//   speedup        median Simd time / median synetk time (> 1: synetk faster)
//   synetk_memcpy  median memcpy time / median synetk time
//   simd_memcpy    median memcpy time / median Simd time
//   synetk_us, simd_us, memcpy_us: the medians
// The manual time Google Benchmark reports is synetk's.
#include "Simd/SimdLib.h"
#include "SimdPeerFused.h"
#include "bench_util.h"
#include "synetk/simd.h"

#include <cstdint>
#include <functional>

namespace {

using namespace synetk_bench;
namespace sk = synetk::simd;

// Simd picks its code by CPU: AVX-512BW, else AVX2, else SSE4.1.
bool SimdOnAvx2Path() {
  static const bool avx2 = !__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx2");
  return avx2;
}

::SimdTensorFormatType SimdFmt(bool nhwc) { return nhwc ? ::SimdTensorFormatNhwc : ::SimdTensorFormatNchw; }
sk::SimdTensorFormatType SkFmt(bool nhwc) { return static_cast<sk::SimdTensorFormatType>(nhwc ? 1 : 0); }
sk::SimdBool SkBool(bool b) { return static_cast<sk::SimdBool>(b ? 1 : 0); }

// Times mine (synetk) and simd (the Simd Library), each right after memcpy
// of the same traffic, so that both start from the same cache state (run
// back to back, the second would find the inputs the first just read).
void TimePeers(benchmark::State& state, Traffic traffic, const std::function<void()>& mine,
               const std::function<void()>& simd) {
  using Clock = std::chrono::steady_clock;
  const MemcpyYardstick memcpyTraffic(traffic);
  std::vector<double> tMine, tSimd, tCopy;
  mine();  // warm up caches, dispatch and plans
  simd();
  const auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  const auto copy = [&] {
    const auto c0 = Clock::now();
    memcpyTraffic();
    benchmark::ClobberMemory();
    tCopy.push_back(seconds(c0, Clock::now()));
  };
  copy();
  tCopy.clear();
  for (auto _ : state) {
    copy();
    const auto t0 = Clock::now();
    mine();
    const auto t1 = Clock::now();
    copy();
    const auto t2 = Clock::now();
    simd();
    const auto t3 = Clock::now();
    tMine.push_back(seconds(t0, t1));
    tSimd.push_back(seconds(t2, t3));
    state.SetIterationTime(tMine.back());
  }
  const double mm = Median(tMine), ms = Median(tSimd), mc = Median(tCopy);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * traffic.Total()));
  state.counters["speedup"] = ms / mm;
  state.counters["synetk_memcpy"] = mc / mm;
  state.counters["simd_memcpy"] = mc / ms;
  state.counters["synetk_us"] = mm * 1e6;
  state.counters["simd_us"] = ms * 1e6;
  state.counters["memcpy_us"] = mc * 1e6;
  RandomEngine().seed(kRandomSeed);
}

// Tensor shapes (channels, H*W) of the fused, normalize and quantized
// cases: small, mid-sized, 256x112x112 (12.8 MB in fp32) and 128x448x448
// (103 MB in fp32; one iteration touches five such buffers, more than the
// 300 MiB last-level cache of the machine in docs/peer-simd.md).
const std::pair<int, int> kShapes[] = {{32, 16 * 16},   {64, 56 * 56},    {256, 28 * 28},
                                       {512, 7 * 7},    {256, 112 * 112}, {128, 448 * 448}};

// ---- Fused ------------------------------------------------------------------

// Arguments: type, channels, spatial, format (0 NCHW, 1 NHWC).
void BM_FusedVsSimd(benchmark::State& state) {
  const int type = static_cast<int>(state.range(0));
  const size_t C = state.range(1), S = state.range(2);
  const bool nhwc = state.range(3) != 0;
  const size_t C1 = type == 9 ? C / 2 : 0, Ct = C + C1;
  const auto src0 = Random<float>(C * S);
  const auto src1 = Random<float>(type == 9 ? C1 * S : type == 8 ? C * S : 0);
  const auto p = Random<float>(3 * Ct);
  const float half = 0.5f;
  const size_t n = (type == 4 ? 2 * C : Ct) * S;
  Tensor<float> dMine(n), dSimd(n);
  Traffic tr;
  tr.read = (src0.size() + (type == 8 || type == 9 ? src1.size() : 0)) * sizeof(float);
  tr.written = n * sizeof(float);
  const float* s0 = src0.data();
  const float* s1 = src1.data();
  const float *q0 = p.data(), *q1 = p.data() + Ct, *q2 = p.data() + 2 * Ct;
  const auto f = SimdFmt(nhwc);
  const auto g = SkFmt(nhwc);
  float* a = dMine.data();
  float* b = dSimd.data();
  std::function<void()> mine, simd;
  switch (type) {
    case 0:
      mine = [=] { sk::SimdSynetFusedLayerForward0(s0, q0, q1, C, S, a, g); };
      simd = [=] { SimdSynetFusedLayerForward0(s0, q0, q1, C, S, b, f); };
      break;
    case 1:
      mine = [=] { sk::SimdSynetFusedLayerForward1(s0, q0, q1, q2, C, S, a, g); };
      simd = [=] { SimdSynetFusedLayerForward1(s0, q0, q1, q2, C, S, b, f); };
      break;
    case 2:
      mine = [=, &half] { sk::SimdSynetFusedLayerForward2(s0, q0, q1, C, S, &half, a, g); };
      simd = [=, &half] { SimdSynetFusedLayerForward2(s0, q0, q1, C, S, &half, b, f); };
      break;
    case 3:
      mine = [=] { sk::SimdSynetFusedLayerForward3(s0, q0, q1, C, S, a, g); };
      simd = [=] { SimdSynetFusedLayerForward3(s0, q0, q1, C, S, b, f); };
      break;
    case 4:
      mine = [=, &half] { sk::SimdSynetFusedLayerForward4(s0, q0, &half, &half, C, S, a, g); };
      simd = [=, &half] { SimdSynetFusedLayerForward4(s0, q0, &half, &half, C, S, b, f); };
      break;
    case 8:
      mine = [=] { sk::SimdSynetFusedLayerForward8(s0, s1, q0, C, S, a, g); };
      simd = [=] { SimdSynetFusedLayerForward8(s0, s1, q0, C, S, b, f); };
      break;
    case 9:
      mine = [=] { sk::SimdSynetFusedLayerForward9(s0, s1, q0, q1, C, C1, S, a, nullptr, g); };
      simd = [=] { SimdSynetFusedLayerForward9(s0, s1, q0, q1, C, C1, S, b, nullptr, f); };
      break;
  }
  TimePeers(state, tr, mine, simd);
}

void FusedArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"type", "C", "HW", "nhwc"});
  for (int type : {0, 1, 2, 3, 4, 8, 9})
    for (int nhwc : {0, 1})
      for (auto [c, hw] : kShapes) b->Args({type, c, hw, nhwc});
  b->UseManualTime();
}

// ---- Normalize --------------------------------------------------------------

// Arguments: version (1, 5 = V1 acrossSpatial, 2, 3, 4), channels, spatial,
// format. Batch 1; both get the scratch buffer Simd documents (spatial
// floats for V1 and V2, channels for V3 and V4), as an engine passes it.
void BM_NormalizeVsSimd(benchmark::State& state) {
  const int version = static_cast<int>(state.range(0));
  const size_t C = state.range(1), S = state.range(2);
  const bool nhwc = state.range(3) != 0;
  const auto src = Random<float>(C * S);
  const auto scale = Random<float>(C), shift = Random<float>(C);
  const float eps = 1e-5f;
  Tensor<float> dMine(C * S), dSimd(C * S);
  const size_t bufSize = version == 3 || version == 4 ? C : S;
  std::vector<float> bufMine(bufSize), bufSimd(bufSize);
  Traffic tr{C * S * sizeof(float), C * S * sizeof(float)};
  const auto f = SimdFmt(nhwc);
  const auto g = SkFmt(nhwc);
  const float *x = src.data(), *sc = scale.data(), *sh = shift.data();
  float *a = dMine.data(), *b = dSimd.data(), *wa = bufMine.data(), *wb = bufSimd.data();
  std::function<void()> mine, simd;
  switch (version) {
    case 1:
    case 5: {
      const bool across = version == 5;
      mine = [=, &eps] { sk::SimdSynetNormalizeLayerForward(x, 1, C, S, sc, &eps, SkBool(across), g, wa, a); };
      simd = [=, &eps] {
        SimdSynetNormalizeLayerForward(x, 1, C, S, sc, &eps, across ? ::SimdTrue : ::SimdFalse, f, wb, b);
      };
      break;
    }
    case 2:
      mine = [=, &eps] { sk::SimdSynetNormalizeLayerForwardV2(x, 1, C, S, sc, sh, &eps, g, wa, a); };
      simd = [=, &eps] { SimdSynetNormalizeLayerForwardV2(x, 1, C, S, sc, sh, &eps, f, wb, b); };
      break;
    case 3:
      mine = [=, &eps] { sk::SimdSynetNormalizeLayerForwardV3(x, 1, C, S, sc, sh, &eps, g, wa, a); };
      simd = [=, &eps] { SimdSynetNormalizeLayerForwardV3(x, 1, C, S, sc, sh, &eps, f, wb, b); };
      break;
    case 4:
      mine = [=, &eps] { sk::SimdSynetNormalizeLayerForwardV4(x, 1, C, S, sc, sh, &eps, g, wa, a); };
      simd = [=, &eps] { SimdSynetNormalizeLayerForwardV4(x, 1, C, S, sc, sh, &eps, f, wb, b); };
      break;
  }
  TimePeers(state, tr, mine, simd);
}

void NormalizeArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"version", "C", "HW", "nhwc"});
  for (int version : {1, 5, 2, 3, 4})
    for (int nhwc : {0, 1})
      for (auto [c, hw] : kShapes) b->Args({version, c, hw, nhwc});
  b->UseManualTime();
}

// ---- Quantization -----------------------------------------------------------

// Arguments: function (0 dequantize, 1 quantize, 2 concat, 3 scale, 4
// shuffle type 0, 5 shuffle type 1), channels, spatial, format. The
// parameters are bench/quant_bench.cc's. Concat and shuffle: two inputs of
// C/2 channels.
void BM_QuantVsSimd(benchmark::State& state) {
  const int fn = static_cast<int>(state.range(0));
  const size_t C = state.range(1), S = state.range(2), n = C * S;
  const bool nhwc = state.range(3) != 0;
  const auto f = SimdFmt(nhwc);
  const auto g = SkFmt(nhwc);
  switch (fn) {
    case 0: {
      const auto src = Random<uint8_t>(n);
      Tensor<float> a(n), b(n);
      const float norm = 0.031f;
      TimePeers(state, Traffic{n, n * sizeof(float)},
                [&] { sk::SimdSynetDequantizeLinear(src.data(), n, -7, &norm, a.data()); },
                [&] { SimdSynetDequantizeLinear(src.data(), n, -7, &norm, b.data()); });
      break;
    }
    case 1: {
      const auto src = Random<float>(n);
      Tensor<uint8_t> a(n), b(n);
      const float norm = 61.0f;
      TimePeers(state, Traffic{n * sizeof(float), n},
                [&] { sk::SimdSynetQuantizeLinear(src.data(), n, &norm, 3, a.data()); },
                [&] { SimdSynetQuantizeLinear(src.data(), n, &norm, 3, b.data()); });
      break;
    }
    case 2: {
      const auto x = Random<uint8_t>(n / 2), y = Random<uint8_t>(n / 2);
      Tensor<uint8_t> a(n), b(n);
      const uint8_t* src[2] = {x.data(), y.data()};
      const size_t num = nhwc ? S : 1;
      const size_t size[2] = {nhwc ? C / 2 : C / 2 * S, nhwc ? C / 2 : C / 2 * S};
      const int32_t bias[2] = {-12, -130};
      const float norm[2] = {0.0213f, 0.0347f}, scale = 1.0f / 0.0419f;
      TimePeers(state, Traffic{n, n},
                [&] { sk::SimdSynetQuantizedConcatLayerForward(2, src, num, size, bias, norm, &scale, 5, a.data()); },
                [&] { SimdSynetQuantizedConcatLayerForward(2, src, num, size, bias, norm, &scale, 5, b.data()); });
      break;
    }
    case 3: {
      const auto src = Random<uint8_t>(n);
      const auto scale = Random<float>(C), bias = Random<float>(C);
      Tensor<uint8_t> a(n), b(n);
      const float srcScale = 0.02f, dstScale = 0.05f;
      TimePeers(state, Traffic{n, n},
                [&] {
                  sk::SimdSynetQuantizedScaleLayerForward(src.data(), &srcScale, 100, C, S, scale.data(),
                                                          bias.data(), a.data(), &dstScale, 120, g);
                },
                [&] {
                  SimdSynetQuantizedScaleLayerForward(src.data(), &srcScale, 100, C, S, scale.data(), bias.data(),
                                                      b.data(), &dstScale, 120, f);
                });
      break;
    }
    default: {
      const int type = fn - 4;
      const auto x = Random<uint8_t>(n / 2), y = Random<uint8_t>(n / 2);
      Tensor<uint8_t> a0(n / 2), a1(n / 2), b0(n / 2), b1(n / 2);
      const float n0 = 0.0213f, n1 = 0.0347f, scale = 1.0f / 0.0419f;
      TimePeers(state, Traffic{n, n},
                [&] {
                  sk::SimdSynetQuantizedShuffleLayerForward(x.data(), -12, &n0, C / 2, y.data(), -200, &n1, C / 2, S,
                                                            a0.data(), a1.data(), &scale, 9, g, type);
                },
                [&] {
                  SimdSynetQuantizedShuffleLayerForward(x.data(), -12, &n0, C / 2, y.data(), -200, &n1, C / 2, S,
                                                        b0.data(), b1.data(), &scale, 9, f, type);
                });
      break;
    }
  }
}

void QuantArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"fn", "C", "HW", "nhwc"});
  for (int fn = 0; fn <= 5; ++fn)
    for (int nhwc : {0, 1})
      for (auto [c, hw] : kShapes) b->Args({fn, c, hw, nhwc});
  b->UseManualTime();
}

// ---- Pooling ----------------------------------------------------------------

// Arguments: kind (0 Max32f, 1 Average fp32 excluding padding, 2 Max16b, 3
// Max8u), C, H (= W), kernel, stride, pad, format.
void BM_PoolingVsSimd(benchmark::State& state) {
  const int kind = static_cast<int>(state.range(0));
  const size_t C = state.range(1), H = state.range(2), k = state.range(3), s = state.range(4),
               p = state.range(5);
  const bool nhwc = state.range(6) != 0;
  if (kind == 0 && nhwc && C < 8 && SimdOnAvx2Path()) {
    // Simd's AVX2 SynetPoolingMax32f NHWC with fewer than 8 channels writes
    // nothing (../shared/PEERS.md): no comparison of speed.
    state.SkipWithError("Simd AVX2 NHWC max pooling with fewer than 8 channels writes nothing");
    return;
  }
  const size_t D = (H + 2 * p - k) / s + 1;
  const auto f = SimdFmt(nhwc);
  const auto g = SkFmt(nhwc);
  auto run = [&](auto elem) {
    using T = decltype(elem);
    Tensor<T> src(C * H * H);
    if constexpr (std::is_same_v<T, uint16_t>) {  // bfloat16 bits of finite values
      const auto v = Random<float>(src.size());
      for (size_t i = 0; i < src.size(); ++i) {
        uint32_t bits;
        std::memcpy(&bits, &v[i], 4);
        src[i] = static_cast<uint16_t>(bits >> 16);
      }
    } else {
      src = Random<T>(src.size());
    }
    Tensor<T> a(C * D * D), b(C * D * D);
    Traffic tr{src.size() * sizeof(T), a.size() * sizeof(T)};
    std::function<void()> mine, simd;
    if constexpr (std::is_same_v<T, float>) {
      if (kind == 0) {
        mine = [&] {
          sk::SimdSynetPoolingMax32f(src.data(), C, H, H, 1, k, k, 1, s, s, 0, p, p, a.data(), C, D, D, g);
        };
        simd = [&] { SimdSynetPoolingMax32f(src.data(), C, H, H, 1, k, k, 1, s, s, 0, p, p, b.data(), C, D, D, f); };
      } else {
        mine = [&] {
          sk::SimdSynetPoolingAverage(src.data(), C, H, H, k, k, s, s, p, p, a.data(), D, D, SkBool(true), g);
        };
        simd = [&] { SimdSynetPoolingAverage(src.data(), C, H, H, k, k, s, s, p, p, b.data(), D, D, ::SimdTrue, f); };
      }
    } else if constexpr (std::is_same_v<T, uint16_t>) {
      mine = [&] { sk::SimdSynetPoolingMax16b(src.data(), C, H, H, k, k, s, s, p, p, a.data(), D, D, g); };
      simd = [&] { SimdSynetPoolingMax16b(src.data(), C, H, H, k, k, s, s, p, p, b.data(), D, D, f); };
    } else {
      mine = [&] { sk::SimdSynetPoolingMax8u(src.data(), C, H, H, k, k, s, s, p, p, a.data(), D, D, g); };
      simd = [&] { SimdSynetPoolingMax8u(src.data(), C, H, H, k, k, s, s, p, p, b.data(), D, D, f); };
    }
    TimePeers(state, tr, mine, simd);
  };
  if (kind <= 1) run(float());
  else if (kind == 2) run(uint16_t());
  else run(uint8_t());
}

void PoolingArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"kind", "C", "HW", "k", "s", "p", "nhwc"});
  // bench/pooling_bench.cc's geometries: ResNet stem 3x3 s2 p1, 2x2 s2 on
  // 256x28x28, YOLO SPP 5x5 s1 p2, global 7x7 on 512 channels, and the
  // 3-channel image 3x3 s2 p1.
  const int shapes[][5] = {
      {64, 112, 3, 2, 1}, {256, 28, 2, 2, 0}, {32, 64, 5, 1, 2}, {512, 7, 7, 1, 0}, {3, 224, 3, 2, 1}};
  for (int kind = 0; kind <= 3; ++kind)
    for (const auto& sh : shapes)
      for (int nhwc : {0, 1}) b->Args({kind, sh[0], sh[1], sh[2], sh[3], sh[4], nhwc});
  b->UseManualTime();
}

// ---- GatherElements ---------------------------------------------------------

// Arguments: outer, srcCount, inner, idxCount, index kind (0 random per
// element, 1 rows uniform over inner), constant index (SetIndex once before
// timing). fp32 data, int32 indexes (bench/gather_bench.cc's shapes).
void BM_GatherVsSimd(benchmark::State& state) {
  const size_t outer = state.range(0), srcCount = state.range(1), inner = state.range(2),
               idxCount = state.range(3);
  const int kind = static_cast<int>(state.range(4));
  const bool indexConst = state.range(5) != 0;
  const auto src = Random<float>(outer * srcCount * inner);
  std::mt19937 rng(11);
  std::uniform_int_distribution<int32_t> d(-static_cast<int32_t>(srcCount), static_cast<int32_t>(srcCount) - 1);
  Tensor<int32_t> idx(outer * idxCount * inner);
  for (size_t r = 0; r < outer * idxCount; ++r) {
    const int32_t first = d(rng);
    for (size_t i = 0; i < inner; ++i) idx[r * inner + i] = kind == 1 ? first : d(rng);
  }
  Tensor<float> a(idx.size()), b(idx.size());
  const size_t outerShape[1] = {outer};
  void* cMine = sk::SimdSynetGatherElementsInit(static_cast<sk::SimdTensorDataType>(::SimdTensorData32f),
                                                static_cast<sk::SimdTensorDataType>(::SimdTensorData32i),
                                                SkBool(indexConst), 1, outerShape, 1, srcCount, inner, idxCount);
  void* cSimd = SimdSynetGatherElementsInit(::SimdTensorData32f, ::SimdTensorData32i,
                                            indexConst ? ::SimdTrue : ::SimdFalse, 1, outerShape, 1, srcCount,
                                            inner, idxCount);
  const auto* i8 = reinterpret_cast<const uint8_t*>(idx.data());
  const auto* s8 = reinterpret_cast<const uint8_t*>(src.data());
  if (indexConst) {
    sk::SimdSynetGatherElementsSetIndex(cMine, i8);
    SimdSynetGatherElementsSetIndex(cSimd, i8);
  }
  Traffic tr{idx.size() * (sizeof(int32_t) + sizeof(float)), idx.size() * sizeof(float)};
  TimePeers(state, tr,
            [&] { sk::SimdSynetGatherElementsForward(cMine, s8, i8, reinterpret_cast<uint8_t*>(a.data())); },
            [&] { SimdSynetGatherElementsForward(cSimd, s8, i8, reinterpret_cast<uint8_t*>(b.data())); });
  sk::SimdRelease(cMine);
  SimdRelease(cSimd);
}

void GatherArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"outer", "src", "inner", "idx", "kind", "const"});
  for (int c : {0, 1}) {
    b->Args({256, 2048, 1, 1024, 0, c});
    b->Args({64, 64, 64, 64, 1, c});
    b->Args({64, 64, 64, 64, 0, c});
    b->Args({16, 256, 256, 128, 1, c});
    b->Args({1024, 16, 1, 512, 0, c});
  }
  b->UseManualTime();
}

}  // namespace

BENCHMARK(BM_FusedVsSimd)->Apply(FusedArgs);
BENCHMARK(BM_NormalizeVsSimd)->Apply(NormalizeArgs);
BENCHMARK(BM_QuantVsSimd)->Apply(QuantArgs);
BENCHMARK(BM_PoolingVsSimd)->Apply(PoolingArgs);
BENCHMARK(BM_GatherVsSimd)->Apply(GatherArgs);
