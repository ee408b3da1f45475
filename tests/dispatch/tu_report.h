// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_TESTS_DISPATCH_TU_REPORT_H_
#define SYNETK_TESTS_DISPATCH_TU_REPORT_H_
#include <string>
#include <vector>

// What one TU of the dispatch test saw: its ABI namespace, the address of its
// SSE4 fused kernel, and whether every target gave the reference result.
struct TuReport {
  std::string abi;
  const void* sse4Kernel = nullptr;
  std::vector<std::string> targets;
  bool ok = true;
};

TuReport RunDefaultA();  // default flags
TuReport RunDefaultB();  // default flags, another TU
TuReport RunAvx2();      // compiled with -mavx2 -mfma

#endif
