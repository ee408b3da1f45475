// Copyright synetk authors. SPDX-License-Identifier: MIT
// Quantization layers against memcpy of the same bytes, on 64x56x56 and
// 256x28x28 in both formats.
#include "bench_util.h"
#include "synetk/synetk.h"

namespace {

using namespace synetk_bench;
using hwy::bfloat16_t;
using hwy::float16_t;

// Arguments of every benchmark: channels, spatial (H*W), format (0 NCHW, 1 NHWC).
// Dequantize/quantize are elementwise: the format does not change the call,
// it is kept so that every table row has both.
void Shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "HW", "nhwc"});
  for (int nhwc : {0, 1})
    for (auto [c, hw] : {std::pair{64, 56 * 56}, std::pair{256, 28 * 28}}) b->Args({c, hw, nhwc});
  b->UseManualTime();
}

template <typename Q, typename F>
void BM_QuantDequantize(benchmark::State& state) {
  const size_t n = state.range(0) * state.range(1);
  auto src = Random<Q>(n);
  Tensor<F> dst(n);
  const float norm = 0.031f;
  Traffic tr{n * sizeof(Q), n * sizeof(F)};
  TimeAgainstMemcpy(state, tr, [&] {
    synetk::DequantizeLinear<Q, F>()(src.data(), n, -7, &norm, dst.data());
  });
}

template <typename F, typename Q>
void BM_QuantQuantize(benchmark::State& state) {
  const size_t n = state.range(0) * state.range(1);
  // Random<T> makes binary16 values from their bits (magnitudes in [0.25,
  // 2), 61 times that within int8), not with static_cast<float16_t>(float),
  // which on x86 (Highway 1.0.3's struct of bits) stores the float's integer
  // part as the bits: zeros, the smallest subnormal and NaNs.
  auto src = Random<F>(n);
  Tensor<Q> dst(n);
  const float norm = 61.0f;
  Traffic tr{n * sizeof(F), n * sizeof(Q)};
  TimeAgainstMemcpy(state, tr, [&] {
    synetk::QuantizeLinear<F, Q>()(src.data(), n, &norm, 3, dst.data());
  });
}

// Two inputs of C/2 channels each. NCHW: num = 1, size = C/2*HW; NHWC: num =
// HW, size = C/2.
void BM_QuantConcat(benchmark::State& state) {
  const size_t C = state.range(0), S = state.range(1);
  const bool nhwc = state.range(2) != 0;
  auto a = Random<uint8_t>(C / 2 * S), b = Random<uint8_t>(C / 2 * S);
  Tensor<uint8_t> dst(C * S);
  const uint8_t* src[2] = {a.data(), b.data()};
  const size_t num = nhwc ? S : 1;
  const size_t size[2] = {nhwc ? C / 2 : C / 2 * S, nhwc ? C / 2 : C / 2 * S};
  const int32_t bias[2] = {-12, -130};
  // Scales as a calibrated model has them (not round numbers, which put
  // values next to rounding ties and so on the fp32 path).
  const float norm[2] = {0.0213f, 0.0347f}, scale = 1.0f / 0.0419f;
  Traffic tr{C * S, C * S};
  TimeAgainstMemcpy(state, tr, [&] {
    synetk::QuantizedConcat()(2, src, num, size, bias, norm, &scale, 5, dst.data());
  });
}

// QuantizedScale's benchmark tensors and parameters (C x S, bias or none).
template <bool kBias>
struct ScaleBench {
  size_t C, S;
  bool nhwc;
  Tensor<uint8_t> src;
  Tensor<float> scale, bias;
  Tensor<uint8_t> dst;
  float srcScale = 0.02f, dstScale = 0.05f;
  static constexpr int kSrcZero = 100, kDstZero = 120;
  explicit ScaleBench(const benchmark::State& state)
      : C(state.range(0)), S(state.range(1)), nhwc(state.range(2) != 0),
        src(Random<uint8_t>(C * S)), scale(Random<float>(C)), bias(Random<float>(C)), dst(C * S) {}
  const float* Bias() const { return kBias ? bias.data() : nullptr; }
  Traffic Bytes() const { return Traffic{C * S, C * S}; }
};

template <bool kBias>
void BM_QuantScale(benchmark::State& state) {
  ScaleBench<kBias> b(state);
  auto run = [&](auto fmt) {
    synetk::QuantizedScale<decltype(fmt)>()(b.src.data(), &b.srcScale, b.kSrcZero, b.C, b.S,
                                            b.scale.data(), b.Bias(), b.dst.data(), &b.dstScale,
                                            b.kDstZero);
  };
  TimeAgainstMemcpy(state, b.Bytes(), [&] {
    if (b.nhwc) run(synetk::Nhwc());
    else run(synetk::Nchw());
  });
}

// The same through a QuantizedScaleContext made before timing (as an
// engine's layer holds one): maps and fixed-point plans worked out once.
template <bool kBias>
void BM_QuantScaleContext(benchmark::State& state) {
  ScaleBench<kBias> b(state);
  auto run = [&](auto fmt) {
    const synetk::QuantizedScaleContext<decltype(fmt)> ctx(&b.srcScale, b.kSrcZero, b.C,
                                                           b.scale.data(), b.Bias(), &b.dstScale,
                                                           b.kDstZero);
    TimeAgainstMemcpy(state, b.Bytes(), [&] { ctx.Forward(b.src.data(), b.S, b.dst.data()); });
  };
  if (b.nhwc) run(synetk::Nhwc());
  else run(synetk::Nchw());
}

// srcC0 = srcC1 = C/2.
template <int kType>
void BM_QuantShuffle(benchmark::State& state) {
  const size_t C = state.range(0), S = state.range(1);
  const bool nhwc = state.range(2) != 0;
  auto a = Random<uint8_t>(C / 2 * S), b = Random<uint8_t>(C / 2 * S);
  Tensor<uint8_t> d0(C / 2 * S), d1(C / 2 * S);
  const float n0 = 0.0213f, n1 = 0.0347f, scale = 1.0f / 0.0419f;  // as in BM_QuantConcat
  Traffic tr{C * S, C * S};
  auto run = [&](auto fmt) {
    synetk::QuantizedShuffle<decltype(fmt)>()(a.data(), -12, &n0, C / 2, b.data(), -200, &n1, C / 2,
                                              S, d0.data(), d1.data(), &scale, 9, kType);
  };
  TimeAgainstMemcpy(state, tr, [&] {
    if (nhwc) run(synetk::Nhwc());
    else run(synetk::Nchw());
  });
}

BENCHMARK_TEMPLATE(BM_QuantDequantize, uint8_t, float)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_QuantDequantize, uint8_t, bfloat16_t)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_QuantDequantize, int8_t, float16_t)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_QuantQuantize, float, uint8_t)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_QuantQuantize, bfloat16_t, uint8_t)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_QuantQuantize, float16_t, int8_t)->Apply(Shapes);
BENCHMARK(BM_QuantConcat)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_QuantScale, true)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_QuantScale, false)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_QuantScaleContext, true)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_QuantScaleContext, false)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_QuantShuffle, 0)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_QuantShuffle, 1)->Apply(Shapes);

}  // namespace
