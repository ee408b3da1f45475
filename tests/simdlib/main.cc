// Copyright synetk authors. SPDX-License-Identifier: MIT
// synetk/simd.h beside the Simd Library's own header, in both include orders.
#include <cstdio>

namespace engine {
int SimdLibFirst();
int SynetkFirst();
}  // namespace engine

int main() {
  const int a = engine::SimdLibFirst(), b = engine::SynetkFirst();
  std::printf("SimdLib.h first: %d wrong values; synetk/simd.h first: %d wrong values\n", a, b);
  return a == 0 && b == 0 ? 0 : 1;
}
