// Copyright synetk authors. SPDX-License-Identifier: MIT
// Error messages read well: a sample, word for word, from every family.
// Each says layer, parameter, value and what was expected.
// The kernels are compiled in tests/kernels/ (compile-once mode).
#include "synetk/declarations.h"
#include "synetk/simd.h"

#include "harness.h"

namespace {

std::string MessageOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const synetk::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_CASE("error messages name layer, parameter, value and expectation", "[errors]") {
  using namespace synetk::simd;
  std::vector<float> f(64, 1.0f), out(64);
  std::vector<uint8_t> u(64, 1), uout(64);
  const float zero = 0.0f, one = 1.0f, negative = -1.0f;

  CHECK(MessageOf([&] { synetk::FusedLayer3<float, synetk::Nchw>()(f.data(), nullptr, f.data(), 4, 4, out.data()); }) ==
        "FusedLayer3: bias = null: expected a non-null pointer");
  CHECK(MessageOf([&] { synetk::FusedLayer0<float, synetk::Nhwc>()(f.data(), f.data(), f.data(), 0, 4, out.data()); }) ==
        "FusedLayer0: channels = 0: expected > 0");
  CHECK(MessageOf([&] { SimdSynetFusedLayerForward8(f.data(), f.data(), f.data(), 2, 2, out.data(), SimdTensorFormatType(5)); }) ==
        "SimdSynetFusedLayerForward8: format = 5: expected SimdTensorFormatNchw (0) or SimdTensorFormatNhwc (1)");
  CHECK(MessageOf([&] { SimdSynetPoolingMax8u(u.data(), 1, 4, 4, 2, 2, 0, 2, 0, 0, uout.data(), 2, 2, SimdTensorFormatNchw); }) ==
        "PoolingMax: strideY = 0: expected > 0");
  CHECK(MessageOf([&] {
          SimdSynetNormalizeLayerForwardV2(f.data(), 1, 4, 4, f.data(), f.data(), &negative, SimdTensorFormatNchw, nullptr, out.data());
        }) == "NormalizeV2: eps = -1: expected a finite value >= 0");
  CHECK(MessageOf([&] { SimdSynetQuantizeLinear(f.data(), 8, &zero, 0, uout.data()); }) ==
        "QuantizeLinear: norm[0] = 0: expected a finite non-zero value");
  CHECK(MessageOf([&] { SimdSynetDequantizeLinear(u.data(), 8, 0, &one, nullptr); }) ==
        "DequantizeLinear: dst = null: expected a non-null pointer");
  CHECK(MessageOf([&] {
          SimdSynetQuantizedShuffleLayerForward(u.data(), 0, &one, 3, u.data(), 0, &one, 4, 4, uout.data(),
                                                uout.data() + 32, &one, 0, SimdTensorFormatNchw, 0);
        }) == "QuantizedShuffle: srcC0 = 3: expected an even channel count");
  const size_t outer[1] = {2};
  void* gather = SimdSynetGatherElementsInit(SimdTensorData32f, SimdTensorData32i, SimdFalse, 1, outer, 1, 3, 1, 2);
  const int32_t idx[4] = {0, 3, 1, 1};
  CHECK(MessageOf([&] {
          SimdSynetGatherElementsForward(gather, reinterpret_cast<const uint8_t*>(f.data()),
                                         reinterpret_cast<const uint8_t*>(idx), reinterpret_cast<uint8_t*>(out.data()));
        }) == "GatherElements: idx[outer 0, index 1, inner 0] = 3: expected an index in [-3, 3) (srcCount = 3)");
  SimdRelease(gather);
}

}  // namespace
