// Copyright synetk authors. SPDX-License-Identifier: MIT
// GatherElements against the scalar reference, on every SIMD target, every
// element size (1, 2, 4, 8 bytes, user types too) and both index types, in
// constant and non-constant index mode, with guard zones.
//
// Tolerance: none. The gather moves bits, so results are compared byte for
// byte (memcmp), including NaN patterns. GatherElements has no tensor
// format: the layout is [outer..., srcCount, inner] whatever the engine's
// format, so the NCHW/NHWC transposition test does not apply.
// The kernels are compiled in tests/kernels/ (compile-once mode).
#include "synetk/declarations.h"
#include "synetk/simd.h"

#include "test_types.h"

#include "harness.h"
#include "reference/gather_ref.h"

#include <sys/mman.h>
#include <unistd.h>

#include <limits>
#include <memory>

namespace {

using namespace synetk_test;

struct Shape {
  std::vector<size_t> outer;
  size_t srcCount, inner, idxCount;
  size_t Outer() const {
    size_t n = 1;
    for (size_t o : outer) n *= o;
    return n;
  }
  size_t SrcSize() const { return Outer() * srcCount * inner; }
  size_t DstSize() const { return Outer() * idxCount * inner; }
};

template <typename T>
std::vector<T> RandomBits(size_t n) {
  std::vector<T> v(n);
  std::uniform_int_distribution<int> byte(0, 255);
  auto* p = reinterpret_cast<uint8_t*>(v.data());
  for (size_t i = 0; i < n * sizeof(T); ++i) p[i] = static_cast<uint8_t>(byte(Rng()));
  return v;
}

enum class IndexKind {
  kRandom,      // uniform in [-srcCount, srcCount) per element
  kRowUniform,  // each row (o, c) either uniform over inner or random
  kBoundary,    // only -srcCount, -1, 0, srcCount - 1
  kRepeated,    // one random slice repeated across outer items
};

template <typename I>
std::vector<I> MakeIndices(const Shape& s, IndexKind kind) {
  const int64_t n = static_cast<int64_t>(s.srcCount);
  std::uniform_int_distribution<int64_t> any(-n, n - 1);
  std::uniform_int_distribution<int> coin(0, 1), pick(0, 3);
  std::vector<I> v(s.DstSize());
  const size_t slice = s.idxCount * s.inner;
  for (size_t r = 0; r < s.Outer() * s.idxCount; ++r) {
    const bool uniform = kind == IndexKind::kRowUniform && coin(Rng());
    const I first = static_cast<I>(any(Rng()));
    for (size_t i = 0; i < s.inner; ++i) {
      I x = uniform ? first : static_cast<I>(any(Rng()));
      if (kind == IndexKind::kBoundary) {
        const int64_t b[4] = {-n, -1, 0, n - 1};
        x = static_cast<I>(b[pick(Rng())]);
      }
      v[r * s.inner + i] = x;
    }
  }
  if (kind == IndexKind::kRepeated) {
    for (size_t j = slice; j < v.size(); ++j) {
      // alternate raw spellings of the same index (k and k - srcCount)
      const I k = v[j % slice];
      v[j] = (j / slice) % 2 ? static_cast<I>(k < 0 ? k + n : k - n) : k;
    }
  }
  return v;
}

// Runs one shape in both modes on the current target and compares with the
// reference; all buffers guarded and misaligned by one element.
template <typename T, typename I>
void CheckShape(const Shape& s, IndexKind kind) {
  INFO("elem " << sizeof(T) << "B, index " << sizeof(I) * 8 << "b, outer dims "
               << s.outer.size() << " (" << s.Outer() << "), srcCount " << s.srcCount
               << ", inner " << s.inner << ", idxCount " << s.idxCount << ", kind "
               << static_cast<int>(kind));
  Guarded<T> src(s.SrcSize()), dst(s.DstSize());
  Guarded<I> idx(s.DstSize());
  src.Fill(RandomBits<T>(s.SrcSize()));
  idx.Fill(MakeIndices<I>(s, kind));
  std::vector<T> want(s.DstSize());
  synetk_ref::GatherElements(src.data(), idx.data(), want.data(), s.Outer(), s.srcCount,
                             s.inner, s.idxCount);
  for (bool indexConst : {false, true}) {
    INFO("indexConst " << indexConst);
    synetk::GatherElements<T, I> g(s.outer.data(), s.outer.size(), s.srcCount, s.inner,
                                   s.idxCount, indexConst);
    if (indexConst) g.SetIndex(idx.data());
    std::memset(dst.data(), 0x5A, s.DstSize() * sizeof(T));
    g.Forward(src.data(), indexConst ? nullptr : idx.data(), dst.data());
    REQUIRE(std::memcmp(dst.data(), want.data(), s.DstSize() * sizeof(T)) == 0);
    REQUIRE(src.GuardsIntact());
    REQUIRE(idx.GuardsIntact());
    REQUIRE(dst.GuardsIntact());
    if (indexConst && kind == IndexKind::kRepeated && s.Outer() > 1) {
      CHECK(g.IndexRepeated());
    }
    if (indexConst) CHECK(g.IndexNarrowed());
    // Parts (outer items [b, e)) write exactly their block of the output.
    const size_t O = s.Outer(), block = s.idxCount * s.inner * sizeof(T);
    for (size_t b = 0; b < O && O > 1; b += 2) {
      const size_t e = std::min(O, b + 1 + b % 3);
      std::memset(dst.data(), 0x5A, s.DstSize() * sizeof(T));
      g.Forward(src.data(), indexConst ? nullptr : idx.data(), dst.data(), synetk::Range{b, e});
      const auto* got = reinterpret_cast<const uint8_t*>(dst.data());
      const auto* ref = reinterpret_cast<const uint8_t*>(want.data());
      INFO("part [" << b << ", " << e << ")");
      REQUIRE(std::memcmp(got + b * block, ref + b * block, (e - b) * block) == 0);
      bool outsideIntact = true;
      for (size_t i = 0; i < s.DstSize() * sizeof(T); ++i) {
        if (i < b * block || i >= e * block) outsideIntact &= got[i] == 0x5A;
      }
      REQUIRE(outsideIntact);
      REQUIRE(dst.GuardsIntact());
    }
  }
}

template <class Fn>
void ForEachType(Fn&& fn) {
  fn(uint8_t(), int32_t());
  fn(uint8_t(), int64_t());
  fn(hwy::bfloat16_t(), int32_t());
  fn(hwy::bfloat16_t(), int64_t());
  fn(float(), int32_t());
  fn(float(), int64_t());
  fn(double(), int32_t());
  fn(double(), int64_t());
}

template <class Fn>
void ForEachTypeAndUser(Fn&& fn) {
  ForEachType(fn);
  fn(Rgba(), int32_t());
  fn(Quad16(), int64_t());
}

TEST_CASE("GatherElements inner == 1, edge sizes", "[gather]") {
  SYNETK_FOR_EACH_TARGET([] {
    ForEachTypeAndUser([](auto t, auto i) {
      using T = decltype(t);
      using I = decltype(i);
      for (size_t idxCount : EdgeSizes()) {
        for (size_t srcCount : {size_t{1}, size_t{3}, size_t{17}, size_t{49}}) {
          CheckShape<T, I>({{2}, srcCount, 1, idxCount}, IndexKind::kRandom);
        }
      }
    });
  });
}

TEST_CASE("GatherElements inner > 1, edge sizes", "[gather]") {
  SYNETK_FOR_EACH_TARGET([] {
    ForEachTypeAndUser([](auto t, auto i) {
      using T = decltype(t);
      using I = decltype(i);
      for (size_t inner : EdgeSizes()) {
        if (inner == 1) continue;
        CheckShape<T, I>({{2}, 3, inner, 2}, IndexKind::kRandom);
        CheckShape<T, I>({{3}, 5, inner, 4}, IndexKind::kRowUniform);
      }
    });
  });
}

TEST_CASE("GatherElements outer lists of length 0..4", "[gather]") {
  const std::vector<std::vector<size_t>> outers = {{}, {3}, {2, 3}, {1, 2, 2}, {2, 1, 2, 1}};
  SYNETK_FOR_EACH_TARGET([&] {
    ForEachType([&](auto t, auto i) {
      using T = decltype(t);
      using I = decltype(i);
      for (const auto& outer : outers) {
        for (size_t inner : {size_t{1}, size_t{7}, size_t{20}}) {
          CheckShape<T, I>({outer, 6, inner, 9}, IndexKind::kRowUniform);
          CheckShape<T, I>({outer, 6, inner, 9}, IndexKind::kRepeated);
        }
      }
    });
  });
}

TEST_CASE("GatherElements negative and boundary indices", "[gather]") {
  SYNETK_FOR_EACH_TARGET([] {
    ForEachType([](auto t, auto i) {
      using T = decltype(t);
      using I = decltype(i);
      for (size_t srcCount : {size_t{1}, size_t{2}, size_t{33}}) {
        CheckShape<T, I>({{2}, srcCount, 1, 37}, IndexKind::kBoundary);
        CheckShape<T, I>({{2}, srcCount, 19, 3}, IndexKind::kBoundary);
      }
    });
  });
}

TEST_CASE("GatherElements realistic shapes", "[gather]") {
  SYNETK_FOR_EACH_TARGET([] {
    CheckShape<float, int32_t>({{8}, 2048, 1, 1024}, IndexKind::kRandom);
    CheckShape<float, int64_t>({{4}, 2048, 1, 1024}, IndexKind::kRepeated);
    CheckShape<hwy::bfloat16_t, int32_t>({{4}, 512, 1, 300}, IndexKind::kRandom);
    CheckShape<float, int32_t>({{4, 4}, 64, 64, 64}, IndexKind::kRowUniform);
    CheckShape<uint8_t, int64_t>({{2, 3}, 80, 85, 17}, IndexKind::kRowUniform);
    CheckShape<double, int32_t>({{1, 3}, 50, 49, 30}, IndexKind::kRandom);
  });
}

// ---- Reads stay inside the caller's buffers ------------------------------------

// Bytes between two inaccessible pages: a read one byte outside [data, data +
// bytes) at either end faults (SIGSEGV) instead of passing unnoticed.
class Fenced {
 public:
  Fenced(size_t bytes, bool atEnd) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t body = (bytes + page_ - 1) / page_ * page_;
    size_ = body + 2 * page_;
    void* m = mmap(nullptr, size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(m != MAP_FAILED);
    base_ = static_cast<uint8_t*>(m);
    REQUIRE(mprotect(base_ + page_, body, PROT_READ | PROT_WRITE) == 0);
    data_ = atEnd ? base_ + page_ + body - bytes : base_ + page_;
  }
  ~Fenced() { munmap(base_, size_); }
  Fenced(const Fenced&) = delete;
  Fenced& operator=(const Fenced&) = delete;
  uint8_t* data() { return data_; }

 private:
  size_t page_, size_;
  uint8_t* base_;
  uint8_t* data_;
};

// src and idx end (or start) exactly at an inaccessible page; indices pick
// the last and first source rows, where 1- and 2-byte gathers read 32-bit
// words around the element.
template <typename T, typename I>
void CheckFenced(const Shape& s) {
  INFO("elem " << sizeof(T) << "B, index " << sizeof(I) * 8 << "b, srcCount " << s.srcCount
               << ", inner " << s.inner << ", idxCount " << s.idxCount);
  const auto srcV = RandomBits<T>(s.SrcSize());
  const auto idxV = MakeIndices<I>(s, IndexKind::kBoundary);
  std::vector<T> want(s.DstSize());
  synetk_ref::GatherElements(srcV.data(), idxV.data(), want.data(), s.Outer(), s.srcCount,
                             s.inner, s.idxCount);
  for (bool atEnd : {true, false}) {
    Fenced src(s.SrcSize() * sizeof(T), atEnd), idx(s.DstSize() * sizeof(I), atEnd);
    std::memcpy(src.data(), srcV.data(), s.SrcSize() * sizeof(T));
    std::memcpy(idx.data(), idxV.data(), s.DstSize() * sizeof(I));
    const T* sp = reinterpret_cast<const T*>(src.data());
    const I* ip = reinterpret_cast<const I*>(idx.data());
    for (bool indexConst : {false, true}) {
      synetk::GatherElements<T, I> g(s.outer.data(), s.outer.size(), s.srcCount, s.inner,
                                     s.idxCount, indexConst);
      if (indexConst) g.SetIndex(ip);
      Guarded<T> dst(s.DstSize());
      g.Forward(sp, ip, dst.data());
      REQUIRE(std::memcmp(dst.data(), want.data(), want.size() * sizeof(T)) == 0);
      REQUIRE(dst.GuardsIntact());
    }
  }
}

TEST_CASE("GatherElements never reads outside src or idx", "[gather]") {
  SYNETK_FOR_EACH_TARGET([] {
    ForEachType([](auto t, auto i) {
      using T = decltype(t);
      using I = decltype(i);
      for (size_t srcCount : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{40}}) {
        CheckFenced<T, I>({{}, srcCount, 1, 67});
        CheckFenced<T, I>({{3}, srcCount, 1, 33});
        CheckFenced<T, I>({{2}, srcCount, 3, 11});
        CheckFenced<T, I>({{2}, srcCount, 37, 2});
      }
    });
  });
}

// ---- Errors -------------------------------------------------------------------

// An index out of range by one on either side, at every kind of position:
// the error names the position and value, and dst is untouched.
template <typename T, typename I>
void CheckOutOfRange(const Shape& s) {
  const size_t n = s.DstSize();
  Guarded<T> src(s.SrcSize()), dst(n);
  Guarded<I> idx(n);
  src.Fill(RandomBits<T>(s.SrcSize()));
  const auto good = MakeIndices<I>(s, IndexKind::kRandom);
  const auto before = RandomBits<T>(n);
  const int64_t sc = static_cast<int64_t>(s.srcCount);
  for (size_t pos : {size_t{0}, n / 2, n - 1}) {
    for (int64_t bad : {sc, -sc - 1}) {
      auto v = good;
      v[pos] = static_cast<I>(bad);
      idx.Fill(v);
      dst.Fill(before);
      const size_t o = pos / (s.idxCount * s.inner), c = (pos / s.inner) % s.idxCount,
                   i = pos % s.inner;
      std::ostringstream needle;
      needle << "GatherElements: idx[outer " << o << ", index " << c << ", inner " << i
             << "] = " << bad << ": expected an index in [" << -sc << ", " << sc << ")";
      INFO("pos " << pos << " value " << bad);
      synetk::GatherElements<T, I> g(s.outer.data(), s.outer.size(), s.srcCount, s.inner,
                                     s.idxCount, false);
      CheckThrowsNaming([&] { g.Forward(src.data(), idx.data(), dst.data()); }, needle.str());
      synetk::GatherElements<T, I> gc(s.outer.data(), s.outer.size(), s.srcCount, s.inner,
                                      s.idxCount, true);
      CheckThrowsNaming([&] { gc.SetIndex(idx.data()); }, needle.str());
      CHECK(gc.InternalBufferSize() == 0);
      // Without SetIndex, Forward reads (and checks) the index it is given.
      CheckThrowsNaming([&] { gc.Forward(src.data(), idx.data(), dst.data()); }, needle.str());
      REQUIRE(std::memcmp(dst.data(), before.data(), n * sizeof(T)) == 0);
      REQUIRE(dst.GuardsIntact());
    }
  }
}

TEST_CASE("GatherElements out-of-range indices", "[gather]") {
  SYNETK_FOR_EACH_TARGET([] {
    ForEachType([](auto t, auto i) {
      using T = decltype(t);
      using I = decltype(i);
      CheckOutOfRange<T, I>({{2}, 5, 1, 40});
      CheckOutOfRange<T, I>({{3, 1}, 4, 33, 3});
      CheckOutOfRange<T, I>({{}, 1, 1, 1});
    });
  });
}

TEST_CASE("GatherElements bad arguments", "[gather]") {
  SYNETK_FOR_EACH_TARGET([] {
    using G = synetk::GatherElements<float, int32_t>;
    const size_t outer[2] = {2, 3}, zero[2] = {2, 0};
    CheckThrowsNaming([&] { G(nullptr, 2, 4, 1, 4); }, "GatherElements: outer = null");
    CheckThrowsNaming([&] { G(zero, 2, 4, 1, 4); }, "GatherElements: outer[1] = 0");
    CheckThrowsNaming([&] { G(outer, 2, 0, 1, 4); }, "srcCount = 0");
    CheckThrowsNaming([&] { G(outer, 2, 4, 0, 4); }, "inner = 0");
    CheckThrowsNaming([&] { G(outer, 2, 4, 1, 0); }, "idxCount = 0");
    const size_t huge[2] = {size_t{1} << 40, size_t{1} << 30};
    CheckThrowsNaming([&] { G(huge, 2, 4, 1, 4); }, "GatherElements: outer");
    CheckThrowsNaming([&] { G(outer, 1, size_t{1} << 31, 1, 4); }, "srcCount = 2147483648");
    CheckThrowsNaming([&] { G(outer, 1, size_t{1} << 30, size_t{1} << 30, 1); }, "outer*srcCount*inner");

    G g(outer, 2, 4, 2, 3);  // src 48, idx/dst 36 elements
    Guarded<float> src(48), dst(36);
    Guarded<int32_t> idx(36);
    src.Fill(RandomFloats(48));
    idx.Fill(std::vector<int32_t>(36, 1));
    const auto before = dst.ToVector();
    CheckThrowsNaming([&] { g.Forward(nullptr, idx.data(), dst.data()); }, "GatherElements: src = null");
    CheckThrowsNaming([&] { g.Forward(src.data(), nullptr, dst.data()); }, "GatherElements: idx = null");
    CheckThrowsNaming([&] { g.Forward(src.data(), idx.data(), nullptr); }, "GatherElements: dst = null");
    CheckThrowsNaming([&] { g.Forward(src.data(), idx.data(), dst.data(), synetk::Range{7, 3}); },
                "GatherElements: part.begin = 7");
    CheckThrowsNaming([&] { g.Forward(src.data(), idx.data(), src.data() + 1); }, "GatherElements: dst = ");
    CheckThrowsNaming([&] { g.Forward(src.data(), reinterpret_cast<const int32_t*>(dst.data()) + 2, dst.data()); },
                "disjoint from idx");
    CheckThrowsNaming([&] { g.SetIndex(idx.data()); }, "GatherElements: indexConst = false");
    REQUIRE(std::memcmp(dst.ToVector().data(), before.data(), 36 * sizeof(float)) == 0);
    REQUIRE(dst.GuardsIntact());

    G gc(outer, 2, 4, 2, 3, true);
    // Before SetIndex a constant-index context reads the index it is given.
    CheckThrowsNaming([&] { gc.Forward(src.data(), nullptr, dst.data()); }, "GatherElements: idx = null");
    CheckThrowsNaming([&] { gc.SetIndex(nullptr); }, "GatherElements: idx = null");
    // A failed SetIndex keeps the previous index.
    gc.SetIndex(idx.data());
    auto bad = idx.ToVector();
    bad[7] = 4;
    Guarded<int32_t> idxBad(36);
    idxBad.Fill(bad);
    CheckThrowsNaming([&] { gc.SetIndex(idxBad.data()); }, "idx[outer 1, index 0, inner 1] = 4");
    gc.Forward(src.data(), nullptr, dst.data());
    for (size_t r = 0; r < 36; ++r) {
      CHECK(dst[r] == src[(r / 6) * 8 + 2 + r % 2]);
    }
  });
}

TEST_CASE("GatherElements constant-index analysis and buffer size", "[gather]") {
  SYNETK_FOR_EACH_TARGET([] {
    // int64 indices narrowed to int32; one slice repeated over 4 outer items.
    Shape s{{4}, 100, 1, 30};
    const auto v = MakeIndices<int64_t>(s, IndexKind::kRepeated);
    synetk::GatherElements<float, int64_t> g(s.outer.data(), 1, 100, 1, 30, true);
    CHECK(g.InternalBufferSize() == 0);
    g.SetIndex(v.data());
    CHECK(g.IndexRepeated());
    CHECK(g.IndexNarrowed());
    CHECK(g.InternalBufferSize() == 30 * sizeof(int32_t));
    // inner > 1 with every row uniform: only the row indices are kept.
    Shape u{{2, 2}, 10, 16, 5};
    std::vector<int32_t> w(u.DstSize());
    for (size_t j = 0; j < w.size(); ++j) w[j] = static_cast<int32_t>((j / 16) % 10) - 5;
    synetk::GatherElements<hwy::bfloat16_t, int32_t> gu(u.outer.data(), 2, 10, 16, 5, true);
    gu.SetIndex(w.data());
    CHECK(!gu.IndexRepeated());
    CHECK(gu.InternalBufferSize() == 4 * 5 * sizeof(int32_t));
    // A mix: per-element indices plus the row table.
    w[3] = 0;
    gu.SetIndex(w.data());
    CHECK(gu.InternalBufferSize() == (4 * 5 * 16 + 4 * 5) * sizeof(int32_t));
    // Non-constant contexts keep nothing.
    synetk::GatherElements<float, int32_t> gn(u.outer.data(), 2, 10, 16, 5, false);
    CHECK(gn.InternalBufferSize() == 0);
  });
}

// ---- The synetk::simd entry points ----------------------------------------------

template <typename T, typename I>
void CheckCompat(synetk::simd::SimdTensorDataType dataType, synetk::simd::SimdTensorDataType indexType) {
  using namespace synetk::simd;
  const size_t outer[3] = {2, 1, 3};
  const Shape s{{2, 1, 3}, 7, 5, 6};
  const auto src = RandomBits<T>(s.SrcSize());
  const auto idx = MakeIndices<I>(s, IndexKind::kRowUniform);
  std::vector<T> want(s.DstSize());
  synetk_ref::GatherElements(src.data(), idx.data(), want.data(), s.Outer(), 7, 5, 6);
  // Another valid index: SetIndex on a non-constant context must ignore it.
  const auto other = MakeIndices<I>(s, IndexKind::kRandom);
  for (SimdBool indexConst : {SimdFalse, SimdTrue}) {
    for (const bool setIndex : {false, true}) {
      INFO("indexConst " << indexConst << " SetIndex " << setIndex);
      void* c = SimdSynetGatherElementsInit(dataType, indexType, indexConst, 1, outer, 3, 7, 5, 6);
      REQUIRE(c != nullptr);
      std::unique_ptr<void, void (*)(void*)> guard(c, SimdRelease);
      const auto* i8 = reinterpret_cast<const uint8_t*>(idx.data());
      if (setIndex) {
        SimdSynetGatherElementsSetIndex(c, indexConst ? i8 : reinterpret_cast<const uint8_t*>(other.data()));
      }
      // SetIndex is optional for a constant index and ignored otherwise, as in Simd.
      const bool analysed = indexConst && setIndex;
      CHECK((SimdSynetGatherElementsInternalBufferSize(c) > 0) == analysed);
      Guarded<T> dst(s.DstSize());
      SimdSynetGatherElementsForward(c, reinterpret_cast<const uint8_t*>(src.data()), i8,
                                     reinterpret_cast<uint8_t*>(dst.data()));
      REQUIRE(std::memcmp(dst.data(), want.data(), want.size() * sizeof(T)) == 0);
      REQUIRE(dst.GuardsIntact());
    }
  }
}

TEST_CASE("GatherElements synetk::simd entry points", "[gather]") {
  using namespace synetk::simd;
  SYNETK_FOR_EACH_TARGET([] {
    CheckCompat<float, int32_t>(SimdTensorData32f, SimdTensorData32i);
    CheckCompat<float, int64_t>(SimdTensorData32f, SimdTensorData64i);
    CheckCompat<uint16_t, int32_t>(SimdTensorData16b, SimdTensorData32i);
    CheckCompat<uint8_t, int64_t>(SimdTensorData8u, SimdTensorData64i);
    CheckCompat<int8_t, int32_t>(SimdTensorData8i, SimdTensorData32i);
    CheckCompat<int64_t, int32_t>(SimdTensorData64i, SimdTensorData32i);
    CheckCompat<int32_t, int64_t>(SimdTensorData32i, SimdTensorData64i);
  });
  const size_t outer[1] = {2};
  CHECK(SimdSynetGatherElementsInit(SimdTensorDataUnknown, SimdTensorData32i, SimdFalse, 1, outer, 1, 4, 1, 4) == nullptr);
  CHECK(SimdSynetGatherElementsInit(SimdTensorData32f, SimdTensorData32f, SimdFalse, 1, outer, 1, 4, 1, 4) == nullptr);
  CHECK(SimdSynetGatherElementsInit(SimdTensorData32f, SimdTensorData8u, SimdFalse, 1, outer, 1, 4, 1, 4) == nullptr);
  CHECK(SimdSynetGatherElementsInit(SimdTensorData32f, SimdTensorData64u, SimdFalse, 1, outer, 1, 4, 1, 4) == nullptr);
  CheckThrowsNaming([&] { SimdSynetGatherElementsInit(SimdTensorData32f, SimdTensorData32i, SimdFalse, 1, outer, 1, 0, 1, 4); },
              "srcCount = 0");
  void* c = SimdSynetGatherElementsInit(SimdTensorData32f, SimdTensorData32i, SimdFalse, 1, outer, 1, 4, 1, 3);
  REQUIRE(c != nullptr);
  float src[8] = {0, 1, 2, 3, 4, 5, 6, 7}, dst[6] = {};
  const int32_t idx[6] = {0, -4, 3, 1, 4, 2};
  // A non-constant context ignores SetIndex without reading it, as Simd does.
  SimdSynetGatherElementsSetIndex(c, nullptr);
  SimdSynetGatherElementsSetIndex(c, reinterpret_cast<const uint8_t*>(idx));
  CHECK(SimdSynetGatherElementsInternalBufferSize(c) == 0);
  CheckThrowsNaming([&] {
    SimdSynetGatherElementsForward(c, reinterpret_cast<uint8_t*>(src), reinterpret_cast<const uint8_t*>(idx),
                                   reinterpret_cast<uint8_t*>(dst));
  }, "idx[outer 1, index 1, inner 0] = 4");
  for (float x : dst) CHECK(x == 0.0f);
  CheckThrowsNaming([&] { SimdSynetGatherElementsForward(nullptr, nullptr, nullptr, nullptr); }, "context = null");
  SimdRelease(c);
  SimdRelease(nullptr);
}

}  // namespace
