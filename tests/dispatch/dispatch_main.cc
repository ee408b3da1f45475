// Copyright synetk authors. SPDX-License-Identifier: MIT
// Several TUs including synetk, one compiled with -mavx2 -mfma, linked into
// one program. Proves that
//  - every TU dispatches to every target and gets the reference result;
//  - TUs with equal flags share one copy of the per-target code;
//  - the -mavx2 TU has its own copy (its own ABI namespace), so the linker
//    cannot give AVX-encoded "SSE4" code to the default TUs.
#include <cstdio>

#include "tu_report.h"

static int failures = 0;
static void Expect(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
  failures += ok ? 0 : 1;
}

static void Print(const char* name, const TuReport& r) {
  std::printf("%s: abi %s, targets:", name, r.abi.c_str());
  for (const auto& t : r.targets) std::printf(" %s", t.c_str());
  std::printf("\n");
}

int main() {
  const TuReport a = RunDefaultA(), b = RunDefaultB(), x = RunAvx2();
  Print("default TU A", a);
  Print("default TU B", b);
  Print("-mavx2 TU   ", x);
  Expect(a.ok && b.ok && x.ok, "every TU matches the reference on every target");
  Expect(!a.targets.empty() && !x.targets.empty(), "targets ran");
  Expect(a.abi == b.abi, "TUs with equal flags use one ABI namespace");
  Expect(a.sse4Kernel == b.sse4Kernel, "... and share one copy of the SSE4 kernel");
  Expect(a.abi != x.abi, "the -mavx2 TU gets its own ABI namespace");
  Expect(x.sse4Kernel == nullptr || a.sse4Kernel != x.sse4Kernel,
         "... and its own copy of the SSE4 kernel");
  return failures == 0 ? 0 : 1;
}
