// Copyright synetk authors. SPDX-License-Identifier: MIT
// libFuzzer target: the quantization layers through synetk::simd
// (SimdSynetDequantizeLinear, SimdSynetQuantizeLinear,
// SimdSynetQuantizedConcatLayerForward, SimdSynetQuantizedScaleLayerForward,
// SimdSynetQuantizedShuffleLayerForward). The fuzzer picks sizes (incl. 0),
// scales (incl. 0, NaN, inf, denormals, huge), zero points and biases (incl.
// out of range), format and shuffle type (incl. invalid values) and data. A
// call must match the scalar reference exactly (integer outputs and the
// single fp32 product of dequantization) or throw synetk::Error with its
// outputs unchanged, never crash or touch memory outside the buffers.
#include <cstdio>
#include <vector>

#include "fuzz_input.h"
#include "reference/quant_ref.h"
#include "synetk/simd.h"

using namespace synetk::simd;

namespace {

// A zero point or -bias: usually in [0, 255], sometimes just outside or wild.
int ZeroPoint(synetk_fuzz::Input& in) {
  switch (in.Range(0, 7)) {
    case 0: return in.Bool() ? -1 : 256;
    case 1: return static_cast<int>(in.Raw<int32_t>());
    case 2: return in.Bool() ? 0 : 255;
    default: return static_cast<int>(in.Range(0, 255));
  }
}

// A bias (-zero point): the same, with raw values taken as they come (INT32_MIN too).
int32_t Bias(synetk_fuzz::Input& in) {
  if (in.Range(0, 7) == 0) return in.Raw<int32_t>();
  const int z = ZeroPoint(in);
  return z == INT32_MIN ? z : -z;
}

// A scale: usually a plain positive value, sometimes special (Input::Float).
float Scale(synetk_fuzz::Input& in) {
  return in.Range(0, 3) == 0 ? in.Float() : static_cast<float>(in.Range(1, 4000)) / 1000.0f;
}

template <typename T>
void Unchanged(const char* what, const std::vector<T>& before, const std::vector<T>& after) {
  if (std::memcmp(before.data(), after.data(), before.size() * sizeof(T)) != 0) {
    std::fprintf(stderr, "%s: rejected call wrote to its buffers\n", what);
    std::abort();
  }
}

void Same(const char* what, const uint8_t* got, const std::vector<uint8_t>& want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) synetk_fuzz::Mismatch(what, i, got[i], want[i]);
}

bool Finite(float v) { return std::isfinite(v); }
bool ScaleOk(float v) { return std::isfinite(v) && v != 0.0f; }

// Every rejection must have a reason the documentation names; `ok` says
// whether the fuzzer's arguments were all valid.
void Rejected(const char* what, bool ok) {
  if (ok) {
    std::fprintf(stderr, "%s: valid call rejected\n", what);
    std::abort();
  }
}
void Accepted(const char* what, bool ok) {
  if (!ok) {
    std::fprintf(stderr, "%s: invalid call accepted\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  synetk_fuzz::Input in(data, size);
  const int fn = static_cast<int>(in.Range(0, 4));
  const synetk_fuzz::FormatDraw fd = synetk_fuzz::DrawFormat(in);
  const auto format = SimdTensorFormatType(fd.value);
  const bool nhwc = fd.nhwc, formatOk = fd.ok;
  char context[200];

  if (fn == 0) {  // Dequantize: dst = float(src + bias) * norm, one fp32 product.
    const size_t n = in.Range(0, 100);
    const int bias = Bias(in);
    const float norm = Scale(in);
    std::vector<uint8_t> src(n);
    for (auto& v : src) v = in.Raw<uint8_t>();
    std::vector<float> dst(n + 1, 7.0f);
    const std::vector<float> before = dst;
    std::snprintf(context, sizeof(context), "dequantize n=%zu bias=%d norm=%g", n, bias, norm);
    const bool ok = n > 0 && bias <= 0 && bias >= -255 && ScaleOk(norm);
    try {
      SimdSynetDequantizeLinear(src.data(), n, bias, &norm, dst.data());
    } catch (const synetk::Error&) {
      Unchanged(context, before, dst);
      Rejected(context, ok);
      return 0;
    }
    Accepted(context, ok);
    for (size_t i = 0; i < n; ++i) {
      const float want = synetk_ref::DequantizeValue(src[i], bias, norm);
      if (std::memcmp(&dst[i], &want, 4) != 0 && !(std::isnan(want) && std::isnan(dst[i])))
        synetk_fuzz::Mismatch(context, i, dst[i], want);
    }
    if (dst[n] != 7.0f) synetk_fuzz::Mismatch(context, n, dst[n], 7.0f);
    return 0;
  }
  if (fn == 1) {  // Quantize: clamp(Round(src * norm) + zero, 0, 255).
    const size_t n = in.Range(0, 100);
    const int zero = ZeroPoint(in);
    const float norm = Scale(in);
    std::vector<float> src(n);
    for (auto& v : src) v = in.Range(0, 2) == 0 ? in.Float() : static_cast<float>(in.Raw<int16_t>()) / 64.0f;
    std::vector<uint8_t> dst(n + 1, 0xA5);
    const std::vector<uint8_t> before = dst;
    std::snprintf(context, sizeof(context), "quantize n=%zu zero=%d norm=%g", n, zero, norm);
    const bool ok = n > 0 && zero >= 0 && zero <= 255 && ScaleOk(norm);
    try {
      SimdSynetQuantizeLinear(src.data(), n, &norm, zero, dst.data());
    } catch (const synetk::Error&) {
      Unchanged(context, before, dst);
      Rejected(context, ok);
      return 0;
    }
    Accepted(context, ok);
    std::vector<uint8_t> want(n + 1, 0xA5);
    for (size_t i = 0; i < n; ++i) {
      const float p = src[i] * norm;
      want[i] = static_cast<uint8_t>(synetk_ref::QuantizeValue(p, zero, 0, 255));
    }
    Same(context, dst.data(), want);
    return 0;
  }
  if (fn == 2) {  // Concat
    const size_t count = in.Range(0, 4), num = in.Range(0, 4);
    std::vector<size_t> sizes(count + 1);
    std::vector<int32_t> bias(count + 1);
    std::vector<float> norm(count + 1);
    std::vector<std::vector<uint8_t>> src(count);
    std::vector<const uint8_t*> ptrs(count + 1, nullptr);
    bool ok = count > 0 && num > 0;
    size_t total = 0;
    for (size_t s = 0; s < count; ++s) {
      sizes[s] = in.Range(0, 9) == 0 ? 0 : in.Range(1, 40);
      bias[s] = Bias(in);
      norm[s] = Scale(in);
      src[s].resize(num * sizes[s]);
      for (auto& v : src[s]) v = in.Raw<uint8_t>();
      ptrs[s] = in.Range(0, 31) == 0 ? nullptr : src[s].data();
      ok &= sizes[s] > 0 && bias[s] <= 0 && bias[s] >= -255 && ScaleOk(norm[s]) && ptrs[s] != nullptr;
      total += sizes[s];
    }
    const float scale = Scale(in);
    const int zero = ZeroPoint(in);
    ok &= ScaleOk(scale) && zero >= 0 && zero <= 255;
    std::vector<uint8_t> dst(num * total + 1, 0xA5);
    const std::vector<uint8_t> before = dst;
    std::snprintf(context, sizeof(context), "concat count=%zu num=%zu total=%zu scale=%g zero=%d", count, num, total,
                  scale, zero);
    try {
      SimdSynetQuantizedConcatLayerForward(count, ptrs.data(), num, sizes.data(), bias.data(), norm.data(), &scale,
                                           zero, dst.data());
    } catch (const synetk::Error&) {
      Unchanged(context, before, dst);
      Rejected(context, ok);
      return 0;
    }
    Accepted(context, ok);
    sizes.resize(count);
    bias.resize(count);
    norm.resize(count);
    std::vector<uint8_t> want = synetk_ref::Concat(src, num, sizes, bias, norm, scale, zero);
    want.push_back(0xA5);
    Same(context, dst.data(), want);
    return 0;
  }
  if (fn == 3) {  // Scale
    const size_t C = in.Range(0, 30), S = in.Range(0, 30);
    const float srcScale = Scale(in), dstScale = Scale(in);
    const int srcZero = ZeroPoint(in), dstZero = ZeroPoint(in);
    std::vector<float> scale(C + 1), bias(C + 1);
    bool paramsOk = true;
    for (size_t c = 0; c < C; ++c) {
      scale[c] = in.Range(0, 3) == 0 ? in.Float() : static_cast<float>(in.Raw<int16_t>()) / 4096.0f;
      bias[c] = in.Range(0, 3) == 0 ? in.Float() : static_cast<float>(in.Raw<int16_t>()) / 256.0f;
    }
    const bool noBias = in.Bool();
    for (size_t c = 0; c < C; ++c) paramsOk &= Finite(scale[c]) && (noBias || Finite(bias[c]));
    std::vector<uint8_t> buf(C * S + 1);
    for (auto& v : buf) v = in.Raw<uint8_t>();
    const std::vector<uint8_t> src(buf.begin(), buf.begin() + C * S);
    std::vector<uint8_t> out(C * S + 1, 0xA5);
    const bool inPlace = in.Range(0, 3) == 0;  // allowed
    uint8_t* dst = inPlace ? buf.data() : out.data();
    const std::vector<uint8_t> bufBefore = buf, outBefore = out;
    std::snprintf(context, sizeof(context), "scale %s C=%zu S=%zu srcScale=%g srcZero=%d dstScale=%g dstZero=%d %s",
                  nhwc ? "NHWC" : "NCHW", C, S, srcScale, srcZero, dstScale, dstZero, inPlace ? "in place" : "");
    const bool ok = formatOk && C > 0 && S > 0 && ScaleOk(srcScale) && ScaleOk(dstScale) &&
                    std::isfinite(1.0f / dstScale) && srcZero >= 0 && srcZero <= 255 && dstZero >= 0 &&
                    dstZero <= 255 && paramsOk;
    try {
      SimdSynetQuantizedScaleLayerForward(buf.data(), &srcScale, srcZero, C, S, scale.data(),
                                          noBias ? nullptr : bias.data(), dst, &dstScale, dstZero, format);
    } catch (const synetk::Error&) {
      Unchanged(context, bufBefore, buf);
      Unchanged(context, outBefore, out);
      Rejected(context, ok);
      return 0;
    }
    Accepted(context, ok);
    std::vector<uint8_t> want = synetk_ref::Scale(src, srcScale, srcZero, C, S, scale.data(),
                                                  noBias ? nullptr : bias.data(), dstScale, dstZero, nhwc);
    want.push_back(inPlace ? bufBefore[C * S] : 0xA5);
    Same(context, dst, want);
    if (inPlace && out != outBefore) synetk_fuzz::Mismatch(context, 0, 0, 0);
    return 0;
  }
  // fn == 4: Shuffle
  const size_t C0 = in.Range(0, 16), C1 = in.Range(0, 16), S = in.Range(0, 24);
  const int type = in.Range(0, 9) == 0 ? static_cast<int>(in.Range(0, 4)) - 1 : static_cast<int>(in.Range(0, 1));
  const int bias0 = Bias(in), bias1 = Bias(in), zero = ZeroPoint(in);
  const float norm0 = Scale(in), norm1 = Scale(in), scale = Scale(in);
  const size_t C = C0 + C1;
  // Type 0 (split) reads srcC0 and srcC1 channels, type 1 (interleave) C/2 each.
  std::vector<uint8_t> src0((type == 1 ? C / 2 : C0) * S), src1((type == 1 ? C / 2 : C1) * S);
  for (auto& v : src0) v = in.Raw<uint8_t>();
  for (auto& v : src1) v = in.Raw<uint8_t>();
  const size_t out0 = type == 0 ? C / 2 * S : C0 * S, out1 = type == 0 ? C / 2 * S : C1 * S;
  std::vector<uint8_t> dst0(out0 + 1, 0xA5), dst1(out1 + 1, 0x5A);
  const std::vector<uint8_t> before0 = dst0, before1 = dst1;
  std::snprintf(context, sizeof(context), "shuffle %s type %d C0=%zu C1=%zu S=%zu bias=%d,%d norm=%g,%g scale=%g zero=%d",
                nhwc ? "NHWC" : "NCHW", type, C0, C1, S, bias0, bias1, norm0, norm1, scale, zero);
  const bool ok = formatOk && (type == 0 || type == 1) && C0 > 0 && C1 > 0 && C0 % 2 == 0 && C1 % 2 == 0 && S > 0 &&
                  bias0 <= 0 && bias0 >= -255 && bias1 <= 0 && bias1 >= -255 && ScaleOk(norm0) && ScaleOk(norm1) &&
                  ScaleOk(scale) && zero >= 0 && zero <= 255;
  try {
    SimdSynetQuantizedShuffleLayerForward(src0.data(), bias0, &norm0, C0, src1.data(), bias1, &norm1, C1, S,
                                          dst0.data(), dst1.data(), &scale, zero, format, type);
  } catch (const synetk::Error&) {
    Unchanged(context, before0, dst0);
    Unchanged(context, before1, dst1);
    Rejected(context, ok);
    return 0;
  }
  Accepted(context, ok);
  synetk_ref::ShuffleOut want =
      synetk_ref::Shuffle(src0, bias0, norm0, C0, src1, bias1, norm1, C1, S, scale, zero, type, nhwc);
  want.dst0.push_back(0xA5);
  want.dst1.push_back(0x5A);
  Same(context, dst0.data(), want.dst0);
  Same(context, dst1.data(), want.dst1);
  return 0;
}
