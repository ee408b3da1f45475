// Copyright synetk authors. SPDX-License-Identifier: MIT
// The public headers under strict engine flags: tests/meson.build compiles
// this TU as C++17 with -Wall -Wextra -Wpedantic -Wshadow -Werror (Highway's
// headers as system headers), so that the minimum standard docs/building.md
// states and a strict engine's flags stay checked.
#include "synetk/simd.h"
#include "synetk/synetk.h"

int main() { return 0; }
