// Copyright synetk authors. SPDX-License-Identifier: MIT
// GatherElements against memcpy of the same bytes, and against a plain scalar
// loop written from the specification's pseudocode. GatherElements has no
// tensor format (the layout is [outer, srcCount, inner] in both engines'
// formats), so each case runs once.
//
// Traffic: read = idx bytes + the gathered src elements (dst bytes), written =
// dst bytes; memcpy_ratio compares with memcpy of (read + written) / 2.
#include <cstdint>

#include "bench_util.h"
#include "synetk/synetk.h"

namespace {

using namespace synetk_bench;

// Index kinds: 0 random per element, 1 every row uniform over inner (the
// rows are contiguous runs of src).
template <typename I>
Tensor<I> MakeIdx(size_t outer, size_t srcCount, size_t inner, size_t idxCount, int kind) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int64_t> d(-static_cast<int64_t>(srcCount),
                                           static_cast<int64_t>(srcCount) - 1);
  Tensor<I> v(outer * idxCount * inner);
  for (size_t r = 0; r < outer * idxCount; ++r) {
    const I first = static_cast<I>(d(rng));
    for (size_t i = 0; i < inner; ++i) v[r * inner + i] = kind == 1 ? first : static_cast<I>(d(rng));
  }
  return v;
}

template <typename T, typename I>
struct Setup {
  size_t outer, srcCount, inner, idxCount;
  Tensor<T> src, dst;
  Tensor<I> idx;
  Traffic tr;
  explicit Setup(benchmark::State& state)
      : outer(state.range(0)), srcCount(state.range(1)), inner(state.range(2)), idxCount(state.range(3)) {
    src.resize(outer * srcCount * inner);
    auto bytes = Random<uint8_t>(src.size() * sizeof(T));
    std::memcpy(src.data(), bytes.data(), bytes.size());
    dst.resize(outer * idxCount * inner);
    idx = MakeIdx<I>(outer, srcCount, inner, idxCount, static_cast<int>(state.range(4)));
    tr.read = idx.size() * sizeof(I) + dst.size() * sizeof(T);
    tr.written = dst.size() * sizeof(T);
  }
};

// Arguments: outer, srcCount, inner, idxCount, index kind, constant index.
template <typename T, typename I>
void BM_GatherElements(benchmark::State& state) {
  Setup<T, I> s(state);
  const bool indexConst = state.range(5) != 0;
  const size_t outer[1] = {s.outer};
  synetk::GatherElements<T, I> g(outer, 1, s.srcCount, s.inner, s.idxCount, indexConst);
  if (indexConst) g.SetIndex(s.idx.data());
  state.counters["buffer_bytes"] = static_cast<double>(g.InternalBufferSize());
  TimeAgainstMemcpy(state, s.tr, [&] { g.Forward(s.src.data(), s.idx.data(), s.dst.data()); });
}

// The plain scalar loop of the specification (no validation).
template <typename T, typename I>
HWY_NOINLINE void ScalarGather(const T* src, const I* idx, T* dst, size_t outer, size_t srcCount,
                               size_t inner, size_t idxCount) {
  for (size_t o = 0; o < outer; ++o)
    for (size_t c = 0; c < idxCount; ++c)
      for (size_t i = 0; i < inner; ++i) {
        int64_t ic = idx[(o * idxCount + c) * inner + i];
        if (ic < 0) ic += static_cast<int64_t>(srcCount);
        dst[(o * idxCount + c) * inner + i] = src[(o * srcCount + ic) * inner + i];
      }
}

// The same loop with a branchless fix-up (random signs make the branch above
// mispredict): a stronger scalar baseline.
template <typename T, typename I>
HWY_NOINLINE void ScalarGatherBranchless(const T* src, const I* idx, T* dst, size_t outer,
                                         size_t srcCount, size_t inner, size_t idxCount) {
  for (size_t o = 0; o < outer; ++o)
    for (size_t c = 0; c < idxCount; ++c)
      for (size_t i = 0; i < inner; ++i) {
        const int64_t k = idx[(o * idxCount + c) * inner + i];
        const int64_t ic = k + ((k >> 63) & static_cast<int64_t>(srcCount));
        dst[(o * idxCount + c) * inner + i] = src[(o * srcCount + ic) * inner + i];
      }
}

template <typename T, typename I>
void BM_GatherElementsScalarBranchless(benchmark::State& state) {
  Setup<T, I> s(state);
  TimeAgainstMemcpy(state, s.tr, [&] {
    ScalarGatherBranchless(s.src.data(), s.idx.data(), s.dst.data(), s.outer, s.srcCount, s.inner,
                           s.idxCount);
    benchmark::DoNotOptimize(s.dst.data());
  });
}

template <typename T, typename I>
void BM_GatherElementsScalarLoop(benchmark::State& state) {
  Setup<T, I> s(state);
  TimeAgainstMemcpy(state, s.tr, [&] {
    ScalarGather(s.src.data(), s.idx.data(), s.dst.data(), s.outer, s.srcCount, s.inner, s.idxCount);
    benchmark::DoNotOptimize(s.dst.data());
  });
}

void Shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"outer", "srcCount", "inner", "idxCount", "rowUniform", "const"});
  for (int c : {0, 1}) {
    b->Args({256, 2048, 1, 1024, 0, c});  // per-row gather (issue 5)
    b->Args({64, 64, 64, 64, 1, c});      // inner >= 64, rows are contiguous runs
    b->Args({64, 64, 64, 64, 0, c});      // inner >= 64, every element its own index
    b->Args({16, 256, 256, 128, 1, c});   // long runs
    b->Args({1024, 16, 1, 512, 0, c});    // small srcCount: table lookups
  }
  b->UseManualTime();
}

void ScalarShapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"outer", "srcCount", "inner", "idxCount", "rowUniform", "const"});
  b->Args({256, 2048, 1, 1024, 0, 0});
  b->Args({64, 64, 64, 64, 1, 0});
  b->Args({64, 64, 64, 64, 0, 0});
  b->Args({1024, 16, 1, 512, 0, 0});
  b->UseManualTime();
}

BENCHMARK_TEMPLATE(BM_GatherElementsScalarLoop, float, int32_t)->Apply(ScalarShapes);
BENCHMARK_TEMPLATE(BM_GatherElementsScalarBranchless, float, int32_t)->Apply(ScalarShapes);
BENCHMARK_TEMPLATE(BM_GatherElements, float, int32_t)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_GatherElements, float, int64_t)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_GatherElementsScalarLoop, double, int64_t)->Apply(ScalarShapes);
BENCHMARK_TEMPLATE(BM_GatherElements, double, int64_t)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_GatherElementsScalarLoop, hwy::bfloat16_t, int32_t)->Apply(ScalarShapes);
BENCHMARK_TEMPLATE(BM_GatherElements, hwy::bfloat16_t, int32_t)->Apply(Shapes);
BENCHMARK_TEMPLATE(BM_GatherElementsScalarLoop, uint8_t, int32_t)->Apply(ScalarShapes);
BENCHMARK_TEMPLATE(BM_GatherElements, uint8_t, int32_t)->Apply(Shapes);

}  // namespace
