// Copyright synetk authors. SPDX-License-Identifier: MIT
// libFuzzer target: the fused layers through synetk::simd. The fuzzer picks
// type, format, shape, values (NaN, inf, denormals, huge) and how the output
// overlaps the input; a call must match the scalar reference or throw
// synetk::Error, never crash or touch memory outside the buffers.
#include <cstdio>
#include <vector>

#include "fuzz_input.h"
#include "reference/fused_ref.h"
#include "synetk/simd.h"

using namespace synetk::simd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  synetk_fuzz::Input in(data, size);
  const int types[] = {0, 1, 2, 3, 4, 8, 9};
  const int type = types[in.Range(0, 6)];
  const bool nhwc = in.Bool();
  const auto format = in.Range(0, 9) == 0 ? SimdTensorFormatType(in.Range(2, 5))
                                          : (nhwc ? SimdTensorFormatNhwc : SimdTensorFormatNchw);
  const size_t C = in.Range(0, 40), C1 = in.Range(0, 9), S = in.Range(0, 70);
  const size_t Ct = type == 9 ? C + C1 : C;
  const size_t outN = (type == 4 ? 2 * C : Ct) * S;
  // One arena holds inputs and output so that the fuzzer can make them overlap.
  const size_t n0 = C * S, n1 = (type == 9 ? C1 : C) * S;
  std::vector<float> arena(n0 + n1 + 2 * outN + 8);
  for (auto& v : arena) v = in.Float();
  std::vector<float> p0(Ct + 1), p1(Ct + 1), p2(Ct + 1);
  for (size_t i = 0; i < Ct + 1; ++i) {
    p0[i] = in.Float();
    p1[i] = in.Float();
    p2[i] = in.Float();
  }
  float* src0 = arena.data();
  float* src1 = src0 + n0;
  // Usually a separate output; sometimes in place or partly overlapping.
  size_t dstAt = n0 + n1 + 4;
  const size_t mode = in.Range(0, 7);
  if (mode == 0) dstAt = 0;
  if (mode == 1) dstAt = in.Range(0, n0 + n1);
  float* dst = arena.data() + dstAt;
  float* dst1 = (type == 9 && in.Bool()) ? dst + outN : nullptr;
  const std::vector<float> s0(src0, src0 + n0), s1(src1, src1 + n1);
  const std::vector<float> before = arena;
  try {
    switch (type) {
      case 0: SimdSynetFusedLayerForward0(src0, p0.data(), p1.data(), C, S, dst, format); break;
      case 1: SimdSynetFusedLayerForward1(src0, p0.data(), p1.data(), p2.data(), C, S, dst, format); break;
      case 2: SimdSynetFusedLayerForward2(src0, p0.data(), p1.data(), C, S, p2.data(), dst, format); break;
      case 3: SimdSynetFusedLayerForward3(src0, p0.data(), p1.data(), C, S, dst, format); break;
      case 4: SimdSynetFusedLayerForward4(src0, p0.data(), p1.data(), p2.data(), C, S, dst, format); break;
      case 8: SimdSynetFusedLayerForward8(src0, src1, p0.data(), C, S, dst, format); break;
      case 9: SimdSynetFusedLayerForward9(src0, src1, p0.data(), p1.data(), C, C1, S, dst, dst1, format); break;
    }
  } catch (const synetk::Error&) {
    // Rejected: nothing may have been written.
    if (std::memcmp(before.data(), arena.data(), arena.size() * sizeof(float)) != 0) {
      std::fprintf(stderr, "rejected call wrote to its buffers\n");
      std::abort();
    }
    return 0;
  }
  // Accepted: must match the reference (computed from the saved inputs).
  char context[128];
  std::snprintf(context, sizeof(context), "fused type %d %s C=%zu C1=%zu S=%zu dst at %zu (%g %g %g %g)", type,
                nhwc ? "NHWC" : "NCHW", C, C1, S, dstAt, n0 ? s0[0] : 0.0f, p0[0], p1[0], p2[0]);
  std::vector<float> plain;
  synetk_ref::Out ref(0);
  switch (type) {
    case 0: ref = synetk_ref::Fused0(s0, p0.data(), p1.data(), C, S, nhwc); break;
    case 1: ref = synetk_ref::Fused1(s0, p0.data(), p1.data(), p2.data(), C, S, nhwc); break;
    case 2: ref = synetk_ref::Fused2(s0, p0.data(), p1.data(), C, S, p2.data(), nhwc); break;
    case 3: ref = synetk_ref::Fused3(s0, p0.data(), p1.data(), C, S, nhwc); break;
    case 4: ref = synetk_ref::Fused4(s0, p0.data(), p1.data(), p2.data(), C, S, nhwc); break;
    case 8: ref = synetk_ref::Fused8(s0, s1, p0.data(), C, S, nhwc); break;
    case 9: ref = synetk_ref::Fused9(s0, s1, p0.data(), p1.data(), C, C1, S, nhwc, plain); break;
  }
  // Huge finite inputs can overflow fp32 intermediates (x = src + bias)
  // that the double reference keeps finite; then only safety is checked.
  bool overflowRisk = false;
  const std::vector<float>* inputs[] = {&s0, &s1, &p0, &p1, &p2};
  for (const std::vector<float>* v : inputs)
    for (float x : *v) overflowRisk |= std::isfinite(x) && std::fabs(x) > 1e30f;
  for (size_t i = 0; i < ref.val.size(); ++i) {
    // Where a term reaches the fp32 range limit, fp32 intermediates may
    // overflow where the double reference does not: only the absence of
    // crashes is checked there. Elsewhere: within fp32 rounding of the terms.
    if (overflowRisk || !(ref.mag[i] < 1e38)) continue;
    const double r = static_cast<float>(ref.val[i]);
    const double tol = 4.0 * std::ldexp(1.0, -24) * ref.mag[i] + 1e-37;
    if (!synetk_fuzz::Close(dst[i], r, tol)) synetk_fuzz::Mismatch(context, i, dst[i], r);
  }
  if (dst1 != nullptr)
    for (size_t i = 0; i < plain.size(); ++i)
      if (std::memcmp(&dst1[i], &plain[i], sizeof(float)) != 0) synetk_fuzz::Mismatch(context, i, dst1[i], plain[i]);
  return 0;
}
