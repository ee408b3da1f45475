// Copyright synetk authors. SPDX-License-Identifier: MIT
// Quantization layers against the scalar reference on every SIMD target.
// Tolerance: none. Every output (integer, and fp32/bf16/f16 of dequantize) must
// equal the reference bit for bit, which also makes the targets bit-identical.
// The kernels are compiled in tests/kernels/ (compile-once mode).
#include "synetk/declarations.h"
#include "synetk/simd.h"

#include "harness.h"

#include <hwy/aligned_allocator.h>
#include "reference/quant_ref.h"

#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>

namespace {

using namespace synetk_test;
using hwy::bfloat16_t;
using hwy::float16_t;

template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// First differing element, for messages.
template <typename T>
std::string FirstDiff(const std::vector<T>& got, const std::vector<T>& want) {
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      uint32_t g = 0, w = 0;
      std::memcpy(&g, &got[i], sizeof(T));
      std::memcpy(&w, &want[i], sizeof(T));
      return "element " + std::to_string(i) + ": got bits " + std::to_string(g) + ", want " + std::to_string(w);
    }
  }
  return "sizes " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
}

#define REQUIRE_SAME(got, want) \
  do {                                                  \
    const auto& g_ = (got);                             \
    const auto& w_ = (want);                            \
    INFO(FirstDiff(g_, w_));                            \
    REQUIRE(SameBits(g_, w_));                          \
  } while (0)

template <typename T>
std::vector<T> Transpose(const std::vector<T>& v, size_t C, size_t S) {  // NCHW -> NHWC
  std::vector<T> out(v.size());
  for (size_t c = 0; c < C; ++c)
    for (size_t s = 0; s < S; ++s) out[s * C + c] = v[c * S + s];
  return out;
}

std::vector<uint8_t> RandomBytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(Rng()());
  return v;
}

int RandomInt(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(Rng()); }
float RandomFloat(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(Rng()); }

template <typename Q>
constexpr int QMin() { return std::is_signed_v<Q> ? -128 : 0; }
template <typename Q>
constexpr int QMax() { return std::is_signed_v<Q> ? 127 : 255; }

// Float-side test element: float uses identity conversions.
template <typename F>
F ToElem(float f) { return TestElem<F>::FromFloat(f); }

// ---- DequantizeLinear --------------------------------------------------------

template <typename Q, typename F>
void CheckDequantize(size_t n, int bias, float norm) {
  INFO("dequantize " << (std::is_signed_v<Q> ? "i8" : "u8") << " -> " << TestElem<F>::kName
                     << " n=" << n << " bias=" << bias << " norm=" << norm);
  std::vector<Q> in(n);
  for (auto& x : in) x = static_cast<Q>(Rng()());
  if (n > 1) in[0] = static_cast<Q>(QMin<Q>()), in[1] = static_cast<Q>(QMax<Q>());
  std::vector<F> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = ToElem<F>(synetk_ref::DequantizeValue(in[i], bias, norm));
  Guarded<Q> src(n);
  Guarded<F> dst(n);
  src.Fill(in);
  synetk::DequantizeLinear<Q, F>()(src.data(), n, bias, &norm, dst.data());
  REQUIRE(dst.GuardsIntact());
  REQUIRE(src.GuardsIntact());
  REQUIRE_SAME(dst.ToVector(), want);
}

TEMPLATE_TEST_CASE("DequantizeLinear matches the reference on every target", "[quant]", float,
                   bfloat16_t, float16_t) {
  SYNETK_FOR_EACH_TARGET([] {
    for (size_t n : EdgeSizes()) {
      CheckDequantize<uint8_t, TestType>(n, -RandomInt(0, 255), RandomFloat(0.001f, 0.1f));
      CheckDequantize<int8_t, TestType>(n, -RandomInt(-128, 127), RandomFloat(0.001f, 0.1f));
    }
    CheckDequantize<uint8_t, TestType>(64 * 56 * 3 + 5, -128, 0.0371f);
    CheckDequantize<int8_t, TestType>(1000, 128, 3.0e38f);   // overflow to inf
    CheckDequantize<uint8_t, TestType>(1000, -255, -1.7f);  // negative norm
    CheckDequantize<uint8_t, TestType>(333, 0, 1e-41f);     // subnormal products
    // bf16 ties: +-1 * 257/256 and +-1 * 259/256 have 9 significant bits,
    // the last one set (to even: down, then up); the other inputs anywhere.
    CheckDequantize<uint8_t, TestType>(300, 0, 257.0f / 256);
    CheckDequantize<uint8_t, TestType>(300, -255, 259.0f / 256);
    CheckDequantize<int8_t, TestType>(300, 0, -259.0f / 256);
    // The same ties in calls long enough for the 16-bit byte maps (AVX3_DL,
    // 512 elements or more; a tail of 37 takes the formula).
    CheckDequantize<uint8_t, TestType>(1189, -255, 259.0f / 256);
    CheckDequantize<int8_t, TestType>(1189, 0, -257.0f / 256);
  });
}

// ---- QuantizeLinear -----------------------------------------------------------

// Values on every kind of edge: ties (x.5, both signs), both ends of the range,
// huge, infinite, NaN, beyond int32.
std::vector<float> EdgeFloats() {
  std::vector<float> v;
  for (int k = -300; k <= 300; ++k) {
    v.push_back(k + 0.5f);
    v.push_back(static_cast<float>(k));
    v.push_back(std::nextafter(k + 0.5f, 1e9f));
    v.push_back(std::nextafter(k + 0.5f, -1e9f));
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {0.49999997f, -0.49999997f, 0.0f, -0.0f, inf, -inf, std::nanf(""), -std::nanf(""),
                  1e30f, -1e30f, 3.0e9f, -3.0e9f, 2147483648.0f, -2147483648.0f, 2147483520.0f,
                  -2147483520.0f, 8388607.5f, -8388607.5f, 8388609.0f, 16777217.0f,
                  std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::denorm_min(), 65504.0f, -65504.0f, 127.5f,
                  -128.5f, 255.5f, 254.5f, -0.5f, -1.5f, 1.5f, 2.5f})
    v.push_back(x);
  return v;
}

template <typename F, typename Q>
void CheckQuantize(const std::vector<F>& in, float norm, int zero) {
  const size_t n = in.size();
  INFO("quantize " << TestElem<F>::kName << " -> " << (std::is_signed_v<Q> ? "i8" : "u8")
                   << " n=" << n << " norm=" << norm << " zero=" << zero);
  std::vector<Q> want(n);
  for (size_t i = 0; i < n; ++i) {
    const float p = TestElem<F>::ToFloat(in[i]) * norm;
    want[i] = static_cast<Q>(synetk_ref::QuantizeValue(p, zero, QMin<Q>(), QMax<Q>()));
  }
  Guarded<F> src(n);
  Guarded<Q> dst(n);
  src.Fill(in);
  synetk::QuantizeLinear<F, Q>()(src.data(), n, &norm, zero, dst.data());
  REQUIRE(dst.GuardsIntact());
  REQUIRE_SAME(dst.ToVector(), want);
}

template <typename F, typename Q>
void QuantizeCases() {
  for (size_t n : EdgeSizes()) {
    std::vector<F> in(n);
    for (auto& x : in) x = ToElem<F>(RandomFloat(-300.0f, 300.0f));
    CheckQuantize<F, Q>(in, RandomFloat(0.5f, 2.0f), RandomInt(QMin<Q>(), QMax<Q>()));
  }
  std::vector<F> edge;
  for (float x : EdgeFloats()) edge.push_back(ToElem<F>(x));
  for (int zero : {QMin<Q>(), 0, 1, QMax<Q>(), 100})  // odd and even zero points
    for (float norm : {1.0f, 0.5f, 2.0f, -1.0f, 1e-3f, 1e30f}) CheckQuantize<F, Q>(edge, norm, zero);
  std::vector<F> big(64 * 56 * 2 + 3);
  for (auto& x : big) x = ToElem<F>(RandomFloat(-10.0f, 10.0f));
  CheckQuantize<F, Q>(big, 1.0f / 0.043f, QMax<Q>() / 2);
  // One edge value alone among ordinary ones, at every position of the
  // first 70 (more than four 16-lane vectors): the kernel may test a whole
  // block at once and must see any single NaN, infinity, |v| >= 2^22 or
  // |v| >= 2^31 (where the x86 conversion gives INT_MIN), and values that
  // saturate int16 before the zero point is added.
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {std::nanf(""), -std::nanf(""), inf, -inf, 4194304.0f, -4194304.0f, 4194303.5f,
                  -4194303.5f, 16777216.0f, -16777216.0f, 3.0e9f, -1e30f, 2147483648.0f,
                  2147483520.0f, -2147483648.0f, -2147483520.0f, 32767.5f, 32768.0f,
                  -32768.5f, -32769.0f, 65535.0f}) {
    std::vector<F> lone(70);
    for (auto& y : lone) y = ToElem<F>(RandomFloat(-90.0f, 90.0f));
    for (size_t p = 0; p < lone.size(); ++p) {
      const F keep = lone[p];
      lone[p] = ToElem<F>(x);
      CheckQuantize<F, Q>(lone, 1.0f, 1);
      lone[p] = keep;
    }
  }
}

// Non-temporal stores forced on (SetStreamingThreshold) into a 64-byte
// aligned output: the same bits as the reference.
TEST_CASE("DequantizeLinear gives the same bits with streaming stores", "[quant][streaming]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (size_t n : {size_t{1}, size_t{63}, size_t{64}, size_t{1000}, size_t{4099}}) {
      const auto in = RandomBytes(n);
      const float norm = 0.0213f;
      auto got = hwy::AllocateAligned<float>(n);
      synetk::SetStreamingThreshold(1);
      synetk::DequantizeLinear<uint8_t, float>()(in.data(), n, -12, &norm, got.get());
      synetk::DequantizeLinear<uint8_t, float>()(in.data(), n, -12, &norm, got.get(),
                                                 synetk::Range{n / 3, n});
      synetk::SetStreamingThreshold(0);
      for (size_t i = 0; i < n; ++i) {
        const float want = synetk_ref::DequantizeValue(in[i], -12, norm);
        if (std::memcmp(&got[i], &want, sizeof(float)) != 0) FAIL("element " << i << " of " << n);
      }
    }
  });
}

TEMPLATE_TEST_CASE("QuantizeLinear matches the reference on every target", "[quant]", float,
                   bfloat16_t, float16_t) {
  SYNETK_FOR_EACH_TARGET([] {
    QuantizeCases<TestType, uint8_t>();
    QuantizeCases<TestType, int8_t>();
  });
}

// Software prefetching (Intel CPUs only, detail::softwarePrefetch) forced on,
// so that every machine runs the instances that prefetch; without it the
// calls run the plain ones (kPlain), which the tests above cover.
TEST_CASE("DequantizeLinear and QuantizeLinear with software prefetching", "[quant]") {
  struct Restore {
    ~Restore() { synetk::detail::SetSoftwarePrefetchForTest(synetk::detail::CpuidSaysIntel()); }
  } restore;
  synetk::detail::SetSoftwarePrefetchForTest(true);
  SYNETK_FOR_EACH_TARGET([] {
    for (size_t n : {size_t{1}, size_t{100}, size_t{64 * 56 * 3 + 5}}) {
      CheckDequantize<uint8_t, float>(n, -128, 0.0371f);
      CheckDequantize<int8_t, bfloat16_t>(n, 3, 0.0213f);
    }
    QuantizeCases<float, uint8_t>();
    QuantizeCases<bfloat16_t, int8_t>();
  });
}

// ---- QuantizedConcat -------------------------------------------------------------

void CheckConcat(size_t count, size_t num, const std::vector<size_t>& size,
                 const std::vector<int32_t>& bias, const std::vector<float>& norm, float scale,
                 int zero) {
  INFO("concat count=" << count << " num=" << num << " size[0]=" << size[0] << " scale=" << scale
                       << " zero=" << zero);
  std::vector<std::vector<uint8_t>> in(count);
  std::vector<Guarded<uint8_t>> bufs;
  bufs.reserve(count);
  std::vector<const uint8_t*> ptrs(count);
  size_t total = 0;
  for (size_t s = 0; s < count; ++s) {
    in[s] = RandomBytes(num * size[s]);
    bufs.emplace_back(num * size[s]);
    bufs[s].Fill(in[s]);
    ptrs[s] = bufs[s].data();
    total += size[s];
  }
  Guarded<uint8_t> dst(num * total);
  synetk::QuantizedConcat()(count, ptrs.data(), num, size.data(), bias.data(), norm.data(), &scale,
                            zero, dst.data());
  REQUIRE(dst.GuardsIntact());
  REQUIRE_SAME(dst.ToVector(), synetk_ref::Concat(in, num, size, bias, norm, scale, zero));
  for (size_t s = 0; s < count; ++s) REQUIRE_SAME(bufs[s].ToVector(), in[s]);
}

TEST_CASE("QuantizedConcat matches the reference on every target", "[quant]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (size_t n : EdgeSizes()) {
      for (size_t count : {1, 2, 3}) {
        std::vector<size_t> size;
        std::vector<int32_t> bias;
        std::vector<float> norm;
        for (size_t s = 0; s < count; ++s) {
          size.push_back(s == 0 ? n : (n * 7 + s) % 50 + 1);
          bias.push_back(-RandomInt(0, 255));
          norm.push_back(RandomFloat(0.01f, 0.1f));
        }
        CheckConcat(count, 1 + n % 3, size, bias, norm, 1.0f / RandomFloat(0.02f, 0.06f),
                    RandomInt(0, 255));
      }
    }
    // Ties: (x - 0) * 0.5 * 1 is k + 0.5 for odd x, with odd and even zero points.
    for (int zero : {0, 3, 128, 255})
      CheckConcat(2, 3, {256, 47}, {0, -101}, {0.5f, -0.5f}, 1.0f, zero);
    // Saturation both ends, huge products (norm*scale*255 overflows to inf);
    // short rows and rows long enough for a byte table (>= 512 bytes).
    CheckConcat(2, 2, {100, 33}, {-128, 0}, {3e38f, 1e20f}, 1e20f, 7);
    CheckConcat(2, 2, {600, 333}, {-128, 0}, {3e38f, 1e20f}, 1e20f, 7);
    // Long rows (>= 2048 bytes per input) go through the 16-bit fixed-point
    // path whenever it reproduces all 256 entries of the byte map, else fp32:
    // many parameter sets, slopes from 1e-3 to 30, both signs, and ties.
    for (int i = 0; i < 200; ++i) {
      const float norm = std::exp(RandomFloat(-7.0f, 0.0f)) * (i % 5 == 0 ? -1.0f : 1.0f);
      const float scale = std::exp(RandomFloat(0.0f, 5.0f));
      CheckConcat(1, 1 + i % 2, {4096 + static_cast<size_t>(i)}, {-RandomInt(0, 255)}, {norm}, scale,
                  RandomInt(0, 255));
    }
    for (float norm : {0.5f, 0.25f, 1.0f, 2.0f, 0.02f, 0.125f})
      for (int zero : {0, 1, 128})
        CheckConcat(2, 1, {4096, 2100}, {0, -1}, {norm, norm}, 1.0f / 0.04f * 0.04f, zero);
    // NHWC-style: many short blocks (sizes dividing 64 and not), enough bytes per
    // input for a byte table; block counts that are no multiple of 64/size.
    CheckConcat(2, 41, {32, 16}, {-7, -200}, {0.031f, 0.012f}, 1.0f / 0.05f, 9);
    CheckConcat(3, 151, {8, 4, 6}, {0, -255, -77}, {0.02f, 0.5f, 0.013f}, 1.0f / 0.03f, 250);
    CheckConcat(2, 601, {1, 2}, {-1, -128}, {0.7f, 0.01f}, 3.0f, 128);
    // Inputs in groups of 8 and blocks in bands of about 16 KiB of output:
    // 11 inputs (two groups), 700 blocks (several bands), long enough per
    // input for the fixed-point path; and the 64x56x56 NHWC concat of two
    // 32-channel halves.
    {
      std::vector<size_t> size;
      std::vector<int32_t> bias;
      std::vector<float> norm;
      for (size_t s = 0; s < 11; ++s) {
        size.push_back(s % 4 == 0 ? 32 : 3 + s * 5);
        bias.push_back(-RandomInt(0, 255));
        norm.push_back(RandomFloat(0.01f, 0.1f));
      }
      CheckConcat(11, 700, size, bias, norm, 1.0f / 0.047f, 33);
    }
    CheckConcat(2, 56 * 56, {32, 32}, {-12, -130}, {0.0213f, 0.0347f}, 1.0f / 0.0419f, 5);
    // Equal halves of 8, 16 and 32 bytes (AVX3_DL merges them into whole
    // output blocks), with block counts that leave a tail; and such a pair
    // as the second group of 10 inputs, whose output blocks are wider.
    for (size_t n : {size_t{8}, size_t{16}, size_t{32}}) {
      CheckConcat(2, 509, {n, n}, {-3, -250}, {0.0213f, 0.0347f}, 1.0f / 0.0419f, 5);
      std::vector<size_t> size(10, 5);
      size[8] = size[9] = n;
      CheckConcat(10, 131, size, std::vector<int32_t>(10, -77), std::vector<float>(10, 0.03f),
                  1.0f / 0.05f, 40);
    }
    // Equal halves of a vector or more (AVX3_DL maps both block by block),
    // whole vectors or not, alone and as the second group of 10 inputs.
    for (size_t n : {size_t{63}, size_t{64}, size_t{100}, size_t{128}, size_t{1024}, size_t{1025}}) {
      CheckConcat(2, 37, {n, n}, {-3, -250}, {0.0213f, 0.0347f}, 1.0f / 0.0419f, 5);
      std::vector<size_t> size(10, 5);
      size[8] = size[9] = n;
      CheckConcat(10, 13, size, std::vector<int32_t>(10, -77), std::vector<float>(10, 0.03f),
                  1.0f / 0.05f, 40);
    }
    // Rows of 16 and 32 bytes, several to a vector, and an odd number of
    // them: the last rows are left over after the whole vectors.
    CheckConcat(2, 301, {16, 32}, {-12, -130}, {0.0213f, 0.0347f}, 1.0f / 0.0419f, 5);
    // Realistic: two 32-channel NHWC-free blocks per image (num = 1).
    CheckConcat(2, 1, {32 * 56 * 56, 32 * 56 * 56}, {-120, -3}, {0.021f, 0.034f}, 1.0f / 0.04f, 117);
  });
}

// ---- QuantizedScale ----------------------------------------------------------------

struct ScaleCase {
  size_t C, S;
  std::vector<uint8_t> src;
  float srcScale, dstScale;
  int srcZero, dstZero;
  std::vector<float> scale, bias;
  bool withBias;
};

ScaleCase MakeScale(size_t C, size_t S, bool withBias) {
  ScaleCase k{C, S, RandomBytes(C * S), RandomFloat(0.01f, 0.1f), RandomFloat(0.01f, 0.1f),
              RandomInt(0, 255), RandomInt(0, 255), {}, {}, withBias};
  for (size_t c = 0; c < C; ++c) {
    k.scale.push_back(RandomFloat(-2.0f, 2.0f));
    k.bias.push_back(RandomFloat(-3.0f, 3.0f));
  }
  return k;
}

template <class F>
std::vector<uint8_t> RunScale(const ScaleCase& k, const std::vector<uint8_t>& in) {
  constexpr bool nhwc = std::is_same_v<F, synetk::Nhwc>;
  Guarded<uint8_t> src(in.size()), dst(in.size());
  src.Fill(in);
  const float* bias = k.withBias ? k.bias.data() : nullptr;
  synetk::QuantizedScale<F>()(src.data(), &k.srcScale, k.srcZero, k.C, k.S, k.scale.data(), bias,
                              dst.data(), &k.dstScale, k.dstZero);
  REQUIRE(dst.GuardsIntact());
  const auto want = synetk_ref::Scale(in, k.srcScale, k.srcZero, k.C, k.S, k.scale.data(), bias,
                                      k.dstScale, k.dstZero, nhwc);
  REQUIRE_SAME(dst.ToVector(), want);
  // In place gives the same bytes.
  auto inplace = in;
  synetk::QuantizedScale<F>()(inplace.data(), &k.srcScale, k.srcZero, k.C, k.S, k.scale.data(),
                              bias, inplace.data(), &k.dstScale, k.dstZero);
  REQUIRE_SAME(inplace, want);
  // A context made on this target: its stored maps and plans give the same
  // bytes, into dst and in place.
  const synetk::QuantizedScaleContext<F> ctx(&k.srcScale, k.srcZero, k.C, k.scale.data(), bias,
                                             &k.dstScale, k.dstZero);
  Guarded<uint8_t> viaCtx(in.size());
  ctx.Forward(src.data(), k.S, viaCtx.data());
  REQUIRE(viaCtx.GuardsIntact());
  REQUIRE_SAME(viaCtx.ToVector(), want);
  inplace = in;
  ctx.Forward(inplace.data(), k.S, inplace.data());
  REQUIRE_SAME(inplace, want);
  return want;
}

void CheckScale(const ScaleCase& k) {
  INFO("scale C=" << k.C << " S=" << k.S << " bias=" << k.withBias);
  const auto nchw = RunScale<synetk::Nchw>(k, k.src);
  const auto nhwc = RunScale<synetk::Nhwc>(k, Transpose(k.src, k.C, k.S));
  REQUIRE_SAME(nhwc, Transpose(nchw, k.C, k.S));
}

TEST_CASE("QuantizedScale matches the reference on every target", "[quant]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (bool withBias : {true, false}) {
      for (size_t C : EdgeSizes())
        for (size_t S : {1, 3, 16, 17, 49}) CheckScale(MakeScale(C, S, withBias));
      for (size_t S : EdgeSizes()) CheckScale(MakeScale(5, S, withBias));
      CheckScale(MakeScale(64, 56 * 4, withBias));  // realistic
      CheckScale(MakeScale(9, 28 * 28, withBias));   // NCHW rows with a byte table
      // Calls of at least 1024 positions plan the 16-bit fixed-point path
      // (NHWC: whole chunks of 2 * Lanes(int16) channels, the rest in fp32).
      for (size_t C : {1, 16, 31, 32, 33, 64, 65, 97}) CheckScale(MakeScale(C, 1030, withBias));
      {
        // NHWC chunks whose plans share one shift (|slope| < 1 gives s = 7)
        // and, from channel 64, chunks whose lanes shift by their own s.
        ScaleCase u = MakeScale(96, 1030, withBias);
        u.srcScale = u.dstScale = 0.05f;
        for (size_t c = 0; c < 96; ++c) u.scale[c] = c < 64 ? RandomFloat(-0.9f, 0.9f) : RandomFloat(-6.0f, 6.0f);
        CheckScale(u);
      }
      if (!withBias) {
        // Channels whose nearest line (M, B or B + 1) misses more than twice:
        // the planner's search over nearby lines brings 5 to 0 misses, 17 to
        // 1, 33 to 2; 50 keeps 29 (NHWC patches it, NCHW runs it in fp32).
        // Found offline for these parameters.
        ScaleCase r = MakeScale(64, 1030, false);
        r.srcScale = 0.02f;
        r.srcZero = 100;
        r.dstScale = 0.05f;
        r.dstZero = 120;
        r.scale[5] = -1.544f;
        r.scale[17] = -1.397f;
        r.scale[33] = -0.875f;
        r.scale[50] = -1.875f;
        CheckScale(r);
      }
      {
        // Maps with ties have no plan: two channels (NHWC fixes them up per
        // pixel, NCHW runs their rows in fp32), then all of them.
        ScaleCase t = MakeScale(70, 1030, withBias);
        t.srcScale = 0.5f;
        t.dstScale = 1.0f;
        t.srcZero = 0;
        t.scale[3] = 1.0f;
        t.scale[40] = -1.0f;
        t.bias[3] = t.bias[40] = 0.0f;
        CheckScale(t);
        std::fill(t.scale.begin(), t.scale.end(), 1.0f);
        std::fill(t.bias.begin(), t.bias.end(), 0.0f);
        CheckScale(t);
      }
      for (size_t S : {40, 520, 1030}) {
        // Ties: (x - 0) * 0.5 * 1 (+ 0) * 1 is k + 0.5 for odd x.
        ScaleCase t = MakeScale(6, S, withBias);
        t.srcScale = 0.5f;
        t.dstScale = 1.0f;
        t.srcZero = 0;
        std::fill(t.scale.begin(), t.scale.end(), 1.0f);
        t.scale[1] = -1.0f;
        std::fill(t.bias.begin(), t.bias.end(), 0.0f);
        for (int z : {0, 1, 100, 255}) {
          t.dstZero = z;
          CheckScale(t);
        }
        // Overflow to inf, inf * 0 = NaN (gives dstZero), saturation.
        ScaleCase h = MakeScale(4, S, withBias);
        h.srcScale = 3e38f;
        h.scale = {1e10f, 0.0f, -1e10f, 1e-30f};
        CheckScale(h);
        // Finite values far outside [0, 255] in three of 70 channels: the
        // rounding needs the fp32 clamp there (|v| >= 2^22; channel 5 spans
        // -2.55e7..0, where the bits of v + 1.5*2^23 wrap), saturation elsewhere.
        ScaleCase f = MakeScale(70, S, withBias);
        f.srcScale = 1.0f;
        f.dstScale = 1.0f;
        f.srcZero = 0;
        f.scale[3] = 1e9f;
        f.scale[5] = -1e5f;
        f.scale[66] = -1e9f;
        CheckScale(f);
      }
    }
  });
}

// Stateless calls keep nothing between calls: seven parameter sets, each
// differing from the first in one input, in turns, each called twice in a
// row per format (RunScale: out of place, then in place), must each give
// their own reference bytes. S = 40: fp32 rows; 600: NCHW byte tables on the
// byte-lookup targets; 1030: plans made for the call.
TEST_CASE("QuantizedScale's stateless calls depend on their own parameters only", "[quant]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (size_t S : {40, 600, 1030}) {
      const ScaleCase base = MakeScale(64, S, true);
      std::vector<ScaleCase> sets(7, base);
      sets[1].scale[7] = -sets[1].scale[7];
      sets[2].bias[63] += 1.0f;
      sets[3].srcScale *= 1.5f;
      sets[4].dstZero = (sets[4].dstZero + 7) % 256;
      sets[5].withBias = false;
      sets[6].srcZero = (sets[6].srcZero + 9) % 256;
      for (int round = 0; round < 3; ++round) {
        for (size_t i = 0; i < sets.size(); ++i) {
          INFO("S=" << S << " set " << i << " round " << round);
          RunScale<synetk::Nchw>(sets[i], sets[i].src);
          RunScale<synetk::Nhwc>(sets[i], Transpose(sets[i].src, sets[i].C, S));
        }
      }
      // The same parameters one float bit apart.
      ScaleCase ulp = base;
      ulp.scale[0] = std::nextafter(ulp.scale[0], 10.0f);
      const ScaleCase* const both[] = {&base, &ulp};
      for (const ScaleCase* k : both) {
        RunScale<synetk::Nchw>(*k, k->src);
        RunScale<synetk::Nhwc>(*k, Transpose(k->src, k->C, S));
      }
    }
  });
}

TEST_CASE("QuantizedScale NHWC with the output a few pixels ahead of the input", "[quant]") {
  // Output addresses 1 to 4 pixels (and a little more) past the input's,
  // modulo 4 KiB, take the kernel's load-ahead loop (4K aliasing); the bytes
  // must not change. One buffer holds both tensors at each gap.
  SYNETK_FOR_EACH_TARGET([] {
    for (size_t C : {32, 64, 96, 256}) {
      const size_t S = 1030;
      const ScaleCase k = MakeScale(C, S, true);
      const auto in = Transpose(k.src, C, S);
      const auto want = synetk_ref::Scale(in, k.srcScale, k.srcZero, C, S, k.scale.data(),
                                          k.bias.data(), k.dstScale, k.dstZero, true);
      const size_t n = C * S, span = (n + 4095) / 4096 * 4096;
      for (size_t gap : {size_t{1}, C - 1, C, C + 32, 2 * C + 7, 3 * C, 4 * C, 4 * C + 40}) {
        INFO("C=" << C << " gap=" << gap);
        std::vector<uint8_t> buf(2 * span + 4096 + 64);
        const size_t at = (64 - reinterpret_cast<uintptr_t>(buf.data()) % 64) % 64;
        uint8_t* src = buf.data() + at;
        uint8_t* dst = src + span + gap % 4096;
        std::memcpy(src, in.data(), n);
        for (int call = 0; call < 2; ++call) {  // the same bytes at every call
          synetk::QuantizedScale<synetk::Nhwc>()(src, &k.srcScale, k.srcZero, C, S,
                                                 k.scale.data(), k.bias.data(), dst, &k.dstScale,
                                                 k.dstZero);
          REQUIRE_SAME(std::vector<uint8_t>(dst, dst + n), want);
        }
        REQUIRE_SAME(std::vector<uint8_t>(src, src + n), in);
      }
    }
  });
}

TEST_CASE("QuantizedScaleContext made on one target runs on every target", "[quant]") {
  // The stored maps and plans do not depend on the target that made them:
  // contexts made on each target (SCALAR or EMU128 plan nothing) run on each.
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  struct Reset {  // also when a REQUIRE throws
    ~Reset() { hwy::SetSupportedTargetsForTest(0); }
  } reset;
  for (bool withBias : {true, false}) {
    // S = 1: NCHW runs as NHWC (the layouts coincide), without the maps.
    for (auto [C, S] : {std::pair<size_t, size_t>{64, 1030}, {70, 300}, {33, 65}, {40, 1}}) {
      const ScaleCase k = MakeScale(C, S, withBias);
      const float* bias = withBias ? k.bias.data() : nullptr;
      const auto nhwcIn = Transpose(k.src, C, S);
      const auto nchwWant = synetk_ref::Scale(k.src, k.srcScale, k.srcZero, C, S, k.scale.data(),
                                              bias, k.dstScale, k.dstZero, false);
      const auto nhwcWant = synetk_ref::Scale(nhwcIn, k.srcScale, k.srcZero, C, S, k.scale.data(),
                                              bias, k.dstScale, k.dstZero, true);
      for (int64_t maker : targets) {
        hwy::SetSupportedTargetsForTest(maker);
        REQUIRE(synetk::ChosenTarget() == maker);
        const synetk::QuantizedScaleContext<synetk::Nchw> nchw(&k.srcScale, k.srcZero, C,
                                                               k.scale.data(), bias, &k.dstScale,
                                                               k.dstZero);
        const synetk::QuantizedScaleContext<synetk::Nhwc> nhwc(&k.srcScale, k.srcZero, C,
                                                               k.scale.data(), bias, &k.dstScale,
                                                               k.dstZero);
        REQUIRE(nchw.InternalBufferSize() >= 256 * C);
        for (int64_t runner : targets) {
          hwy::SetSupportedTargetsForTest(runner);
          REQUIRE(synetk::ChosenTarget() == runner);
          INFO("C=" << C << " S=" << S << " bias=" << withBias << " made on "
                    << hwy::TargetName(maker) << ", run on " << hwy::TargetName(runner));
          std::vector<uint8_t> out(C * S);
          nchw.Forward(k.src.data(), S, out.data());
          REQUIRE_SAME(out, nchwWant);
          nhwc.Forward(nhwcIn.data(), S, out.data());
          REQUIRE_SAME(out, nhwcWant);
        }
      }
    }
  }
}

// ---- QuantizedShuffle -----------------------------------------------------------------

struct ShuffleCase {
  size_t C0, C1, S;
  int type;
  std::vector<uint8_t> src0, src1;
  int bias0, bias1, zero;
  float norm0, norm1, scale;
  size_t In0() const { return type == 0 ? C0 : (C0 + C1) / 2; }
  size_t In1() const { return type == 0 ? C1 : (C0 + C1) / 2; }
  size_t Out0() const { return type == 0 ? (C0 + C1) / 2 : C0; }
  size_t Out1() const { return type == 0 ? (C0 + C1) / 2 : C1; }
};

ShuffleCase MakeShuffle(int type, size_t C0, size_t C1, size_t S) {
  ShuffleCase k{C0, C1, S, type, {}, {}, -RandomInt(0, 255), -RandomInt(0, 255), RandomInt(0, 255),
                RandomFloat(0.01f, 0.1f), RandomFloat(0.01f, 0.1f), 1.0f / RandomFloat(0.02f, 0.06f)};
  k.src0 = RandomBytes(k.In0() * S);
  k.src1 = RandomBytes(k.In1() * S);
  return k;
}

template <class F>
synetk_ref::ShuffleOut RunShuffle(const ShuffleCase& k, const std::vector<uint8_t>& in0,
                                  const std::vector<uint8_t>& in1) {
  constexpr bool nhwc = std::is_same_v<F, synetk::Nhwc>;
  Guarded<uint8_t> s0(in0.size()), s1(in1.size()), d0(k.Out0() * k.S), d1(k.Out1() * k.S);
  s0.Fill(in0);
  s1.Fill(in1);
  synetk::QuantizedShuffle<F>()(s0.data(), k.bias0, &k.norm0, k.C0, s1.data(), k.bias1, &k.norm1,
                                k.C1, k.S, d0.data(), d1.data(), &k.scale, k.zero, k.type);
  REQUIRE(d0.GuardsIntact());
  REQUIRE(d1.GuardsIntact());
  const auto want = synetk_ref::Shuffle(in0, k.bias0, k.norm0, k.C0, in1, k.bias1, k.norm1, k.C1,
                                        k.S, k.scale, k.zero, k.type, nhwc);
  REQUIRE_SAME(d0.ToVector(), want.dst0);
  REQUIRE_SAME(d1.ToVector(), want.dst1);
  REQUIRE_SAME(s0.ToVector(), in0);
  return want;
}

void CheckShuffle(const ShuffleCase& k) {
  INFO("shuffle type " << k.type << " C0=" << k.C0 << " C1=" << k.C1 << " S=" << k.S);
  const auto nchw = RunShuffle<synetk::Nchw>(k, k.src0, k.src1);
  const auto nhwc = RunShuffle<synetk::Nhwc>(k, Transpose(k.src0, k.In0(), k.S),
                                             Transpose(k.src1, k.In1(), k.S));
  REQUIRE_SAME(nhwc.dst0, Transpose(nchw.dst0, k.Out0(), k.S));
  REQUIRE_SAME(nhwc.dst1, Transpose(nchw.dst1, k.Out1(), k.S));
}

TEST_CASE("QuantizedShuffle matches the reference on every target", "[quant]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (int type : {0, 1}) {
      for (size_t C : {2, 4, 6, 8, 16, 30, 32, 34, 62, 64, 96, 98, 130, 512, 1026}) {
        for (size_t S : {1, 5, 17}) {
          CheckShuffle(MakeShuffle(type, C, C, S));
          CheckShuffle(MakeShuffle(type, C, C + 2, S));                  // srcC0 < srcC1
          CheckShuffle(MakeShuffle(type, C + 4, C > 2 ? C - 2 : 2, S));  // srcC0 > srcC1
        }
      }
      for (size_t S : EdgeSizes()) CheckShuffle(MakeShuffle(type, 4, 10, S));
      CheckShuffle(MakeShuffle(type, 32, 48, 28 * 28));  // realistic
      // Pixels in whole 32-byte chunks, inputs long enough for fixed point
      // (AVX2 moves such chunks straight to their places): equal halves, an
      // uneven type-1 split inside a chunk (C0/2 = 48), and the benchmark's
      // parameters, whose maps have fixed-point plans.
      for (auto [c0, c1] : {std::pair<size_t, size_t>{32, 32}, {64, 128}, {96, 32}}) {
        CheckShuffle(MakeShuffle(type, c0, c1, 100));
        ShuffleCase t = MakeShuffle(type, c0, c1, 77);
        t.bias0 = -12;
        t.bias1 = -200;
        t.norm0 = 0.0213f;
        t.norm1 = 0.0347f;
        t.scale = 1.0f / 0.0419f;
        t.zero = 9;
        CheckShuffle(t);
      }
      // NCHW planes of 2 KiB and more (AVX3_DL maps each in a call of its
      // own): whole vectors, an odd vector, a masked tail.
      for (size_t S : {2048, 3136, 2053}) CheckShuffle(MakeShuffle(type, 6, 10, S));
      // Pixels wider than the kernels' staging buffer (4096 bytes).
      CheckShuffle(MakeShuffle(type, 4098, 4102, 2));
      CheckShuffle(MakeShuffle(type, 8, 8200, 3));
      CheckShuffle(MakeShuffle(type, 8200, 6, 2));
      // Ties: x * 0.5 * 1 with bias 0; short rows and rows with a byte table.
      for (size_t S : {37, 300}) {
        ShuffleCase t = MakeShuffle(type, 6, 10, S);
        t.bias0 = t.bias1 = 0;
        t.norm0 = 0.5f;
        t.norm1 = -0.5f;
        t.scale = 1.0f;
        for (int z : {0, 1, 254, 255}) {
          t.zero = z;
          CheckShuffle(t);
        }
        // Products beyond the int32 range.
        t.norm0 = 1e30f;
        t.norm1 = -3e38f;
        t.scale = 1e10f;
        CheckShuffle(t);
      }
    }
  });
}

// ---- Parts (synetk::Range) ----------------------------------------------------------
// A split into parts writes exactly the bytes of one whole call (itself
// checked against the reference above), and nothing outside its part.

// The splits of [0, n): one part, a few uneven ones, and one empty part.
std::vector<std::vector<synetk::Range>> Splits(size_t n) {
  const size_t a = n / 3, b = n / 3 + (n > 2 ? 1 : 0) + n / 5;
  return {{synetk::Range::All()},
          {{0, a}, {a, a}, {a, b}, {b, synetk::Range::All().end}},
          {{0, 1}, {1, n}}};
}

// run(dst..., part) fills the outputs; every split must give `whole`.
template <class Run>
void CheckSplits(size_t n, size_t outBytes, Run&& run) {
  std::vector<uint8_t> whole(outBytes, 0xA5);
  run(whole.data(), synetk::Range::All());
  for (const auto& split : Splits(n)) {
    std::vector<uint8_t> parts(outBytes, 0xA5);
    // Last part first: a part spilling onto a later part's outputs shows.
    for (auto r = split.rbegin(); r != split.rend(); ++r) run(parts.data(), *r);
    REQUIRE_SAME(parts, whole);
  }
}

template <class F>
void CheckQuantParts(size_t C, size_t S) {
  INFO("parts C=" << C << " S=" << S << (std::is_same_v<F, synetk::Nhwc> ? " nhwc" : " nchw"));
  const size_t n = C * S;
  const auto bytes = RandomBytes(n);
  const float norm = 0.0213f, scale = 1.0f / 0.0419f;
  std::vector<float> f(n);
  CheckSplits(n, n * sizeof(float), [&](uint8_t* out, synetk::Range r) {
    synetk::DequantizeLinear<uint8_t, float>()(bytes.data(), n, -12, &norm, reinterpret_cast<float*>(out), r);
  });
  synetk::DequantizeLinear<uint8_t, float>()(bytes.data(), n, -12, &norm, f.data());
  CheckSplits(n, n, [&](uint8_t* out, synetk::Range r) {
    synetk::QuantizeLinear<float, uint8_t>()(f.data(), n, &scale, 3, out, r);
  });
  // Concat: S blocks of two inputs (C/2 + 1 and C - C/2 values each; and
  // C/2 each, the equal halves that AVX3_DL merges).
  for (const size_t h : {C / 2, C / 2 + 1}) {
    const size_t c0 = h, c1 = C - C / 2;
    const auto a = RandomBytes(c0 * S), b = RandomBytes(c1 * S);
    const uint8_t* src[2] = {a.data(), b.data()};
    const size_t size[2] = {c0, c1};
    const int32_t bias[2] = {-12, -130};
    const float norms[2] = {0.0213f, 0.0347f};
    CheckSplits(S, (c0 + c1) * S, [&](uint8_t* out, synetk::Range r) {
      synetk::QuantizedConcat()(2, src, S, size, bias, norms, &scale, 5, out, r);
    });
  }
  std::vector<float> sc(C), bi(C);
  for (size_t c = 0; c < C; ++c) sc[c] = RandomFloat(-2.0f, 2.0f), bi[c] = RandomFloat(-3.0f, 3.0f);
  const float srcScale = 0.02f, dstScale = 0.05f;
  const float* const biasOrNone[2] = {bi.data(), nullptr};
  for (const float* bp : biasOrNone) {
    CheckSplits(S, n, [&](uint8_t* out, synetk::Range r) {
      synetk::QuantizedScale<F>()(bytes.data(), &srcScale, 100, C, S, sc.data(), bp, out, &dstScale,
                                  120, r);
    });
    const synetk::QuantizedScaleContext<F> ctx(&srcScale, 100, C, sc.data(), bp, &dstScale, 120);
    CheckSplits(S, n, [&](uint8_t* out, synetk::Range r) { ctx.Forward(bytes.data(), S, out, r); });
  }
  // Shuffle: srcC0 != srcC1, both even; outputs side by side in one buffer.
  const size_t C0 = 2 * (C / 4 + 1), C1 = 2 * (C / 2 + 2), Ch = (C0 + C1) / 2;
  for (int type : {0, 1}) {
    const size_t in0 = type == 0 ? C0 : Ch, in1 = type == 0 ? C1 : Ch;
    const size_t out0 = (type == 0 ? Ch : C0) * S, out1 = (type == 0 ? Ch : C1) * S;
    const auto x = RandomBytes(in0 * S), y = RandomBytes(in1 * S);
    const float n0 = 0.0213f, n1 = 0.0347f;
    CheckSplits(S, out0 + out1, [&](uint8_t* out, synetk::Range r) {
      synetk::QuantizedShuffle<F>()(x.data(), -12, &n0, C0, y.data(), -200, &n1, C1, S, out,
                                    out + out0, &scale, 9, type, r);
    });
  }
}

TEST_CASE("quantization layers split into parts give the whole call's bytes", "[quant][parts]") {
  SYNETK_FOR_EACH_TARGET([] {
    // Short and long rows (the latter plan the 16-bit fixed-point path).
    // {256, 37}: concat halves of 128 bytes, mapped block by block on AVX3_DL.
    for (auto [C, S] : {std::pair<size_t, size_t>{6, 37}, {18, 300}, {64, 3136 / 4}, {40, 2100},
                        {256, 37}}) {
      CheckQuantParts<synetk::Nchw>(C, S);
      CheckQuantParts<synetk::Nhwc>(C, S);
    }
  });
}

// ---- synetk::simd entry points ----------------------------------------------------------

TEST_CASE("quantization compatibility entry points match the functors", "[quant][simd]") {
  using namespace synetk::simd;
  const size_t C0 = 6, C1 = 4, S = 19, n = (C0 + C1) * S;
  const auto bytes = RandomBytes(n);
  const float norm = 0.037f, scale = 21.5f;
  std::vector<float> f(n), g(n);
  SimdSynetDequantizeLinear(bytes.data(), n, -17, &norm, f.data());
  synetk::DequantizeLinear<uint8_t, float>()(bytes.data(), n, -17, &norm, g.data());
  REQUIRE(f == g);
  std::vector<uint8_t> a(n), b(n), a1(n), b1(n);
  SimdSynetQuantizeLinear(f.data(), n, &scale, 9, a.data());
  synetk::QuantizeLinear<float, uint8_t>()(f.data(), n, &scale, 9, b.data());
  REQUIRE(a == b);
  const uint8_t* srcs[2] = {bytes.data(), bytes.data() + C0 * S};
  const size_t sizes[2] = {C0, C1};
  const int32_t biases[2] = {-3, -200};
  const float norms[2] = {0.02f, 0.05f};
  SimdSynetQuantizedConcatLayerForward(2, srcs, S, sizes, biases, norms, &scale, 11, a.data());
  synetk::QuantizedConcat()(2, srcs, S, sizes, biases, norms, &scale, 11, b.data());
  REQUIRE(a == b);
  std::vector<float> cs(C0 + C1, 0.7f), cb(C0 + C1, -0.2f);
  for (const auto format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
    const bool nhwc = format == SimdTensorFormatNhwc;
    SimdSynetQuantizedScaleLayerForward(bytes.data(), &norm, 5, C0 + C1, S, cs.data(), cb.data(),
                                        a.data(), &norms[0], 77, format);
    if (nhwc) synetk::QuantizedScale<synetk::Nhwc>()(bytes.data(), &norm, 5, C0 + C1, S, cs.data(), cb.data(), b.data(), &norms[0], 77);
    else synetk::QuantizedScale<synetk::Nchw>()(bytes.data(), &norm, 5, C0 + C1, S, cs.data(), cb.data(), b.data(), &norms[0], 77);
    REQUIRE(a == b);
    for (int type : {0, 1}) {
      const uint8_t* s1 = bytes.data() + (type == 0 ? C0 : (C0 + C1) / 2) * S;
      SimdSynetQuantizedShuffleLayerForward(bytes.data(), -4, &norm, C0, s1, -9, &norms[1], C1, S,
                                            a.data(), a1.data(), &scale, 100, format, type);
      if (nhwc) synetk::QuantizedShuffle<synetk::Nhwc>()(bytes.data(), -4, &norm, C0, s1, -9, &norms[1], C1, S, b.data(), b1.data(), &scale, 100, type);
      else synetk::QuantizedShuffle<synetk::Nchw>()(bytes.data(), -4, &norm, C0, s1, -9, &norms[1], C1, S, b.data(), b1.data(), &scale, 100, type);
      REQUIRE(a == b);
      REQUIRE(a1 == b1);
    }
  }
}

// ---- Bad input ------------------------------------------------------------------------------

// Every bad-input class: the call throws synetk::Error naming the layer and
// the parameter, and leaves every output byte as it was.
TEST_CASE("quantization layers reject bad input", "[quant][errors]") {
  using synetk::Nchw;
  using synetk::Nhwc;
  const size_t n = 64;
  std::vector<uint8_t> src(4 * n, 3), dst(4 * n, 0xEE), dst1(4 * n, 0xEE);
  std::vector<float> fsrc(n, 1.0f), fdst(n, 7.0f);
  auto expectError = [&](auto&& call, const std::string& needle) {
    std::fill(dst.begin(), dst.end(), 0xEE);
    std::fill(dst1.begin(), dst1.end(), 0xEE);
    std::fill(fdst.begin(), fdst.end(), 7.0f);
    CheckThrowsNaming(call, needle);
    CHECK(std::all_of(dst.begin(), dst.end(), [](uint8_t v) { return v == 0xEE; }));
    CHECK(std::all_of(dst1.begin(), dst1.end(), [](uint8_t v) { return v == 0xEE; }));
    CHECK(std::all_of(fdst.begin(), fdst.end(), [](float v) { return v == 7.0f; }));
  };
  const float one = 1.0f, zeroF = 0.0f, inf = INFINITY, nan = NAN, tiny = 1e-45f;
  const uint8_t* s = src.data();
  uint8_t* d = dst.data();
  uint8_t* d1 = dst1.data();
  float* fd = fdst.data();

  synetk::DequantizeLinear<uint8_t, float> deq;
  synetk::DequantizeLinear<int8_t, float> deqI8;
  expectError([&] { deq(nullptr, n, 0, &one, fd); }, "DequantizeLinear: src = null");
  expectError([&] { deq(s, n, 0, nullptr, fd); }, "norm = null");
  expectError([&] { deq(s, n, 0, &one, nullptr); }, "dst = null");
  expectError([&] { deq(s, 0, 0, &one, fd); }, "size = 0");
  expectError([&] { deq(s, SIZE_MAX / 2, 0, &one, fd); }, "DequantizeLinear: size");
  expectError([&] { deq(s, n, 1, &one, fd); }, "bias = 1: expected minus a zero point, in [-255, 0]");
  expectError([&] { deq(s, n, -256, &one, fd); }, "bias = -256");
  expectError([&] { deqI8(reinterpret_cast<const int8_t*>(s), n, 129, &one, fd); }, "bias = 129");
  expectError([&] { deq(s, n, 0, &zeroF, fd); }, "norm[0] = 0: expected a finite non-zero");
  expectError([&] { deq(s, n, 0, &inf, fd); }, "norm[0] = inf");
  expectError([&] { deq(s, n, 0, &nan, fd); }, "norm[0] = nan");
  expectError([&] { deq(reinterpret_cast<const uint8_t*>(fd) + 1, n, 0, &one, fd); }, "dst =");

  synetk::QuantizeLinear<float, uint8_t> q;
  synetk::QuantizeLinear<float, int8_t> qI8;
  expectError([&] { q(nullptr, n, &one, 0, d); }, "QuantizeLinear: src = null");
  expectError([&] { q(fsrc.data(), n, nullptr, 0, d); }, "norm = null");
  expectError([&] { q(fsrc.data(), n, &one, 0, nullptr); }, "dst = null");
  expectError([&] { q(fsrc.data(), 0, &one, 0, d); }, "size = 0");
  expectError([&] { q(fsrc.data(), n, &one, 256, d); }, "zero = 256: expected a zero point in [0, 255]");
  expectError([&] { q(fsrc.data(), n, &one, -1, d); }, "zero = -1");
  expectError([&] { qI8(fsrc.data(), n, &one, 128, reinterpret_cast<int8_t*>(d)); }, "zero = 128: expected a zero point in [-128, 127]");
  expectError([&] { q(fsrc.data(), n, &zeroF, 0, d); }, "norm[0] = 0");
  expectError([&] { q(fsrc.data(), n, &nan, 0, d); }, "norm[0] = nan");
  expectError([&] { q(fsrc.data(), n, &one, 0, reinterpret_cast<uint8_t*>(fsrc.data()) + 4); }, "dst =");

  synetk::QuantizedConcat cat;
  const uint8_t* srcs[2] = {s, s + n};
  const uint8_t* nullSrcs[2] = {s, nullptr};
  size_t sizes[2] = {4, 4};
  const size_t hugeSizes[2] = {SIZE_MAX, 2};
  const size_t bigSizes[2] = {SIZE_MAX / 4, SIZE_MAX / 4};
  const size_t zeroSizes[2] = {4, 0};
  int32_t biases[2] = {0, -1};
  const int32_t badBiases[2] = {0, 5};
  const float norms[2] = {1.0f, 1.0f};
  const float badNorms[2] = {1.0f, 0.0f};
  expectError([&] { cat(0, srcs, 2, sizes, biases, norms, &one, 0, d); }, "QuantizedConcat: count = 0");
  expectError([&] { cat(2, srcs, 0, sizes, biases, norms, &one, 0, d); }, "num = 0");
  expectError([&] { cat(2, nullptr, 2, sizes, biases, norms, &one, 0, d); }, "src = null");
  expectError([&] { cat(2, nullSrcs, 2, sizes, biases, norms, &one, 0, d); }, "src[s] = null");
  expectError([&] { cat(2, srcs, 2, nullptr, biases, norms, &one, 0, d); }, "size = null");
  expectError([&] { cat(2, srcs, 2, sizes, nullptr, norms, &one, 0, d); }, "bias = null");
  expectError([&] { cat(2, srcs, 2, sizes, biases, nullptr, &one, 0, d); }, "norm = null");
  expectError([&] { cat(2, srcs, 2, sizes, biases, norms, nullptr, 0, d); }, "scale = null");
  expectError([&] { cat(2, srcs, 2, sizes, biases, norms, &one, 0, nullptr); }, "dst = null");
  expectError([&] { cat(2, srcs, 2, hugeSizes, biases, norms, &one, 0, d); }, "size[s]");
  expectError([&] { cat(2, srcs, 8, bigSizes, biases, norms, &one, 0, d); }, "num*sum(size)");
  expectError([&] { cat(2, srcs, 2, zeroSizes, biases, norms, &one, 0, d); }, "size[s] = 0");
  expectError([&] { cat(2, srcs, 2, sizes, badBiases, norms, &one, 0, d); }, "bias[s] = 5");
  expectError([&] { cat(2, srcs, 2, sizes, biases, badNorms, &one, 0, d); }, "norm[s] = 0");
  expectError([&] { cat(2, srcs, 2, sizes, biases, norms, &inf, 0, d); }, "scale[0] = inf");
  expectError([&] { cat(2, srcs, 2, sizes, biases, norms, &one, 300, d); }, "zero = 300");
  expectError([&] { cat(2, srcs, 2, sizes, biases, norms, &one, 0, d, synetk::Range{2, 1}); },
              "QuantizedConcat: part.begin = 2");
  expectError([&] { deq(s, n, 0, &one, fd, synetk::Range{n + 1, n + 2}); }, "DequantizeLinear: part.begin");
  expectError([&] {
    const uint8_t* overlap[2] = {s, d + 3};
    cat(2, overlap, 2, sizes, biases, norms, &one, 0, d);
  }, "QuantizedConcat: dst");

  synetk::QuantizedScale<Nhwc> sc;
  std::vector<float> cs(8, 1.0f), cb(8, 0.0f), badScale(8, 1.0f);
  badScale[5] = NAN;
  const size_t C = 8, S = 8;
  expectError([&] { sc(nullptr, &one, 0, C, S, cs.data(), cb.data(), d, &one, 0); }, "QuantizedScale: src = null");
  expectError([&] { sc(s, nullptr, 0, C, S, cs.data(), cb.data(), d, &one, 0); }, "srcScale = null");
  expectError([&] { sc(s, &one, 0, C, S, nullptr, cb.data(), d, &one, 0); }, "scale = null");
  expectError([&] { sc(s, &one, 0, C, S, cs.data(), cb.data(), nullptr, &one, 0); }, "dst = null");
  expectError([&] { sc(s, &one, 0, C, S, cs.data(), cb.data(), d, nullptr, 0); }, "dstScale = null");
  expectError([&] { sc(s, &one, 0, 0, S, cs.data(), cb.data(), d, &one, 0); }, "channels = 0");
  expectError([&] { sc(s, &one, 0, C, 0, cs.data(), cb.data(), d, &one, 0); }, "spatial = 0");
  // (Through a volatile: as a constant, GCC followed it into the parameter
  // checks past the throw and warned about the loop over `channels` scales.)
  volatile size_t hugeChannels = SIZE_MAX / 2;
  expectError([&] { sc(s, &one, 0, hugeChannels, 3, cs.data(), cb.data(), d, &one, 0); }, "channels*spatial");
  expectError([&] { sc(s, &zeroF, 0, C, S, cs.data(), cb.data(), d, &one, 0); }, "srcScale[0] = 0");
  expectError([&] { sc(s, &one, 0, C, S, cs.data(), cb.data(), d, &nan, 0); }, "dstScale[0] = nan");
  expectError([&] { sc(s, &one, 0, C, S, cs.data(), cb.data(), d, &tiny, 0); }, "dstScale[0]");
  expectError([&] { sc(s, &one, -1, C, S, cs.data(), cb.data(), d, &one, 0); }, "srcZero = -1");
  expectError([&] { sc(s, &one, 0, C, S, cs.data(), cb.data(), d, &one, 256); }, "dstZero = 256");
  expectError([&] { sc(s, &one, 0, C, S, badScale.data(), cb.data(), d, &one, 0); }, "scale[c] = nan");
  expectError([&] { sc(s, &one, 0, C, S, cs.data(), badScale.data(), d, &one, 0); }, "bias[c] = nan");
  // Every position (the first, the last, odd and even counts) and every kind
  // of non-finite value; the largest finite values pass.
  for (size_t n : {size_t{1}, size_t{7}, size_t{8}}) {
    for (size_t at = 0; at < n; ++at) {
      for (float v : {NAN, -NAN, INFINITY, -INFINITY}) {
        std::vector<float> bad(n, std::numeric_limits<float>::max());
        bad[at] = v;
        INFO("n=" << n << " at=" << at << " value=" << v);
        expectError([&] { sc(s, &one, 0, n, 1, bad.data(), nullptr, d, &one, 0); }, "scale[c] = ");
        expectError([&] { sc(s, &one, 0, n, 1, cs.data(), bad.data(), d, &one, 0); }, "bias[c] = ");
      }
    }
    const std::vector<float> big(n, -std::numeric_limits<float>::max());
    sc(s, &one, 0, n, 1, big.data(), big.data(), d, &one, 0);
  }
  expectError([&] { sc(d + 1, &one, 0, C, S, cs.data(), cb.data(), d, &one, 0); }, "same buffer as src");
  expectError([&] { sc(s, &one, 0, C, S, cs.data(), cb.data(), d, &one, 0, synetk::Range{9, 20}); },
              "QuantizedScale: part.begin = 9");
  using ScaleCtx = synetk::QuantizedScaleContext<Nchw>;
  expectError([&] { ScaleCtx(&one, 0, 0, cs.data(), cb.data(), &one, 0); }, "QuantizedScale: channels = 0");
  expectError([&] { ScaleCtx(&one, 0, SIZE_MAX / 64, cs.data(), cb.data(), &one, 0); }, "QuantizedScale: channels");
  expectError([&] { ScaleCtx(&one, 0, C, nullptr, cb.data(), &one, 0); }, "QuantizedScale: scale = null");
  expectError([&] { ScaleCtx(&one, 0, C, cs.data(), badScale.data(), &one, 0); }, "bias[c] = nan");
  expectError([&] { ScaleCtx(&one, 300, C, cs.data(), cb.data(), &one, 0); }, "srcZero = 300");
  const ScaleCtx ctx(&one, 0, C, cs.data(), cb.data(), &one, 0);
  expectError([&] { ctx.Forward(nullptr, S, d); }, "QuantizedScale: src = null");
  expectError([&] { ctx.Forward(s, 0, d); }, "QuantizedScale: spatial = 0");
  expectError([&] { ctx.Forward(s, SIZE_MAX / 2, d); }, "channels*spatial");
  expectError([&] { ctx.Forward(d + 1, S, d); }, "same buffer as src");
  expectError([&] { ctx.Forward(s, S, d, synetk::Range{9, 20}); }, "QuantizedScale: part.begin = 9");

  synetk::QuantizedShuffle<Nchw> sh;
  const uint8_t* s1 = s + 2 * n;
  expectError([&] { sh(s, 0, &one, 4, s1, 0, &one, 4, 8, d, d1, &one, 0, 2); }, "QuantizedShuffle: type = 2");
  expectError([&] { sh(s, 0, &one, 3, s1, 0, &one, 4, 8, d, d1, &one, 0, 0); }, "srcC0 = 3: expected an even");
  expectError([&] { sh(s, 0, &one, 4, s1, 0, &one, 5, 8, d, d1, &one, 0, 1); }, "srcC1 = 5: expected an even");
  expectError([&] { sh(s, 0, &one, 0, s1, 0, &one, 4, 8, d, d1, &one, 0, 0); }, "srcC0 = 0");
  expectError([&] { sh(s, 0, &one, 4, s1, 0, &one, 4, 0, d, d1, &one, 0, 0); }, "spatial = 0");
  expectError([&] { sh(s, 0, &one, SIZE_MAX - 1, s1, 0, &one, 4, 8, d, d1, &one, 0, 0); }, "srcC0+srcC1");
  expectError([&] { sh(s, 0, &one, SIZE_MAX / 4 - 1, s1, 0, &one, 4, 8, d, d1, &one, 0, 0); }, "(srcC0+srcC1)*spatial");
  expectError([&] { sh(nullptr, 0, &one, 4, s1, 0, &one, 4, 8, d, d1, &one, 0, 0); }, "src0 = null");
  expectError([&] { sh(s, 0, nullptr, 4, s1, 0, &one, 4, 8, d, d1, &one, 0, 0); }, "norm0 = null");
  expectError([&] { sh(s, 0, &one, 4, nullptr, 0, &one, 4, 8, d, d1, &one, 0, 0); }, "src1 = null");
  expectError([&] { sh(s, 0, &one, 4, s1, 0, nullptr, 4, 8, d, d1, &one, 0, 0); }, "norm1 = null");
  expectError([&] { sh(s, 0, &one, 4, s1, 0, &one, 4, 8, nullptr, d1, &one, 0, 0); }, "dst0 = null");
  expectError([&] { sh(s, 0, &one, 4, s1, 0, &one, 4, 8, d, nullptr, &one, 0, 0); }, "dst1 = null");
  expectError([&] { sh(s, 0, &one, 4, s1, 0, &one, 4, 8, d, d1, nullptr, 0, 0); }, "scale = null");
  expectError([&] { sh(s, 1, &one, 4, s1, 0, &one, 4, 8, d, d1, &one, 0, 0); }, "bias0 = 1");
  expectError([&] { sh(s, 0, &one, 4, s1, -300, &one, 4, 8, d, d1, &one, 0, 0); }, "bias1 = -300");
  expectError([&] { sh(s, 0, &zeroF, 4, s1, 0, &one, 4, 8, d, d1, &one, 0, 0); }, "norm0[0] = 0");
  expectError([&] { sh(s, 0, &one, 4, s1, 0, &inf, 4, 8, d, d1, &one, 0, 0); }, "norm1[0] = inf");
  expectError([&] { sh(s, 0, &one, 4, s1, 0, &one, 4, 8, d, d1, &nan, 0, 0); }, "scale[0] = nan");
  expectError([&] { sh(s, 0, &one, 4, s1, 0, &one, 4, 8, d, d1, &one, 256, 0); }, "zero = 256");
  expectError([&] { sh(d + 8, 0, &one, 4, s1, 0, &one, 4, 8, d, d1, &one, 0, 0); }, "dst0");
  expectError([&] { sh(s, 0, &one, 4, s1, 0, &one, 4, 8, d, d + 10, &one, 0, 0); }, "dst1");
  expectError([&] {
    synetk::simd::SimdSynetQuantizedShuffleLayerForward(s, 0, &one, 4, s1, 0, &one, 4, 8, d, d1, &one, 0,
                                                        synetk::simd::SimdTensorFormatType(3), 0);
  }, "format = 3");
}

}  // namespace

namespace {

// Inputs on which v*scale + bias rounded once (as the Simd Library computes
// it) and rounded twice give different bytes. With srcScale = dstScale = 1
// and srcZero = 0, v is the byte x; bias[c] = 0.5 - RN(x_c * scale[c]) puts
// x_c's exact value 0.5 + (x_c*scale[c] - RN(x_c*scale[c])) just above or
// below a rounding tie, while the rounded product plus bias lands on it.
TEST_CASE("QuantizedScale rounds v*scale + bias once", "[quant][simd]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (size_t C : {7, 64})
      for (size_t S : {40, 600, 1030}) {
        INFO("C " << C << " S " << S);
        ScaleCase k = MakeScale(C, S, true);
        k.srcScale = k.dstScale = 1.0f;
        k.srcZero = 0;
        k.dstZero = 100;
        for (size_t c = 0; c < C; ++c) {
          // A scale whose product with x rounds down: then the exact value
          // is above the tie and rounds up, the twice-rounded one to even.
          int x;
          do {
            x = RandomInt(129, 255);
            k.scale[c] = 1.0f + static_cast<float>(RandomInt(1, 1 << 20)) * 0x1p-23f;
            k.bias[c] = 0.5f - static_cast<float>(x) * k.scale[c];
          } while (!(std::fma(static_cast<float>(x), k.scale[c], k.bias[c]) > 0.5f));
          k.src[c * S + c % S] = static_cast<uint8_t>(x);
        }
        // The test's teeth: the twice-rounded formula differs somewhere.
        const auto once = synetk_ref::Scale(k.src, 1.0f, 0, C, S, k.scale.data(), k.bias.data(),
                                            1.0f, 100, false);
        size_t differ = 0;
        for (size_t i = 0; i < k.src.size(); ++i) {
          const size_t c = i / S;
          float v = static_cast<float>(k.src[i]) * k.scale[c];
          v = v + k.bias[c];
          const float twice = std::clamp(std::nearbyint(v) + 100.0f, 0.0f, 255.0f);
          differ += static_cast<float>(once[i]) != twice;
        }
        REQUIRE(differ >= C);
        CheckScale(k);
      }
  });
}

}  // namespace
