// Copyright synetk authors. SPDX-License-Identifier: MIT
// What an engine that keeps the Simd Library beside synetk writes, checked in
// a translation unit that has both headers (the including file decides their
// order and names the function through SYNETK_SIMDLIB_CHECK).
#include <cmath>
#include <type_traits>

using namespace synetk::simd;  // the one line an engine adds when it switches

// synetk::simd uses Simd's own enum types: one entity per name.
static_assert(SYNETK_SIMD_USES_SIMDLIB_H == 1, "synetk/simd.h did not see Simd's header");
static_assert(std::is_same_v<synetk::simd::SimdTensorFormatType, ::SimdTensorFormatType>);
static_assert(std::is_same_v<synetk::simd::SimdTensorDataType, ::SimdTensorDataType>);
static_assert(std::is_same_v<synetk::simd::SimdBool, ::SimdBool>);

namespace engine {

// Returns the number of wrong values.
int SYNETK_SIMDLIB_CHECK() {
  const size_t C = 2, S = 3;
  const float src[6] = {-2, 1, 3, -1, 4, -5};  // NCHW
  const float bias[2] = {0.5f, -0.25f}, slope[2] = {0.1f, 0.2f};
  float dst[6] = {};
  // The engine Synet keeps the format as an int and casts it to Simd's type;
  // the fused layers are synetk's alone, so the call is unqualified.
  const int trans = 0;
  SimdSynetFusedLayerForward3(src, bias, slope, C, S, dst, (::SimdTensorFormatType)trans);
  const float want[6] = {-0.15f, 1.5f, 3.5f, -0.25f, 3.75f, -1.05f};
  int bad = 0;
  for (size_t i = 0; i < 6; ++i) bad += std::fabs(dst[i] - want[i]) > 1e-6f;
  // Unqualified enumerators are unambiguous; a function that both libraries
  // declare is called qualified.
  const SimdTensorFormatType nchw = SimdTensorFormatNchw;
  float pooled[2] = {};
  synetk::simd::SimdSynetPoolingMax32f(src, C, 1, S, 1, 1, S, 1, 1, 1, 0, 0, 0, pooled, C, 1, 1,
                                       nchw);
  bad += pooled[0] != 3.0f;
  bad += pooled[1] != 4.0f;
  const SimdBool yes = SimdTrue;
  bad += yes != 1 || SimdTensorData16b != 7;
  return bad;
}

}  // namespace engine
