// Copyright synetk authors. SPDX-License-Identifier: MIT
#include <benchmark/benchmark.h>

#include "synetk/synetk.h"

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("synetk_target", synetk::ChosenTargetName());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
