// Copyright synetk authors. SPDX-License-Identifier: MIT
// Pooling layers (average, max 2D/3D) against the scalar reference, on every
// SIMD target, both formats, every element type, with guard zones.
// The kernels are compiled in tests/kernels/ (compile-once mode).
#include "synetk/declarations.h"
#include "synetk/simd.h"

#include "harness.h"
#include "reference/pooling_ref.h"

#include <array>
#include <climits>
#include <cstring>
#include <limits>
#include <set>
#include <utility>
#include <sstream>
#include <string>

namespace {

using namespace synetk_test;
using hwy::bfloat16_t;
using hwy::float16_t;
using synetk_ref::PoolGeom;

// Random elements: integers over their whole range, floats in [lo, hi)
// (exact in T; the default range holds negative values).
template <typename T>
std::vector<T> PoolRandom(size_t n, float lo = -4.0f, float hi = 4.0f) {
  if constexpr (std::is_integral_v<T>) {
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(Rng()() & 0xFF);
    return v;
  } else {
    return RandomElems<T>(n, lo, hi);
  }
}

template <typename T>
std::vector<T> Transpose(const std::vector<T>& v, size_t C, size_t S) {  // NCHW -> NHWC
  std::vector<T> out(v.size());
  for (size_t c = 0; c < C; ++c)
    for (size_t s = 0; s < S; ++s) out[s * C + c] = v[c * S + s];
  return out;
}

template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

std::string Describe(const PoolGeom& g) {
  std::ostringstream os;
  os << "src " << g.srcC << "x" << g.srcH << "x" << g.srcW << " kernel " << g.kC << "x" << g.kY
     << "x" << g.kX << " stride " << g.sC << "x" << g.sY << "x" << g.sX << " pad " << g.pC << "x"
     << g.pY << "x" << g.pX << " dst " << g.dstC << "x" << g.dstH << "x" << g.dstW;
  return os.str();
}

// Output sizes: the largest valid one (every window holds an input element,
// what ceil mode gives) and the floor-mode one.
size_t MaxDst(size_t src, size_t s, size_t p) { return (src + p - 1) / s + 1; }
size_t FloorDst(size_t src, size_t k, size_t s, size_t p) {
  return src + 2 * p >= k ? (src + 2 * p - k) / s + 1 : 1;
}

PoolGeom Geom2D(size_t C, size_t H, size_t W, size_t kY, size_t kX, size_t sY, size_t sX,
                size_t pY, size_t pX, bool ceilY, bool ceilX) {
  PoolGeom g;
  g.srcC = g.dstC = C;
  g.srcH = H;
  g.srcW = W;
  g.kY = kY;
  g.kX = kX;
  g.sY = sY;
  g.sX = sX;
  g.pY = pY;
  g.pX = pX;
  g.dstH = ceilY ? MaxDst(H, sY, pY) : FloorDst(H, kY, sY, pY);
  g.dstW = ceilX ? MaxDst(W, sX, pX) : FloorDst(W, kX, sX, pX);
  return g;
}

// Runs the library (NCHW or NHWC input as given) in guarded buffers.
template <typename T, bool kMax, class F>
std::vector<T> RunLib(const std::vector<T>& src, const PoolGeom& g, bool excludePad, bool use3d) {
  Guarded<T> s(src.size()), d(g.DstSize());
  s.Fill(src);
  if constexpr (kMax) {
    if (use3d) {
      synetk::PoolingMax<T, F>()(s.data(), g.srcC, g.srcH, g.srcW, g.kC, g.kY, g.kX, g.sC, g.sY,
                                 g.sX, g.pC, g.pY, g.pX, d.data(), g.dstC, g.dstH, g.dstW);
    } else {
      synetk::PoolingMax<T, F>()(s.data(), g.srcC, g.srcH, g.srcW, g.kY, g.kX, g.sY, g.sX, g.pY,
                                 g.pX, d.data(), g.dstH, g.dstW);
    }
  } else {
    synetk::PoolingAverage<T, F>()(s.data(), g.srcC, g.srcH, g.srcW, g.kY, g.kX, g.sY, g.sX,
                                   g.pY, g.pX, d.data(), g.dstH, g.dstW, excludePad);
  }
  REQUIRE(d.GuardsIntact());
  REQUIRE(s.GuardsIntact());
  REQUIRE(SameBits(s.ToVector(), src));  // input untouched
  return d.ToVector();
}

// Both formats' results, NHWC's transposed back to NCHW order.
template <typename T, bool kMax>
std::array<std::vector<T>, 2> RunEachFormat(const std::vector<T>& src, const PoolGeom& g,
                                            bool excludePad, bool use3d) {
  const auto nchw = RunLib<T, kMax, synetk::Nchw>(src, g, excludePad, use3d);
  const auto nhwc = RunLib<T, kMax, synetk::Nhwc>(Transpose(src, g.srcC, g.srcH * g.srcW), g,
                                                  excludePad, use3d);
  return {nchw, Transpose(nhwc, g.dstH * g.dstW, g.dstC)};
}

// Max: NHWC must give the transposed NCHW result bit for bit. (Averages
// need not: each format's paths sum in their own order, checked against the
// reference one by one.)
template <typename T>
std::vector<T> RunBothFormatsMax(const std::vector<T>& src, const PoolGeom& g, bool use3d) {
  const auto both = RunEachFormat<T, true>(src, g, false, use3d);
  REQUIRE(SameBits(both[1], both[0]));
  return both[0];
}

// Max is exact: the output is the reference's element (a +0/-0 tie may pick
// either zero, so unequal bits must still be equal numbers).
// CheckMaxAgainst takes the reference's output, computed once for every target.
template <typename T>
void CheckMaxAgainst(const PoolGeom& g, bool use3d, const std::vector<T>& src,
                     const std::vector<T>& ref) {
  INFO("max " << Describe(g) << (use3d ? " (3D call)" : ""));
  const auto got = RunBothFormatsMax<T>(src, g, use3d);
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &ref[i], sizeof(T)) != 0 &&
        !(synetk_ref::PoolValue(got[i]) == synetk_ref::PoolValue(ref[i]))) {
      FAIL("element " << i << " got " << synetk_ref::PoolValue(got[i]) << " expected "
                      << synetk_ref::PoolValue(ref[i]));
    }
  }
}

template <typename T>
void CheckMax(const PoolGeom& g, bool use3d, const std::vector<T>& src) {
  CheckMaxAgainst(g, use3d, src, synetk_ref::PoolMax(src, g, false));
}

// Average tolerance: the fp32 sum of n = kY*kX terms (n - 1 roundings) and
// its product with the rounded reciprocal of the area (two more; a division
// would be one) are within (n + 2) * 2^-24 * sum|x| / divisor of the exact
// value, plus one ulp
// of T (the fp32 result may sit on the other side of T's rounding boundary;
// f16 subnormals: 2^-24 absolute).
template <typename T>
void CheckAverageValues(const PoolGeom& g, const std::vector<T>& got, const std::vector<double>& ref,
                        const std::vector<double>& mag) {
  const double n = std::min<double>(double(g.kY) * double(g.kX), double(g.srcH) * double(g.srcW));
  for (size_t i = 0; i < got.size(); ++i) {
    const double v = synetk_ref::PoolValue(got[i]);
    // f16 outputs below 2^-14 are subnormal: their ulp is 2^-24 absolute
    // (as in normalize_test.cc), which the relative kUlp does not cover.
    const double subnormalUlp = std::is_same_v<T, float16_t> ? std::ldexp(1.0, -24) : 0.0;
    const double tol = (n + 2) * std::ldexp(1.0, -24) * mag[i] +
                       TestElem<T>::kUlp * std::fabs(ref[i]) + subnormalUlp + 1e-30;
    if (!(std::fabs(v - ref[i]) <= tol)) {
      FAIL("element " << i << " got " << v << " expected " << ref[i] << " (tol " << tol << ")");
    }
  }
}

template <typename T>
void CheckAverage(const PoolGeom& g, bool excludePad, const std::vector<T>& src) {
  INFO("average " << Describe(g) << " excludePad " << excludePad);
  const auto both = RunEachFormat<T, false>(src, g, excludePad, false);
  std::vector<double> mag;
  const auto ref = synetk_ref::PoolAverage(src, g, excludePad, false, mag);
  for (size_t f = 0; f < 2; ++f) {
    INFO((f == 0 ? "NCHW" : "NHWC"));
    CheckAverageValues(g, both[f], ref, mag);
  }
}

// Every 2D geometry class the issue lists: sizes from 1 to 3 vectors + 1 (of
// 16 fp32 lanes, and of the 32 or 64 lanes max pooling uses for 16- and 8-bit
// types) along C, H and W; kernels
// 1..7, strides 1..3, floor and ceil output sizes, windows clipped on every
// side; random asymmetric geometry; realistic shapes.
std::vector<PoolGeom> Geometries2D(size_t elemBytes) {
  std::vector<PoolGeom> v;
  std::vector<size_t> sizes = EdgeSizes();
  if (elemBytes == 2) sizes.insert(sizes.end(), {63, 64, 65, 95, 96, 97});
  if (elemBytes == 1) sizes.insert(sizes.end(), {63, 64, 65, 127, 128, 129, 191, 192, 193});
  for (size_t n : sizes) {
    v.push_back(Geom2D(n, 5, 6, 3, 3, 2, 2, 1, 1, true, true));  // along C (NHWC)
    v.push_back(Geom2D(2, 3, n, 3, 3, 2, 2, 1, 1, false, true));  // along W (NCHW)
    v.push_back(Geom2D(1, 2, n, 2, 2, 2, 2, 0, 0, false, false));
    v.push_back(Geom2D(1, 4, n, 5, 5, 1, 1, 2, 2, false, false));
    // 2x2 s2 p0 on even sizes: the row-pair paths (NCHW rows, NHWC channels).
    v.push_back(Geom2D(3, 4, 2 * n, 2, 2, 2, 2, 0, 0, false, false));
    v.push_back(Geom2D(n, 4, 4, 2, 2, 2, 2, 0, 0, false, false));
    // Stride 2 along W tiling even rows (3x3 p1, 2x2 p0) under any vertical
    // geometry: the NCHW half-width path (rows reduced in registers, 2N
    // columns at a time, the odd columns carried across chunks).
    v.push_back(Geom2D(2, 5, 2 * n, 3, 3, 2, 2, 1, 1, false, false));
    v.push_back(Geom2D(2, 5, 2 * n, 2, 2, 2, 2, 0, 0, false, false));
    v.push_back(Geom2D(3, 4, 2 * n, 1, 3, 1, 2, 0, 1, false, false));
    v.push_back(Geom2D(2, 9, 2 * n, 5, 3, 3, 2, 2, 1, true, false));
  }
  if (elemBytes == 1) {
    // 2x2 s2 on rows of every even width up to 32 with many pairs: the
    // AVX3_DL packed 8-bit pairs (64/W row pairs per two loads).
    for (size_t w = 2; w <= 32; w += 2) v.push_back(Geom2D(37, 6, w, 2, 2, 2, 2, 0, 0, false, false));
  }
  for (size_t n : EdgeSizes()) v.push_back(Geom2D(2, n, 3, 3, 2, 2, 1, 1, 0, true, false));
  // 3-wide stride-2 windows along W in NHWC (the stem rows: shared columns,
  // no row buffer) with every padding and 1 to 3 rows, odd and even widths.
  for (size_t p = 0; p <= 2; ++p) {
    for (size_t kY = 1; kY <= 3; ++kY) {
      v.push_back(Geom2D(17 + p, 7, 9 + p, kY, 3, 2, 2, HWY_MIN(p, kY - 1), p, p == 1, p != 1));
    }
  }
  for (size_t k = 1; k <= 7; ++k)
    for (size_t s = 1; s <= 3; ++s)
      for (size_t p : {size_t{0}, k / 2, k - 1}) {
        if (p == k / 2 && p == 0 && k > 1) continue;
        v.push_back(Geom2D(3, 9, 10, k, k, s, s, p, p, (k + s) % 2 == 0, (k + s) % 2 == 1));
      }
  std::mt19937 rng = SeededRng(2024);
  auto pick = [&](size_t lo, size_t hi) { return lo + rng() % (hi - lo + 1); };
  for (int i = 0; i < 40; ++i) {
    const size_t kY = pick(1, 7), kX = pick(1, 7);
    const size_t sY = pick(1, 4), sX = i % 5 == 0 ? pick(5, 9) : pick(1, 4);
    v.push_back(Geom2D(pick(1, 20), pick(1, 24), pick(1, 40), kY, kX, sY, sX, pick(0, kY - 1),
                       pick(0, kX - 1), rng() % 2, rng() % 2));
  }
  v.push_back(Geom2D(16, 28, 28, 3, 3, 2, 2, 1, 1, false, false));  // ResNet stem
  v.push_back(Geom2D(5, 12, 20, 3, 2, 2, 2, 1, 0, false, false));   // 3 rows, 2 columns, s2
  v.push_back(Geom2D(3, 11, 100, 3, 3, 2, 2, 1, 1, false, false));  // rows of 1-4 chunks
  v.push_back(Geom2D(2, 9, 80, 3, 3, 2, 2, 1, 1, true, false));     // 3 chunks (f16, AVX-512)
  v.push_back(Geom2D(2, 9, 100, 3, 2, 2, 2, 1, 0, false, false));   // 2 columns, 4 chunks
  v.push_back(Geom2D(2, 7, 112, 3, 3, 2, 2, 1, 1, false, false));   // 3.5 chunks: last half
  v.push_back(Geom2D(2, 7, 114, 3, 3, 2, 2, 1, 1, false, false));   // 3.5 chunks and a column
  v.push_back(Geom2D(2, 7, 56, 3, 3, 2, 2, 1, 1, false, false));    // 3.5 chunks of 8 lanes
  // Rows of 3.5 to 4 chunks of 32 lanes over several output rows (3x224x224's
  // last half, 4 whole chunks, 2 columns).
  v.push_back(Geom2D(2, 9, 224, 3, 3, 2, 2, 1, 1, false, false));
  v.push_back(Geom2D(2, 9, 256, 3, 3, 2, 2, 1, 1, false, false));
  v.push_back(Geom2D(2, 9, 166, 3, 2, 2, 2, 1, 0, false, false));
  // The last plane's interior windows reach past src by a chunk: no row read
  // directly (with ASan a stray load of the first row fails; found by fuzzing).
  v.push_back(Geom2D(1, 4, 20, 3, 3, 2, 2, 1, 1, false, false));
  v.push_back(Geom2D(2, 4, 40, 3, 3, 2, 2, 1, 1, false, false));
  v.push_back(Geom2D(24, 14, 14, 2, 2, 2, 2, 0, 0, false, false));
  v.push_back(Geom2D(8, 13, 13, 5, 5, 1, 1, 2, 2, false, false));  // YOLO SPP
  // NHWC stride-1 rows with whole vectors of channels: output pixels in
  // pairs (odd and even widths; 5, 4 and 7 taps).
  v.push_back(Geom2D(32, 6, 9, 5, 5, 1, 1, 2, 2, false, false));
  v.push_back(Geom2D(64, 5, 8, 4, 4, 1, 1, 1, 2, false, true));
  v.push_back(Geom2D(48, 4, 7, 2, 7, 1, 1, 1, 3, true, false));
  // Stacked NCHW rows with more taps than are unrolled (8-11), unclipped rows
  // of stride 1 and 2, and rows of several vectors.
  v.push_back(Geom2D(3, 20, 24, 9, 11, 1, 1, 4, 5, false, false));
  v.push_back(Geom2D(2, 23, 70, 8, 3, 2, 1, 3, 1, true, false));
  v.push_back(Geom2D(40, 7, 7, 7, 7, 1, 1, 0, 0, false, false));   // global
  v.push_back(Geom2D(33, 5, 13, 5, 13, 1, 1, 0, 0, false, false));  // global, other sizes
  v.push_back(Geom2D(6, 6, 17, 7, 18, 2, 2, 1, 1, false, false));   // global over padding
  v.push_back(Geom2D(5, 3, 70, 3, 70, 1, 1, 0, 0, false, false));   // global, rows of 5 vectors
  v.push_back(Geom2D(37, 5, 5, 5, 5, 1, 1, 0, 0, false, false));    // global, 25-element planes
  v.push_back(Geom2D(21, 3, 3, 3, 3, 1, 1, 0, 0, false, false));    // global, 9-element planes
  // NHWC global with a vector of channels or more (64 8-bit lanes on
  // AVX-512): groups of four vectors (8- and 16-bit keys), whole vectors and
  // an overlapped last one; rows of whole vectors and not.
  v.push_back(Geom2D(130, 7, 7, 7, 7, 1, 1, 0, 0, false, false));
  v.push_back(Geom2D(67, 3, 5, 3, 5, 1, 1, 0, 0, false, false));
  v.push_back(Geom2D(64, 2, 9, 2, 9, 1, 1, 0, 0, false, false));
  v.push_back(Geom2D(260, 2, 3, 2, 3, 1, 1, 0, 0, false, false));  // 4 vectors of 64 bytes
  // Global planes of 2, 4, 16 and 17 elements (one lane, exactly one
  // 128-bit or 512-bit vector, one more).
  v.push_back(Geom2D(9, 1, 2, 1, 2, 1, 1, 0, 0, false, false));
  v.push_back(Geom2D(6, 2, 2, 2, 2, 1, 1, 0, 0, false, false));
  v.push_back(Geom2D(7, 4, 4, 4, 4, 1, 1, 0, 0, false, false));
  v.push_back(Geom2D(11, 1, 17, 1, 17, 1, 1, 0, 0, false, false));
  v.push_back(Geom2D(65, 3, 4, 4, 6, 2, 3, 1, 2, false, false));
  v.push_back(Geom2D(5, 9, 9, 9, 9, 1, 1, 0, 0, false, false));
  v.push_back(Geom2D(7, 1, 1, 1, 1, 1, 1, 0, 0, false, false));
  v.push_back(Geom2D(3, 30, 31, 3, 3, 2, 2, 1, 1, true, true));
  // 3 channels, strided (NHWC channel planes): several vectors of pixels.
  v.push_back(Geom2D(3, 4, 150, 3, 3, 2, 2, 1, 1, true, true));
  v.push_back(Geom2D(3, 5, 97, 2, 9, 1, 5, 0, 4, false, true));
  v.push_back(Geom2D(3, 3, 40, 3, 4, 2, 3, 1, 2, true, false));
  // Few channels, strided (NHWC: whole pixels per vector, gathered by
  // permutations): rows of 2N to 4N lanes of every width, so that chunks lie
  // inside the row and at both edges; windows of 1 to 3 rows, clipped on the
  // left (padding) and the right (ceil sizes); 2 and 3 taps straight from
  // src, 4 taps through the row buffer. Where no two-table permutation
  // serves, 1 to 4 channels take the strided rows and, on AVX2, bf16/f16
  // averages of 3 or 4 channels the pixel-pair rows.
  for (size_t C : {1, 2, 3, 4, 5})
    for (size_t kX : {2, 3, 4})
      for (size_t sX : {2, 3}) {
        v.push_back(Geom2D(C, 6, 200 / C + kX + sX, 3, kX, 2, sX, 1, kX - 1, false, true));
      }
  v.push_back(Geom2D(3, 7, 60, 1, 3, 1, 2, 0, 1, false, false));  // one row
  // Max of 16- and 32-bit keys straight from src (NCHW stride 1) needs input
  // rows of 4 vectors or more: 128 16-bit keys on AVX-512.
  v.push_back(Geom2D(2, 6, 130, 3, 3, 1, 1, 1, 1, false, false));
  return v;
}

TEMPLATE_TEST_CASE("pooling max matches the reference on every target", "[pooling]", float,
                   bfloat16_t, float16_t, uint8_t, int8_t) {
  const auto geoms = Geometries2D(sizeof(TestType));
  SYNETK_FOR_EACH_TARGET([&] {
    for (const auto& g : geoms) CheckMax<TestType>(g, false, PoolRandom<TestType>(g.SrcSize()));
  });
}

TEMPLATE_TEST_CASE("pooling average matches the reference on every target", "[pooling]", float,
                   bfloat16_t, float16_t) {
  const auto geoms = Geometries2D(4);  // averages run in fp32 lanes
  SYNETK_FOR_EACH_TARGET([&] {
    for (const auto& g : geoms)
      for (const bool excludePad : {true, false})
        CheckAverage<TestType>(g, excludePad, PoolRandom<TestType>(g.SrcSize()));
  });
}

// NCHW with stride 1 along W straight from src (PoolNchwStride1: fp32 and
// f16 sums and max keys in whole vectors, bf16 sums as pairs of columns):
// the given widths, kernels 1..7 padded 0 or kX / 2, rows in fours and pairs
// (stride 1) and one by one (stride 2, one-row windows, rows left over),
// windows clipped above and below, ceil sizes, and the last rows of src
// (read through copies).
std::vector<PoolGeom> Stride1Geometries(std::initializer_list<size_t> widths) {
  std::vector<PoolGeom> geoms;
  for (size_t W : widths)
    for (size_t kX = 1; kX <= 7; ++kX)
      for (size_t pX : {size_t{0}, kX / 2}) {
        if (kX == 1 && pX == 0 && !geoms.empty() && geoms.back().kX == 1) continue;
        geoms.push_back(Geom2D(2, 9, W, 5, kX, 1, 1, 2, pX, false, kX % 2 == 0));
        geoms.push_back(Geom2D(3, 7, W, 3, kX, 2, 1, 1, pX, true, false));
        geoms.push_back(Geom2D(1, 6, W, 1, kX, 1, 1, 0, pX, false, false));
        geoms.push_back(Geom2D(2, 12, W, 7, kX, 1, 1, 3, pX, false, true));
      }
  return geoms;
}

// Averages: widths about one, two and three blocks for each vector width
// (blocks of 4 to 32 columns).
TEMPLATE_TEST_CASE("pooling averages with stride 1 along rows", "[pooling]", bfloat16_t, float,
                   float16_t) {
  const auto geoms = Stride1Geometries({4, 5, 8, 9, 16, 17, 31, 32, 33, 65, 97});
  SYNETK_FOR_EACH_TARGET([&] {
    for (const auto& g : geoms)
      for (const bool excludePad : {true, false})
        CheckAverage<TestType>(g, excludePad, PoolRandom<TestType>(g.SrcSize()));
  });
}

// Max: 8-bit keys from one block of 16 to 64 columns on, 16- and 32-bit
// keys from four blocks (of 4 to 32 columns) on, and about those widths.
TEMPLATE_TEST_CASE("pooling max with stride 1 along rows", "[pooling]", float, bfloat16_t,
                   float16_t, uint8_t, int8_t) {
  const auto geoms = sizeof(TestType) == 1 ? Stride1Geometries({16, 17, 31, 33, 63, 64, 65, 129})
                     : sizeof(TestType) == 2
                         ? Stride1Geometries({31, 32, 33, 63, 65, 127, 128, 150})
                         : Stride1Geometries({15, 16, 17, 31, 33, 64, 65, 97});
  std::vector<std::vector<TestType>> srcs, refs;
  for (const auto& g : geoms) {
    srcs.push_back(PoolRandom<TestType>(g.SrcSize()));
    refs.push_back(synetk_ref::PoolMax(srcs.back(), g, false));
  }
  SYNETK_FOR_EACH_TARGET([&] {
    for (size_t i = 0; i < geoms.size(); ++i) CheckMaxAgainst(geoms[i], false, srcs[i], refs[i]);
  });
}

// NaN and infinities reach the average unchanged: NaN in a window gives NaN,
// an infinity gives it (both signs: NaN). The shapes take the paths with their
// own stores (NHWC pairs of channel vectors, NCHW half-width rows) and the
// buffered ones (3 channels).
TEMPLATE_TEST_CASE("pooling average carries infinities and NaNs", "[pooling]", float, bfloat16_t,
                   float16_t) {
  SYNETK_FOR_EACH_TARGET([] {
    for (const auto& g : {Geom2D(32, 7, 9, 3, 3, 2, 2, 1, 1, true, true),
                          Geom2D(64, 6, 8, 3, 3, 2, 2, 1, 1, false, false),
                          Geom2D(64, 6, 8, 2, 2, 2, 2, 0, 0, false, false),
                          Geom2D(3, 5, 40, 3, 3, 2, 2, 1, 1, true, false)}) {
      INFO(Describe(g));
      auto src = PoolRandom<TestType>(g.SrcSize());
      for (size_t i = 0; i < src.size(); i += 29) src[i] = TestElem<TestType>::FromFloat(NAN);
      for (size_t i = 5; i < src.size(); i += 31) src[i] = TestElem<TestType>::FromFloat(INFINITY);
      for (size_t i = 11; i < src.size(); i += 37) src[i] = TestElem<TestType>::FromFloat(-INFINITY);
      // Which NaN an fp32 sum gives depends on the order of its operands,
      // which the formats' paths do not share: each is checked on its own.
      const auto nchw = RunLib<TestType, false, synetk::Nchw>(src, g, true, false);
      const auto nhwc = Transpose(
          RunLib<TestType, false, synetk::Nhwc>(Transpose(src, g.srcC, g.srcH * g.srcW), g, true,
                                                false),
          g.dstH * g.dstW, g.dstC);
      std::vector<double> mag;
      const auto ref = synetk_ref::PoolAverage(src, g, true, false, mag);
      size_t nans = 0, infs = 0;
      for (size_t i = 0; i < ref.size(); ++i) {
        for (const auto* got : {&nchw, &nhwc}) {
          const double v = synetk_ref::PoolValue((*got)[i]);
          INFO((got == &nchw ? "NCHW" : "NHWC") << " element " << i << " got " << v << " expected "
                                                << ref[i]);
          if (std::isnan(ref[i])) {
            REQUIRE(std::isnan(v));
          } else if (std::isinf(ref[i])) {
            REQUIRE(v == ref[i]);
          } else {
            REQUIRE(std::isfinite(v));
          }
        }
        nans += std::isnan(ref[i]);
        infs += std::isinf(ref[i]);
      }
      REQUIRE(nans > 0);
      REQUIRE(infs > 0);
    }
  });
}

TEMPLATE_TEST_CASE("pooling max compares 16-bit floats as numbers", "[pooling]", bfloat16_t,
                   float16_t) {
  SYNETK_FOR_EACH_TARGET([] {
    for (const auto& g : {Geom2D(19, 7, 9, 3, 3, 2, 2, 1, 1, true, true),
                          Geom2D(3, 6, 37, 2, 3, 1, 2, 0, 1, false, true)}) {
      CheckMax<TestType>(g, false, PoolRandom<TestType>(g.SrcSize(), -8.0f, -0.01f));
      // Mixed signs around zero, infinities and signed zeros.
      auto src = PoolRandom<TestType>(g.SrcSize(), -0.5f, 0.5f);
      for (size_t i = 0; i < src.size(); i += 7) src[i] = TestElem<TestType>::FromFloat(-INFINITY);
      for (size_t i = 3; i < src.size(); i += 11) src[i] = TestElem<TestType>::FromFloat(-0.0f);
      for (size_t i = 5; i < src.size(); i += 13) src[i] = TestElem<TestType>::FromFloat(0.0f);
      CheckMax<TestType>(g, false, src);
    }
  });
}

// A window of -0 sums to +0 (the sum starts from 0), so its average is +0 in
// every path, whichever place a path adds that +0 in (PoolStart, PoolEnd).
// The shapes take the NCHW half-width rows (3x3 s2 p1, 2x2 s2), the NHWC stem
// rows (one vector of channels, several, bf16 pairs), 5x5 s1 and global
// windows, and the buffered rows of 3 channels.
TEMPLATE_TEST_CASE("pooling average of negative zeros is +0", "[pooling]", float, bfloat16_t,
                   float16_t) {
  SYNETK_FOR_EACH_TARGET([] {
    for (const auto& g : {Geom2D(16, 28, 28, 3, 3, 2, 2, 1, 1, false, false),
                          Geom2D(64, 10, 14, 3, 3, 2, 2, 1, 1, true, true),
                          Geom2D(7, 9, 40, 3, 3, 2, 2, 1, 1, true, false),
                          Geom2D(8, 12, 32, 2, 2, 2, 2, 0, 0, false, false),
                          Geom2D(5, 11, 13, 5, 5, 1, 1, 2, 2, false, false),
                          Geom2D(33, 7, 7, 7, 7, 1, 1, 0, 0, false, false),
                          Geom2D(3, 9, 20, 3, 3, 2, 2, 1, 1, true, true)}) {
      INFO(Describe(g));
      const std::vector<TestType> src(g.SrcSize(), TestElem<TestType>::FromFloat(-0.0f));
      const TestType plusZero = TestElem<TestType>::FromFloat(0.0f);
      for (const bool excludePad : {true, false}) {
        for (const auto& got : RunEachFormat<TestType, false>(src, g, excludePad, false)) {
          for (size_t i = 0; i < got.size(); ++i) {
            INFO("element " << i << " excludePad " << excludePad);
            REQUIRE(std::memcmp(&got[i], &plusZero, sizeof(TestType)) == 0);
          }
        }
      }
    }
  });
}

// 3D: channel windows with the same start/clip rule; the 2D parameters
// through the 3D overload.
TEMPLATE_TEST_CASE("pooling max 3D matches the reference on every target", "[pooling]", float,
                   uint8_t) {
  SYNETK_FOR_EACH_TARGET([] {
    std::mt19937 rng = SeededRng(77);
    auto pick = [&](size_t lo, size_t hi) { return lo + rng() % (hi - lo + 1); };
    for (size_t C : {1, 2, 3, 5, 16, 17, 33}) {
      for (size_t kC = 1; kC <= 3; ++kC)
        for (size_t sC = 1; sC <= 2; ++sC)
          for (size_t pC = 0; pC < kC; ++pC) {
            PoolGeom g = Geom2D(C, pick(1, 9), pick(1, 19), 3, 2, 2, 1, 1, 0, rng() % 2, rng() % 2);
            g.kC = kC;
            g.sC = sC;
            g.pC = pC;
            g.dstC = rng() % 2 ? MaxDst(C, sC, pC) : FloorDst(C, kC, sC, pC);
            CheckMax<TestType>(g, true, PoolRandom<TestType>(g.SrcSize()));
          }
      const PoolGeom g = Geom2D(C, 6, 7, 3, 3, 2, 2, 1, 1, true, true);
      CheckMax<TestType>(g, true, PoolRandom<TestType>(g.SrcSize()));  // 2D via 3D
    }
  });
}

// Parts (synetk::Range over output channels in NCHW, output rows in NHWC):
// each part writes exactly its block of the whole call's output and nothing
// else.
template <typename T, bool kMax, class F>
void CheckPoolParts(const PoolGeom& g, bool use3d) {
  constexpr bool nhwc = std::is_same_v<F, synetk::Nhwc>;
  INFO("parts " << Describe(g) << (nhwc ? " nhwc" : " nchw") << (kMax ? " max" : " average"));
  const auto src = PoolRandom<T>(g.SrcSize());
  const size_t axis = nhwc ? g.dstH : g.dstC, block = g.DstSize() / axis;
  auto run = [&](std::vector<T>& dst, synetk::Range part) {
    if constexpr (kMax) {
      if (use3d) {
        synetk::PoolingMax<T, F>()(src.data(), g.srcC, g.srcH, g.srcW, g.kC, g.kY, g.kX, g.sC,
                                   g.sY, g.sX, g.pC, g.pY, g.pX, dst.data(), g.dstC, g.dstH,
                                   g.dstW, part);
      } else {
        synetk::PoolingMax<T, F>()(src.data(), g.srcC, g.srcH, g.srcW, g.kY, g.kX, g.sY, g.sX,
                                   g.pY, g.pX, dst.data(), g.dstH, g.dstW, part);
      }
    } else {
      synetk::PoolingAverage<T, F>()(src.data(), g.srcC, g.srcH, g.srcW, g.kY, g.kX, g.sY, g.sX,
                                     g.pY, g.pX, dst.data(), g.dstH, g.dstW, true, part);
    }
  };
  std::vector<T> sentinel(g.DstSize());
  std::memset(sentinel.data(), 0x77, sentinel.size() * sizeof(T));
  std::vector<T> whole = sentinel;
  run(whole, synetk::Range::All());
  for (size_t b = 0; b < axis; b += 1 + b / 2) {
    const size_t e = std::min(axis, b + 1 + b / 3);
    std::vector<T> part = sentinel;
    run(part, synetk::Range{b, e});
    for (size_t i = 0; i < part.size(); ++i) {
      const bool inside = i >= b * block && i < e * block;
      if (std::memcmp(&part[i], inside ? &whole[i] : &sentinel[i], sizeof(T)) != 0) {
        FAIL("part [" << b << ", " << e << "): element " << i << (inside ? " differs" : " written"));
      }
    }
  }
  std::vector<T> none = sentinel;
  run(none, synetk::Range{axis, axis + 5});
  REQUIRE(SameBits(none, sentinel));
}

TEST_CASE("pooling split into parts gives the whole call's output", "[pooling][parts]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (const PoolGeom& g : {Geom2D(5, 9, 37, 3, 3, 2, 2, 1, 1, true, true),
                              Geom2D(7, 12, 3, 2, 2, 2, 2, 0, 0, false, false),  // narrow rows
                              Geom2D(7, 6, 10, 2, 2, 2, 2, 0, 0, false, false),  // row pairs
                              Geom2D(7, 9, 38, 3, 3, 2, 2, 1, 1, false, false),  // half width
                              Geom2D(5, 7, 130, 2, 2, 2, 2, 0, 0, false, false),
                              Geom2D(70, 6, 4, 2, 2, 2, 2, 0, 0, false, false),  // NHWC pairs
                              Geom2D(3, 4, 70, 2, 2, 2, 2, 0, 0, false, false),
                              Geom2D(3, 9, 37, 3, 3, 2, 2, 1, 1, true, true),  // 3 channels
                              Geom2D(3, 11, 70, 5, 5, 1, 1, 2, 2, false, false),
                              Geom2D(37, 7, 7, 7, 7, 1, 1, 0, 0, false, false),  // global
                              Geom2D(4, 6, 5, 2, 40, 1, 1, 1, 39, true, true)}) {  // wide kernel
      CheckPoolParts<float, true, synetk::Nchw>(g, false);
      CheckPoolParts<float, true, synetk::Nhwc>(g, false);
      CheckPoolParts<uint8_t, true, synetk::Nchw>(g, false);
      CheckPoolParts<uint8_t, true, synetk::Nhwc>(g, false);
      CheckPoolParts<float, false, synetk::Nchw>(g, false);
      CheckPoolParts<bfloat16_t, false, synetk::Nchw>(g, false);  // 5x5 s1: PoolNchwStride1
      CheckPoolParts<bfloat16_t, false, synetk::Nhwc>(g, false);
    }
    PoolGeom g3 = Geom2D(11, 8, 9, 3, 3, 2, 2, 1, 1, true, true);
    g3.kC = 3;
    g3.sC = 2;
    g3.pC = 1;
    g3.dstC = MaxDst(g3.srcC, g3.sC, g3.pC);
    CheckPoolParts<float, true, synetk::Nchw>(g3, true);
    CheckPoolParts<float, true, synetk::Nhwc>(g3, true);
    const PoolGeom direct = Geom2D(3, 4, 3, 2, 5000, 1, 2000, 1, 4999, true, true);
    CheckPoolParts<float, true, synetk::Nchw>(direct, false);
    CheckPoolParts<float, true, synetk::Nhwc>(direct, false);
  });
}

// Padding far beyond the row buffers' bound takes the direct loop.
TEST_CASE("pooling with huge kernels and padding", "[pooling]") {
  SYNETK_FOR_EACH_TARGET([] {
    PoolGeom g = Geom2D(3, 4, 3, 2, 5000, 1, 2000, 1, 4999, true, true);
    REQUIRE(g.dstW == 3);
    CheckMax<float>(g, false, PoolRandom<float>(g.SrcSize()));
    CheckMax<uint8_t>(g, false, PoolRandom<uint8_t>(g.SrcSize()));
    for (const bool ex : {true, false}) CheckAverage<bfloat16_t>(g, ex, PoolRandom<bfloat16_t>(g.SrcSize()));
    g = Geom2D(2, 5, 6, 1000, 3000, 7, 9, 999, 2999, true, true);  // huge kernel, buffered
    CheckMax<int8_t>(g, false, PoolRandom<int8_t>(g.SrcSize()));
    for (const bool ex : {true, false}) CheckAverage<float>(g, ex, PoolRandom<float>(g.SrcSize()));
    // Kernels wider than the stacked-row path takes (32), buffered.
    for (const auto& w : {Geom2D(3, 6, 50, 3, 40, 2, 3, 1, 20, true, true),
                          Geom2D(2, 5, 70, 2, 33, 1, 1, 0, 16, false, true),
                          Geom2D(17, 3, 9, 1, 35, 1, 2, 0, 30, true, false)}) {
      CheckMax<float>(w, false, PoolRandom<float>(w.SrcSize()));
      CheckMax<uint8_t>(w, false, PoolRandom<uint8_t>(w.SrcSize()));
      for (const bool ex : {true, false}) CheckAverage<bfloat16_t>(w, ex, PoolRandom<bfloat16_t>(w.SrcSize()));
    }
  });
}

// A call in the caller's workspace (WorkspaceBytes of it, misaligned,
// guarded): the output is the reference's (max) or the stack-or-heap call's
// bits (average, itself checked against the reference above), nothing is
// written outside the workspace, one byte less throws before dst is written,
// and every part needs at most the whole call's bytes.
template <typename T, bool kMax, class F>
void CheckPoolWorkspace(const PoolGeom& g, bool excludePad) {
  constexpr bool nhwc = std::is_same_v<F, synetk::Nhwc>;
  INFO("workspace " << Describe(g) << (nhwc ? " nhwc" : " nchw") << (kMax ? " max" : " average"));
  const auto src = PoolRandom<T>(g.SrcSize());
  const size_t axis = nhwc ? g.dstH : g.dstC;
  const auto bytesFor = [&](synetk::Range part) {
    if constexpr (kMax) {
      return synetk::PoolingMax<T, F>::WorkspaceBytes(g.srcC, g.srcH, g.srcW, g.kY, g.kX, g.sY,
                                                      g.sX, g.pY, g.pX, g.dstH, g.dstW, part);
    } else {
      return synetk::PoolingAverage<T, F>::WorkspaceBytes(g.srcC, g.srcH, g.srcW, g.kY, g.kX,
                                                          g.sY, g.sX, g.pY, g.pX, g.dstH, g.dstW,
                                                          excludePad, part);
    }
  };
  const auto run = [&](std::vector<T>& dst, synetk::Workspace ws) {
    if constexpr (kMax) {
      synetk::PoolingMax<T, F>()(src.data(), g.srcC, g.srcH, g.srcW, g.kY, g.kX, g.sY, g.sX,
                                 g.pY, g.pX, dst.data(), g.dstH, g.dstW, synetk::Range::All(), ws);
    } else {
      synetk::PoolingAverage<T, F>()(src.data(), g.srcC, g.srcH, g.srcW, g.kY, g.kX, g.sY, g.sX,
                                     g.pY, g.pX, dst.data(), g.dstH, g.dstW, excludePad,
                                     synetk::Range::All(), ws);
    }
  };
  const size_t bytes = bytesFor(synetk::Range::All());
  for (size_t b = 0; b < axis; b += 1 + b / 2) {
    CHECK(bytesFor(synetk::Range{b, std::min(axis, b + 2)}) <= bytes);
  }
  std::vector<T> expected(g.DstSize());
  if constexpr (kMax) {
    expected = synetk_ref::PoolMax(src, g, nhwc);
  } else {
    run(expected, synetk::Workspace{});
  }
  // One byte past a 64-byte boundary: the arena skips 63 bytes, the most it
  // ever needs, so WorkspaceBytes is exact here and one byte less is short.
  Guarded<unsigned char> ws(bytes + 1, 1);
  std::vector<T> got(g.DstSize());
  run(got, synetk::Workspace{ws.data(), bytes});
  CHECK(ws.GuardsIntact());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0 &&
        !(kMax && synetk_ref::PoolValue(got[i]) == synetk_ref::PoolValue(expected[i]))) {
      FAIL("element " << i << " got " << synetk_ref::PoolValue(got[i]) << " expected "
                      << synetk_ref::PoolValue(expected[i]));
    }
  }
  if (bytes == 0) return;  // a path without scratch
  std::vector<T> sentinel(g.DstSize());
  std::memset(sentinel.data(), 0x77, sentinel.size() * sizeof(T));
  std::vector<T> untouched = sentinel;
  CheckThrowsNaming([&] { run(untouched, synetk::Workspace{ws.data(), bytes - 1}); },
                    "workspace.bytes = " + std::to_string(bytes - 1));
  CHECK(SameBits(untouched, sentinel));
}

TEST_CASE("pooling in a caller's workspace", "[pooling][workspace]") {
  // Geometries of every path with scratch (NHWC rows, pick, strided and
  // planar rows, stem rows, 3D; NCHW rows, stacked rows, half width,
  // stride 1) and of paths without (pairs, global), and scratch larger than
  // the calls' stack buffer (64 channels x 112 columns).
  const PoolGeom geoms[] = {Geom2D(64, 8, 112, 3, 3, 2, 2, 1, 1, true, true),
                            Geom2D(64, 6, 112, 3, 3, 1, 1, 1, 1, false, false),
                            Geom2D(3, 9, 224, 3, 3, 2, 2, 1, 1, false, false),
                            Geom2D(5, 9, 37, 3, 3, 2, 2, 1, 1, true, true),
                            Geom2D(3, 6, 200, 3, 3, 2, 2, 1, 2, false, true),
                            Geom2D(2, 6, 70, 3, 2, 2, 3, 1, 1, false, true),
                            Geom2D(17, 7, 9, 3, 3, 2, 2, 1, 1, true, false),
                            Geom2D(3, 11, 70, 5, 5, 1, 1, 2, 2, false, false),
                            Geom2D(3, 20, 24, 9, 11, 1, 1, 4, 5, false, false),
                            Geom2D(2, 5, 70, 2, 33, 1, 1, 0, 16, false, true),
                            Geom2D(7, 6, 10, 2, 2, 2, 2, 0, 0, false, false),
                            Geom2D(37, 7, 7, 7, 7, 1, 1, 0, 0, false, false)};
  SYNETK_FOR_EACH_TARGET([&] {
    for (const PoolGeom& g : geoms) {
      CheckPoolWorkspace<float, true, synetk::Nchw>(g, false);
      CheckPoolWorkspace<float, true, synetk::Nhwc>(g, false);
      CheckPoolWorkspace<uint8_t, true, synetk::Nchw>(g, false);
      CheckPoolWorkspace<uint8_t, true, synetk::Nhwc>(g, false);
      for (const bool ex : {true, false}) {
        CheckPoolWorkspace<float, false, synetk::Nchw>(g, ex);
        CheckPoolWorkspace<float, false, synetk::Nhwc>(g, ex);
        CheckPoolWorkspace<bfloat16_t, false, synetk::Nchw>(g, ex);
        CheckPoolWorkspace<bfloat16_t, false, synetk::Nhwc>(g, ex);
      }
    }
  });
}

// Scratch larger than the calls' stack buffer comes from a heap block for
// the call: the results are the reference's.
TEST_CASE("pooling with scratch beyond the stack buffer", "[pooling][workspace]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (const PoolGeom& g : {Geom2D(64, 8, 112, 3, 3, 2, 2, 1, 1, true, true),
                              Geom2D(64, 6, 112, 3, 3, 1, 1, 1, 1, false, false),
                              Geom2D(2, 5, 2100, 3, 3, 1, 1, 1, 1, false, false),
                              Geom2D(2, 5, 4100, 3, 3, 2, 2, 1, 1, false, false)}) {
      REQUIRE(synetk::PoolingAverage<float, synetk::Nhwc>::WorkspaceBytes(
                  g.srcC, g.srcH, g.srcW, g.kY, g.kX, g.sY, g.sX, g.pY, g.pX, g.dstH, g.dstW,
                  true) > 16384);
      CheckMax<float>(g, false, PoolRandom<float>(g.SrcSize()));
      CheckMax<bfloat16_t>(g, false, PoolRandom<bfloat16_t>(g.SrcSize()));
      for (const bool ex : {true, false}) CheckAverage<float>(g, ex, PoolRandom<float>(g.SrcSize()));
      CheckAverage<bfloat16_t>(g, true, PoolRandom<bfloat16_t>(g.SrcSize()));
    }
  });
}

// Paths the suite must reach: every (path, NHWC row kind) the planner can
// pick with these capabilities (pooling_plan.h).
using PathKey = std::pair<int, int>;
PathKey KeyOf(const synetk::detail::PoolPlan& p) {
  using synetk::detail::PoolPath;
  return {static_cast<int>(p.path), p.path == PoolPath::kNhwcRows ? static_cast<int>(p.rows) : -1};
}
std::set<PathKey> PossiblePaths(const synetk::detail::PoolCaps& c) {
  using synetk::detail::PoolPath;
  using R = synetk::detail::PoolRowKind;
  std::set<PathKey> s;
  const auto add = [&](PoolPath p, int rows = -1) { s.insert({static_cast<int>(p), rows}); };
  add(PoolPath::kDirect);
  if (!c.nhwc) {
    for (PoolPath p : {PoolPath::kNchwPairs, PoolPath::kNchwHalfWidth, PoolPath::kNchwStacked,
                       PoolPath::kNchwRows}) {
      add(p);
    }
    if (c.stride1 && c.stride1MaxX > 0) add(PoolPath::kNchwStride1);
    if (!c.max) {
      add(PoolPath::kNchwGlobalAverage);
    } else {
      add(PoolPath::kNchwGlobalMax);
      if (!c.floatLanes && !c.scalar) add(PoolPath::kNchwGlobalMaxTree);
    }
    return s;
  }
  add(PoolPath::kNhwcPairs);
  add(PoolPath::kNhwcGlobal);
  for (R r : {R::kGeneric, R::kStem, R::kFlat, R::kPlanar}) add(PoolPath::kNhwcRows, int(r));
  if (c.twoTables) add(PoolPath::kNhwcRows, int(R::kPick));
  const size_t vectorBytes = c.lanes * c.laneBytes;
  if (!c.twoTables && !c.scalar && (vectorBytes == 16 || vectorBytes == 32)) {
    add(PoolPath::kNhwcRows, int(R::kStrided));
  }
  if (c.avx2 && c.laneBytes == 4 && c.elemBytes == 2) add(PoolPath::kNhwcRows, int(R::kPixelPairs));
  return s;
}

// On the current target: the geometries of the reference tests (and the
// direct loop's and a kernel wider than the stacked rows take) reach every
// path the planner can pick for (T, operation, format).
template <typename T, bool kMax, class F>
void CheckPathsReached() {
  INFO((std::is_same_v<F, synetk::Nhwc> ? "nhwc " : "nchw ") << (kMax ? "max " : "average ")
       << sizeof(T) << "-byte elements");
  std::vector<PoolGeom> geoms = Geometries2D(sizeof(T));
  geoms.push_back(Geom2D(3, 4, 3, 2, 5000, 1, 2000, 1, 4999, true, true));  // direct
  geoms.push_back(Geom2D(2, 5, 70, 2, 33, 1, 1, 0, 16, false, true));      // 33 wide
  std::set<PathKey> reached;
  synetk::detail::PoolCaps caps;
  for (const PoolGeom& g : geoms) {
    auto a = synetk::impl::PoolArgs2d<T>(g.srcC, g.srcH, g.srcW, g.kY, g.kX, g.sY, g.sX, g.pY,
                                         g.pX, g.dstH, g.dstW);
    a.excludePad = true;
    reached.insert(KeyOf(synetk::impl::PoolingPlanOf<kMax, T, F>("test", a, synetk::Range::All(),
                                                                 &caps)));
  }
  for (const PathKey& k : PossiblePaths(caps)) {
    INFO("path " << k.first << " rows " << k.second);
    CHECK(reached.count(k) == 1);
  }
  for (const PathKey& k : reached) {
    INFO("path " << k.first << " rows " << k.second << " reached but not expected");
    CHECK(PossiblePaths(caps).count(k) == 1);
  }
}

TEST_CASE("pooling test geometries reach every path on every target", "[pooling][plan]") {
  SYNETK_FOR_EACH_TARGET([] {
    CheckPathsReached<float, true, synetk::Nchw>();
    CheckPathsReached<float, true, synetk::Nhwc>();
    CheckPathsReached<float, false, synetk::Nchw>();
    CheckPathsReached<float, false, synetk::Nhwc>();
    CheckPathsReached<bfloat16_t, true, synetk::Nchw>();
    CheckPathsReached<bfloat16_t, true, synetk::Nhwc>();
    CheckPathsReached<bfloat16_t, false, synetk::Nchw>();
    CheckPathsReached<bfloat16_t, false, synetk::Nhwc>();
    CheckPathsReached<float16_t, true, synetk::Nchw>();
    CheckPathsReached<float16_t, true, synetk::Nhwc>();
    CheckPathsReached<float16_t, false, synetk::Nchw>();
    CheckPathsReached<float16_t, false, synetk::Nhwc>();
    CheckPathsReached<uint8_t, true, synetk::Nchw>();
    CheckPathsReached<uint8_t, true, synetk::Nhwc>();
    CheckPathsReached<int8_t, true, synetk::Nchw>();
    CheckPathsReached<int8_t, true, synetk::Nhwc>();
  });
}

// Every plan that can serve a geometry on this target (PoolPlansServing:
// each path's and row kind's contract), forced through PoolArgs::planIn, in
// format F; src and the result in F's layout.
template <typename T, bool kMax, class F>
std::vector<std::pair<synetk::detail::PoolPlan, std::vector<T>>> RunServingPlans(
    const std::vector<T>& src, const PoolGeom& g, bool excludePad) {
  const auto args = [&] {
    auto a = synetk::impl::PoolArgs2d<T>(g.srcC, g.srcH, g.srcW, g.kY, g.kX, g.sY, g.sX, g.pY,
                                         g.pX, g.dstH, g.dstW);
    a.excludePad = excludePad;
    return a;
  };
  auto a = args();
  synetk::detail::PoolCaps caps;
  synetk::impl::PoolingPlanOf<kMax, T, F>("test", a, synetk::Range::All(), &caps);
  const auto list = synetk::detail::PoolPlansServing(synetk::detail::PoolShapeOf(a), caps);
  std::vector<std::pair<synetk::detail::PoolPlan, std::vector<T>>> out;
  for (size_t i = 0; i < list.count; ++i) {
    Guarded<T> s(src.size()), d(g.DstSize());
    s.Fill(src);
    auto run = args();
    run.src = s.data();
    run.dst = d.data();
    run.planIn = &list.plans[i];
    synetk::impl::RunPooling<kMax, T, F>("test", run, synetk::Range::All(), synetk::Workspace{});
    REQUIRE(d.GuardsIntact());
    REQUIRE(s.GuardsIntact());
    out.emplace_back(list.plans[i], d.ToVector());
  }
  return out;
}

template <typename T, bool kMax>
void CheckServingPlans(const PoolGeom& g, bool excludePad) {
  INFO((kMax ? "max " : "average ") << Describe(g) << " excludePad " << excludePad);
  const auto src = PoolRandom<T>(g.SrcSize());
  std::vector<double> mag;
  std::vector<double> avg;
  std::vector<T> max;
  if constexpr (kMax) {
    max = synetk_ref::PoolMax(src, g, false);
  } else {
    avg = synetk_ref::PoolAverage(src, g, excludePad, false, mag);
  }
  const auto check = [&](const char* format, const auto& runs, bool nhwc) {
    for (const auto& [plan, out] : runs) {
      INFO(format << " path " << int(plan.path) << " rows " << int(plan.rows) << " pick "
                  << plan.pickPixels << (plan.pickCarry ? " carried" : "") << " flat pairs "
                  << plan.flatPairs);
      const auto got = nhwc ? Transpose(out, g.dstH * g.dstW, g.dstC) : out;
      if constexpr (kMax) {
        for (size_t i = 0; i < got.size(); ++i) {
          if (std::memcmp(&got[i], &max[i], sizeof(T)) != 0 &&
              !(synetk_ref::PoolValue(got[i]) == synetk_ref::PoolValue(max[i]))) {
            FAIL("element " << i << " got " << synetk_ref::PoolValue(got[i]) << " expected "
                            << synetk_ref::PoolValue(max[i]));
          }
        }
      } else {
        CheckAverageValues(g, got, avg, mag);
      }
    }
  };
  check("NCHW", RunServingPlans<T, kMax, synetk::Nchw>(src, g, excludePad), false);
  check("NHWC",
        RunServingPlans<T, kMax, synetk::Nhwc>(Transpose(src, g.srcC, g.srcH * g.srcW), g,
                                               excludePad),
        true);
}

TEMPLATE_TEST_CASE("pooling: every plan that serves a geometry matches the reference",
                   "[pooling][plan]", float, bfloat16_t, uint8_t) {
  const auto geoms = Geometries2D(sizeof(TestType));
  SYNETK_FOR_EACH_TARGET([&] {
    for (const auto& g : geoms) {
      CheckServingPlans<TestType, true>(g, false);
      // Averages with excludePad: the paths' clipped widths and scales too
      // (without it, the same paths with one scale).
      if constexpr (!std::is_integral_v<TestType>) CheckServingPlans<TestType, false>(g, true);
    }
  });
}

// NHWC global pooling (PoolNhwcGlobal) keeps the order of the flat rows it
// replaced: the two agree bit for bit, NaN and signed zeros included, which
// the reference comparison leaves open (max: either zero of a tie; averages:
// any order within the bound).
template <typename T, bool kMax>
void CheckNhwcGlobalOrder(const PoolGeom& g) {
  INFO((kMax ? "max " : "average ") << Describe(g));
  auto src = PoolRandom<T>(g.SrcSize());
  for (size_t i = 0; i < src.size(); i += 5) {
    const float specials[] = {std::numeric_limits<float>::quiet_NaN(), -0.0f, 0.0f};
    src[i] = TestElem<T>::FromFloat(specials[(i / 5) % 3]);
  }
  using synetk::detail::PoolPath;
  using synetk::detail::PoolRowKind;
  const auto runs = RunServingPlans<T, kMax, synetk::Nhwc>(src, g, true);
  const std::vector<T>*global = nullptr, *flat = nullptr;
  for (const auto& [plan, out] : runs) {
    if (plan.path == PoolPath::kNhwcGlobal) global = &out;
    if (plan.path == PoolPath::kNhwcRows && plan.rows == PoolRowKind::kFlat && !plan.flatPairs) {
      flat = &out;
    }
  }
  REQUIRE(global != nullptr);
  REQUIRE(flat != nullptr);
  REQUIRE(std::memcmp(global->data(), flat->data(), flat->size() * sizeof(T)) == 0);
}

TEMPLATE_TEST_CASE("pooling: NHWC global pooling combines in the flat rows' order",
                   "[pooling][plan]", float, bfloat16_t) {
  SYNETK_FOR_EACH_TARGET([] {
    // Rows of whole vectors and not; 7 rows and columns (two chains for
    // max) and 9 (one); an overlapped last vector of channels.
    for (const PoolGeom& g : {Geom2D(130, 7, 7, 7, 7, 1, 1, 0, 0, false, false),
                              Geom2D(67, 3, 5, 3, 5, 1, 1, 0, 0, false, false),
                              Geom2D(64, 9, 9, 9, 9, 1, 1, 0, 0, false, false),
                              Geom2D(48, 2, 9, 2, 9, 1, 1, 0, 0, false, false)}) {
      CheckNhwcGlobalOrder<TestType, true>(g);
      CheckNhwcGlobalOrder<TestType, false>(g);
    }
  });
}

TEST_CASE("pooling compatibility entry points match the functors", "[pooling][simd]") {
  using namespace synetk::simd;
  const PoolGeom g = Geom2D(5, 9, 11, 3, 3, 2, 2, 1, 1, true, true);
  const auto f = PoolRandom<float>(g.SrcSize());
  const auto b = PoolRandom<bfloat16_t>(g.SrcSize());
  const auto u = PoolRandom<uint8_t>(g.SrcSize());
  for (const auto format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
    const bool nhwc = format == SimdTensorFormatNhwc;
    auto pick = [&](auto fn) {
      if (nhwc) fn(synetk::Nhwc());
      else fn(synetk::Nchw());
    };
    std::vector<float> f0(g.DstSize()), f1(g.DstSize());
    for (const SimdBool ex : {SimdFalse, SimdTrue}) {
      pick([&](auto F) {
        synetk::PoolingAverage<float, decltype(F)>()(f.data(), 5, 9, 11, 3, 3, 2, 2, 1, 1, f0.data(),
                                                     g.dstH, g.dstW, ex == SimdTrue);
      });
      SimdSynetPoolingAverage(f.data(), 5, 9, 11, 3, 3, 2, 2, 1, 1, f1.data(), g.dstH, g.dstW, ex,
                              format);
      REQUIRE(f0 == f1);
    }
    pick([&](auto F) {
      synetk::PoolingMax<float, decltype(F)>()(f.data(), 5, 9, 11, 3, 3, 2, 2, 1, 1, f0.data(),
                                               g.dstH, g.dstW);
    });
    SimdSynetPoolingMax32f(f.data(), 5, 9, 11, 1, 3, 3, 1, 2, 2, 0, 1, 1, f1.data(), 5, g.dstH,
                           g.dstW, format);
    REQUIRE(f0 == f1);
    // 3D through the compat entry point against the reference.
    std::vector<float> f3(2 * g.dstH * g.dstW);
    SimdSynetPoolingMax32f(nhwc ? Transpose(f, 5, 99).data() : f.data(), 5, 9, 11, 3, 3, 3, 2, 2,
                           2, 1, 1, 1, f3.data(), 2, g.dstH, g.dstW, format);
    PoolGeom g3 = g;
    g3.kC = 3;
    g3.sC = 2;
    g3.pC = 1;
    g3.dstC = 2;
    auto ref3 = synetk_ref::PoolMax(f, g3, false);
    REQUIRE(f3 == (nhwc ? Transpose(ref3, 2, g.dstH * g.dstW) : ref3));

    std::vector<bfloat16_t> b0(g.DstSize());
    std::vector<uint16_t> b1(g.DstSize());
    pick([&](auto F) {
      synetk::PoolingMax<bfloat16_t, decltype(F)>()(b.data(), 5, 9, 11, 3, 3, 2, 2, 1, 1, b0.data(),
                                                    g.dstH, g.dstW);
    });
    std::vector<uint16_t> bits(b.size());
    std::memcpy(bits.data(), b.data(), bits.size() * 2);
    SimdSynetPoolingMax16b(bits.data(), 5, 9, 11, 3, 3, 2, 2, 1, 1, b1.data(), g.dstH, g.dstW,
                           format);
    REQUIRE(std::memcmp(b0.data(), b1.data(), b1.size() * 2) == 0);

    std::vector<uint8_t> u0(g.DstSize()), u1(g.DstSize());
    pick([&](auto F) {
      synetk::PoolingMax<uint8_t, decltype(F)>()(u.data(), 5, 9, 11, 3, 3, 2, 2, 1, 1, u0.data(),
                                                 g.dstH, g.dstW);
    });
    SimdSynetPoolingMax8u(u.data(), 5, 9, 11, 3, 3, 2, 2, 1, 1, u1.data(), g.dstH, g.dstW, format);
    REQUIRE(u0 == u1);
  }
}

// Every bad-input class: the call throws synetk::Error naming the parameter
// and leaves dst as it was.
TEST_CASE("pooling rejects bad input", "[pooling][errors]") {
  using synetk::Nchw;
  using synetk::Nhwc;
  std::vector<float> src(4 * 8 * 8, 1.0f), dst(4 * 8 * 8, 7.0f);
  const float* s = src.data();
  float* d = dst.data();
  auto expectError = [&](auto&& call, const std::string& needle) {
    std::fill(dst.begin(), dst.end(), 7.0f);
    CheckThrowsNaming(call, needle);
    CHECK(std::all_of(dst.begin(), dst.end(), [](float v) { return v == 7.0f; }));
  };
  synetk::PoolingMax<float, Nchw> mx;
  synetk::PoolingMax<float, Nhwc> mxh;
  synetk::PoolingAverage<float, Nchw> av;
  // Valid call: 4x8x8, 3x3 s2 p1 -> 4x4x4.
  REQUIRE_NOTHROW(mx(s, 4, 8, 8, 3, 3, 2, 2, 1, 1, d, 4, 4));
  expectError([&] { mx(nullptr, 4, 8, 8, 3, 3, 2, 2, 1, 1, d, 4, 4); }, "PoolingMax: src = null");
  expectError([&] { mx(s, 4, 8, 8, 3, 3, 2, 2, 1, 1, nullptr, 4, 4); }, "PoolingMax: dst = null");
  expectError([&] { av(s, 4, 8, 8, 3, 3, 2, 2, 1, 1, nullptr, 4, 4, true); }, "PoolingAverage: dst = null");
  expectError([&] { mx(s, 0, 8, 8, 3, 3, 2, 2, 1, 1, d, 4, 4); }, "srcC = 0");
  expectError([&] { mx(s, 4, 0, 8, 3, 3, 2, 2, 1, 1, d, 4, 4); }, "srcH = 0");
  expectError([&] { mx(s, 4, 8, 0, 3, 3, 2, 2, 1, 1, d, 4, 4); }, "srcW = 0");
  expectError([&] { mx(s, 4, 8, 8, 3, 3, 2, 2, 1, 1, d, 0, 4); }, "dstH = 0");
  expectError([&] { mx(s, 4, 8, 8, 3, 3, 2, 2, 1, 1, d, 4, 0); }, "dstW = 0");
  expectError([&] { mx(s, 4, 8, 8, 3, 3, 2, 2, 1, 1, d, 4, 4, synetk::Range{3, 2}); },
              "PoolingMax: part.begin = 3");
  expectError([&] { mxh(s, 4, 8, 8, 3, 3, 2, 2, 1, 1, d, 4, 4, synetk::Range{5, 9}); },
              "PoolingMax: part.begin = 5");
  expectError([&] { mx(s, 4, 8, 8, 0, 3, 2, 2, 0, 1, d, 4, 4); }, "kernelY = 0");
  expectError([&] { mx(s, 4, 8, 8, 3, 0, 2, 2, 1, 0, d, 4, 4); }, "kernelX = 0");
  expectError([&] { av(s, 4, 8, 8, 3, 3, 0, 2, 1, 1, d, 4, 4, false); }, "strideY = 0");
  expectError([&] { av(s, 4, 8, 8, 3, 3, 2, 0, 1, 1, d, 4, 4, false); }, "strideX = 0");
  expectError([&] { mx(s, 4, 8, 8, 3, 3, 2, 2, 3, 1, d, 4, 4); }, "padY = 3");
  expectError([&] { mx(s, 4, 8, 8, 3, 2, 2, 2, 1, 2, d, 4, 4); }, "padX = 2");
  // A window wholly past the input: (5-1)*2 - 1 = 7 < 8 is fine, 5 rows with
  // pad 0 is not: (5-1)*2 = 8 >= 8.
  REQUIRE_NOTHROW(mx(s, 4, 8, 8, 3, 3, 2, 2, 1, 1, d, 5, 5));
  expectError([&] { mx(s, 4, 8, 8, 3, 3, 2, 2, 0, 0, d, 5, 4); }, "dstH = 5");
  expectError([&] { av(s, 4, 8, 8, 3, 3, 2, 2, 0, 0, d, 4, 5, true); }, "dstW = 5");
  expectError([&] { mx(s, 4, 8, 8, 3, 3, 2, 2, 1, 1, d, SIZE_MAX, 4); }, "dstH");
  expectError([&] { mx(s, SIZE_MAX / 4, 8, 8, 3, 3, 2, 2, 1, 1, d, 4, 4); }, "srcC*srcH*srcW");
  expectError([&] { mx(d, 4, 8, 8, 3, 3, 2, 2, 1, 1, d + 100, 4, 4); }, "PoolingMax: dst =");  // overlaps src
  // 3D: 2D mode needs dstC == srcC; channel axis checked like the others.
  expectError([&] { mx(s, 4, 8, 8, 1, 3, 3, 1, 2, 2, 0, 1, 1, d, 3, 4, 4); }, "dstC = 3");
  expectError([&] { mxh(s, 4, 8, 8, 1, 3, 3, 1, 2, 2, 0, 1, 1, d, 5, 4, 4); }, "dstC = 5");
  expectError([&] { mx(s, 4, 8, 8, 0, 3, 3, 1, 2, 2, 0, 1, 1, d, 4, 4, 4); }, "kernelC = 0");
  expectError([&] { mx(s, 4, 8, 8, 2, 3, 3, 0, 2, 2, 0, 1, 1, d, 4, 4, 4); }, "strideC = 0");
  expectError([&] { mx(s, 4, 8, 8, 2, 3, 3, 1, 2, 2, 2, 1, 1, d, 4, 4, 4); }, "padC = 2");
  expectError([&] { mx(s, 4, 8, 8, 2, 3, 3, 2, 2, 2, 0, 1, 1, d, 3, 4, 4); }, "dstC = 3");
  using namespace synetk::simd;
  expectError([&] { SimdSynetPoolingMax32f(s, 4, 8, 8, 1, 3, 3, 1, 2, 2, 0, 1, 1, d, 4, 4, 4, SimdTensorFormatType(5)); },
              "SimdSynetPoolingMax32f: format = 5");
  expectError([&] { SimdSynetPoolingAverage(s, 4, 8, 8, 3, 3, 2, 2, 1, 1, d, 9, 4, SimdTrue, SimdTensorFormatNhwc); },
              "dstH = 9");
  std::vector<uint8_t> u(256, 1), ud(256, 9);
  try {
    SimdSynetPoolingMax8u(u.data(), 4, 8, 8, 3, 3, 2, 2, 3, 1, ud.data(), 4, 4, SimdTensorFormatNchw);
    FAIL("no error");
  } catch (const synetk::Error& e) {
    CHECK(std::string(e.what()).find("padY = 3") != std::string::npos);
  }
  CHECK(std::all_of(ud.begin(), ud.end(), [](uint8_t v) { return v == 9; }));
}

// bf16 averages of equal values: every partial sum n*v is exact (8-bit
// significands), so the average is v itself, denormal or not. Windows on
// channels of denormals next to normal channels reach the AVX512_BF16
// conversion's fallback (it takes denormals as zero) in every store path:
// NHWC 3-channel pick rows and stem rows and 2x2 pairs of channel pairs,
// NCHW half-width rows, 2x2 pairs, 5x5 stride 1, global; with the
// instruction allowed and not.
TEST_CASE("pooling bf16 averages keep denormal values", "[pooling]") {
  const uint16_t values[] = {0x0001, 0x807F, 0x0080, 0x3F81, 0x0055, 0xC2AB, 0x0040,
                             0x1234, 0x8003, 0x4110, 0x007F, 0xBE01, 0x0002};
  const size_t kValues = sizeof(values) / sizeof(values[0]);
  ForBF16ConvertOnAndOff([&](bool) {
    SYNETK_FOR_EACH_TARGET([&] {
      const PoolGeom geoms[] = {Geom2D(3, 9, 40, 3, 3, 2, 2, 1, 1, false, false),
                                Geom2D(5, 7, 70, 3, 3, 2, 2, 1, 1, false, false),
                                Geom2D(13, 6, 36, 2, 2, 2, 2, 0, 0, false, false),
                                Geom2D(4, 9, 37, 5, 5, 1, 1, 2, 2, false, false),
                                Geom2D(13, 7, 7, 7, 7, 1, 1, 0, 0, false, false),
                                Geom2D(64, 5, 12, 3, 3, 2, 2, 1, 1, false, false),
                                Geom2D(64, 4, 6, 2, 2, 2, 2, 0, 0, false, false)};
      for (const PoolGeom& g : geoms) {
        INFO(Describe(g));
        const size_t plane = g.srcH * g.srcW;
        std::vector<bfloat16_t> src(g.srcC * plane);
        for (size_t i = 0; i < src.size(); ++i) {
          std::memcpy(&src[i], &values[(i / plane) % kValues], 2);
        }
        const size_t dstPlane = g.dstH * g.dstW;
        for (const auto& got : RunEachFormat<bfloat16_t, false>(src, g, true, false)) {
          for (size_t i = 0; i < got.size(); ++i) {
            uint16_t bits;
            std::memcpy(&bits, &got[i], 2);
            INFO("output " << i);
            REQUIRE(bits == values[(i / dstPlane) % kValues]);
          }
        }
      }
    });
  });
}

// Software prefetching (Intel CPUs only, detail::softwarePrefetch) forced on
// and off, so that every machine runs the rows that prefetch: the stacked
// NCHW rows and the half-width rows read from src.
TEST_CASE("pooling with software prefetching on and off", "[pooling]") {
  struct Restore {
    ~Restore() { synetk::detail::SetSoftwarePrefetchForTest(synetk::detail::CpuidSaysIntel()); }
  } restore;
  for (const bool prefetch : {true, false}) {
    synetk::detail::SetSoftwarePrefetchForTest(prefetch);
    INFO("prefetch " << prefetch);
    SYNETK_FOR_EACH_TARGET([] {
      for (const PoolGeom& g : {Geom2D(3, 12, 40, 3, 3, 2, 2, 1, 1, false, false),
                                Geom2D(2, 11, 37, 5, 5, 1, 1, 2, 2, false, false),
                                Geom2D(2, 10, 64, 2, 2, 2, 2, 0, 0, false, false)}) {
        CheckMax<float>(g, false, PoolRandom<float>(g.SrcSize()));
        CheckMax<uint8_t>(g, false, PoolRandom<uint8_t>(g.SrcSize()));
        CheckAverage<bfloat16_t>(g, true, PoolRandom<bfloat16_t>(g.SrcSize()));
        CheckAverage<float>(g, false, PoolRandom<float>(g.SrcSize()));
      }
    });
  }
}

}  // namespace
