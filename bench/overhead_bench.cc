// Copyright synetk authors. SPDX-License-Identifier: MIT
// What a call costs on the small tensors engines run in late stages and at
// batch 1: each layer at one channel of 4x4 positions (the work is a few
// vectors, so the time is the call's fixed cost: validation, overlap checks,
// dispatch, the streaming decision, plan building) and at 32x16x16. Each
// case times 64 calls in a row; ns_per_call is the median per call, and
// memcpy_ratio compares with memcpy of one call's traffic, repeated alike.
#include <chrono>

#include "bench_util.h"
#include "synetk/synetk.h"

namespace {

using namespace synetk_bench;

enum Layer {
  kFused0, kFused3, kFused4, kFused9, kNormV1, kNormV2, kNormV3, kNormV4, kPoolMax, kPoolAvg,
  kPoolMaxU8, kGather, kDequantize, kQuantize, kConcat, kScale, kScaleContext, kShuffle, kLayers
};
const char* const kNames[] = {"fused0/nchw", "fused3/nhwc", "fused4/nchw", "fused9/nhwc",
                              "normalizeV1/nchw", "normalizeV2/nhwc", "normalizeV3/nchw",
                              "normalizeV4/nhwc", "poolmax2x2/f32/nchw", "poolavg3x3/f32/nhwc",
                              "poolmax2x2/u8/nhwc", "gather/f32/i32", "dequantize/u8->f32",
                              "quantize/f32->u8", "concat/u8", "scale/u8/nhwc",
                              "scale-context/u8/nchw", "shuffle0/u8/nhwc"};
constexpr int kCalls = 64;

// Arguments: layer, channels, height (= width).
void BM_CallOverhead(benchmark::State& state) {
  const auto layer = static_cast<Layer>(state.range(0));
  const size_t C = state.range(1), H = state.range(2), S = H * H, n = C * S, D = H / 2;
  state.SetLabel(kNames[layer]);
  using synetk::Nchw;
  using synetk::Nhwc;
  const auto f = Random<float>(2 * n), p = Random<float>(2 * C);
  Tensor<float> fo(4 * n);
  const auto q = Random<uint8_t>(4 * n);
  Tensor<uint8_t> qo(4 * n);
  std::vector<float> ws(4 * C);
  const float eps = 1e-5f, one = 1.0f, norm = 0.0213f, inv = 1.0f / 0.0213f;
  const synetk::QuantizedScaleContext<Nchw> ctx(&norm, 3, C, p.data(), p.data() + C, &norm, 5);
  synetk::GatherElements<float, int32_t> gather({C}, S, 1, S);
  std::vector<int32_t> idx(n);
  for (size_t i = 0; i < n; ++i) idx[i] = static_cast<int32_t>((i * 7) % S);
  // Bytes each call reads and writes.
  const size_t c9 = C / 2 + 1 + (C - C / 2), c0 = 2 * ((C + 3) / 4), pooled = C * D * D;
  Traffic tr{n * 4, n * 4};
  switch (layer) {
    case kFused4: tr = {n * 4, 2 * n * 4}; break;
    case kFused9: tr = {c9 * S * 4, c9 * S * 4}; break;
    case kPoolMax: case kPoolAvg: tr = {n * 4, pooled * 4}; break;
    case kPoolMaxU8: tr = {n, pooled}; break;
    case kGather: tr = {2 * n * 4, n * 4}; break;
    case kDequantize: tr = {n, n * 4}; break;
    case kQuantize: tr = {n * 4, n}; break;
    case kConcat: tr = {c9 * S, c9 * S}; break;
    case kScale: case kScaleContext: tr = {n, n}; break;
    case kShuffle: tr = {2 * c0 * S, 2 * c0 * S}; break;
    default: break;
  }
  auto call = [&] {
    switch (layer) {
      case kFused0: synetk::FusedLayer0<float, Nchw>()(f.data(), p.data(), p.data() + C, C, S, fo.data()); break;
      case kFused3: synetk::FusedLayer3<float, Nhwc>()(f.data(), p.data(), p.data() + C, C, S, fo.data()); break;
      case kFused4: synetk::FusedLayer4<float, Nchw>()(f.data(), p.data(), &one, &one, C, S, fo.data()); break;
      case kFused9:
        synetk::FusedLayer9<float, Nhwc>()(f.data(), f.data() + n, p.data(), p.data(), C / 2 + 1,
                                           C - C / 2, S, fo.data(), nullptr);  // c9 channels
        break;
      case kNormV1: synetk::NormalizeV1<float, Nchw>()(f.data(), 1, C, S, p.data(), &eps, false, ws.data(), ws.size(), fo.data()); break;
      case kNormV2: synetk::NormalizeV2<float, Nhwc>()(f.data(), 1, C, S, p.data(), p.data() + C, &eps, ws.data(), ws.size(), fo.data()); break;
      case kNormV3: synetk::NormalizeV3<float, Nchw>()(f.data(), 1, C, S, p.data(), p.data() + C, &eps, ws.data(), ws.size(), fo.data()); break;
      case kNormV4: synetk::NormalizeV4<float, Nhwc>()(f.data(), 1, C, S, p.data(), p.data() + C, &eps, ws.data(), ws.size(), fo.data()); break;
      case kPoolMax: synetk::PoolingMax<float, Nchw>()(f.data(), C, H, H, 2, 2, 2, 2, 0, 0, fo.data(), D, D); break;
      case kPoolAvg:
        synetk::PoolingAverage<float, Nhwc>()(f.data(), C, H, H, 3, 3, 2, 2, 1, 1, fo.data(), D, D, true);
        break;
      case kPoolMaxU8: synetk::PoolingMax<uint8_t, Nhwc>()(q.data(), C, H, H, 2, 2, 2, 2, 0, 0, qo.data(), D, D); break;
      case kGather: gather.Forward(f.data(), idx.data(), fo.data()); break;
      case kDequantize: synetk::DequantizeLinear<uint8_t, float>()(q.data(), n, -12, &norm, fo.data()); break;
      case kQuantize: synetk::QuantizeLinear<float, uint8_t>()(f.data(), n, &inv, 12, qo.data()); break;
      case kConcat: {
        const uint8_t* src[2] = {q.data(), q.data() + n};
        const size_t size[2] = {C / 2 + 1, C - C / 2};
        const int32_t bias[2] = {-12, -130};
        const float norms[2] = {0.0213f, 0.0347f};
        synetk::QuantizedConcat()(2, src, S, size, bias, norms, &inv, 5, qo.data());
        break;
      }
      case kScale:
        synetk::QuantizedScale<Nhwc>()(q.data(), &norm, 3, C, S, p.data(), p.data() + C, qo.data(), &norm, 5);
        break;
      case kScaleContext: ctx.Forward(q.data(), S, qo.data()); break;
      case kShuffle: {
        // c0 (even) channels in each of two inputs: about C in all.
        synetk::QuantizedShuffle<Nhwc>()(q.data(), -12, &norm, c0, q.data() + 2 * n, -200, &norm, c0,
                                         S, qo.data(), qo.data() + 2 * n, &inv, 9, 0);
        break;
      }
      default: state.SkipWithError("no such layer");
    }
  };
  // kCalls calls, then kCalls copies of one call's traffic, alternately: both
  // work on cache-resident buffers, as a small layer in a network does.
  using Clock = std::chrono::steady_clock;
  const MemcpyYardstick copy(tr);
  call();
  std::vector<double> tLayer, tCopy;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    for (int i = 0; i < kCalls; ++i) call();
    const auto t1 = Clock::now();
    for (int i = 0; i < kCalls; ++i) {
      copy();
      benchmark::ClobberMemory();
    }
    const auto t2 = Clock::now();
    tLayer.push_back(std::chrono::duration<double>(t1 - t0).count() / kCalls);
    tCopy.push_back(std::chrono::duration<double>(t2 - t1).count() / kCalls);
    state.SetIterationTime(tLayer.back());
  }
  const double ml = Median(tLayer), mc = Median(tCopy);
  state.counters["ns_per_call"] = ml * 1e9;
  state.counters["memcpy_ratio"] = mc / ml;
}

void OverheadArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"layer", "C", "H"});
  for (int layer = 0; layer < kLayers; ++layer) {
    b->Args({layer, 1, 4});
    b->Args({layer, 32, 16});
  }
  b->UseManualTime();
}

BENCHMARK(BM_CallOverhead)->Apply(OverheadArgs);

}  // namespace
