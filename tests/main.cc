// Copyright synetk authors. SPDX-License-Identifier: MIT
// Catch2's main, in its own TU because it is slow to compile. Prints the SIMD
// targets that ran, as CI must show each of them.
#define CATCH_CONFIG_RUNNER
#include "harness.h"

#include <cstdio>

namespace synetk_test {

#if CATCH_VERSION_MAJOR >= 3
using ListenerBase = Catch::EventListenerBase;
#else
using ListenerBase = Catch::TestEventListenerBase;
#endif

// Reseeds Rng() for each test case (see harness.h).
class ReseedRng : public ListenerBase {
 public:
  using ListenerBase::ListenerBase;
  void testCaseStarting(const Catch::TestCaseInfo& info) override {
    Rng() = SeededRng(HashName(info.name));
    ListenerBase::testCaseStarting(info);
  }
};
CATCH_REGISTER_LISTENER(ReseedRng)

std::set<std::string>& TargetsRun() {
  static std::set<std::string> s;
  return s;
}

void ForEachTargetImpl(const std::function<void()>& body,
                       const std::function<int64_t()>& chosen) {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  REQUIRE(!targets.empty());
  for (int64_t t : targets) {
    hwy::SetSupportedTargetsForTest(t);
    struct Reset {
      ~Reset() { hwy::SetSupportedTargetsForTest(0); }
    } reset;
    INFO("target " << hwy::TargetName(t));
    REQUIRE(chosen() == t);
    TargetsRun().insert(hwy::TargetName(t));
    body();
  }
}

}  // namespace synetk_test

int main(int argc, char* argv[]) {
  Catch::Session session;
  const int rc = session.run(argc, argv);
  std::printf("SIMD targets exercised:");
  for (const auto& name : synetk_test::TargetsRun()) std::printf(" %s", name.c_str());
  std::printf("\n");
  std::printf("Random inputs seeded with --rng-seed %u\n",
              static_cast<unsigned>(session.config().rngSeed()));
  return rc;
}
