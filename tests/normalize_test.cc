// Copyright synetk authors. SPDX-License-Identifier: MIT
// Normalize layers V1 (both acrossSpatial modes), V2, V3, V4 against the
// scalar reference, on every SIMD target, both formats, f32/bf16/f16, batch
// > 1, guard zones and unaligned buffers.
// The kernels are compiled in tests/kernels/ (compile-once mode).
#include "synetk/declarations.h"
#include "synetk/simd.h"

#include "harness.h"
#include "reference/normalize_ref.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <tuple>
#include <type_traits>

namespace {

using namespace synetk_test;
using hwy::bfloat16_t;
using hwy::float16_t;

// Version 1 with acrossSpatial false, 1 with true (written 5 here), 2, 3, 4.
const int kVersions[] = {1, 5, 2, 3, 4};

template <typename T>
struct Case {
  int version;  // 1..4, or 5 for V1 acrossSpatial
  size_t B, C, S;
  std::vector<T> src;
  std::vector<float> scale, shift;
  float eps;
  size_t Size() const { return B * C * S; }
};

template <typename T>
Case<T> MakeCase(int version, size_t B, size_t C, size_t S, float eps = 1e-3f) {
  Case<T> k{version, B, C, S, RandomElems<T>(B * C * S), RandomFloats(C), RandomFloats(C), eps};
  return k;
}

template <typename T>
std::vector<float> ToFloats(const std::vector<T>& v) {
  std::vector<float> f(v.size());
  for (size_t i = 0; i < v.size(); ++i) f[i] = TestElem<T>::ToFloat(v[i]);
  return f;
}

template <typename T, class F>
size_t ScratchOf(const Case<T>& k) {
  switch (k.version) {
    case 1:
    case 5: return synetk::NormalizeV1<T, F>::ScratchSize(k.B, k.C, k.S);
    case 2: return synetk::NormalizeV2<T, F>::ScratchSize(k.B, k.C, k.S);
    case 3: return synetk::NormalizeV3<T, F>::ScratchSize(k.B, k.C, k.S);
    default: return synetk::NormalizeV4<T, F>::ScratchSize(k.B, k.C, k.S);
  }
}

template <typename T, class F>
void RunLibrary(const Case<T>& k, const T* src, float* ws, size_t wsSize, T* dst,
                synetk::Range part = synetk::Range::All()) {
  const float *sc = k.scale.data(), *sh = k.shift.data();
  switch (k.version) {
    case 1:
    case 5:
      synetk::NormalizeV1<T, F>()(src, k.B, k.C, k.S, sc, &k.eps, k.version == 5, ws, wsSize, dst,
                                  part);
      break;
    case 2: synetk::NormalizeV2<T, F>()(src, k.B, k.C, k.S, sc, sh, &k.eps, ws, wsSize, dst, part); break;
    case 3: synetk::NormalizeV3<T, F>()(src, k.B, k.C, k.S, sc, sh, &k.eps, ws, wsSize, dst, part); break;
    case 4: synetk::NormalizeV4<T, F>()(src, k.B, k.C, k.S, sc, sh, &k.eps, ws, wsSize, dst, part); break;
    default: FAIL("no normalize version " << k.version);
  }
}

template <typename T>
synetk_ref::NormOut Reference(const Case<T>& k, bool nhwc) {
  const auto x = ToFloats(k.src);
  const float *sc = k.scale.data(), *sh = k.shift.data();
  switch (k.version) {
    case 1:
    case 5: return synetk_ref::NormalizeV1(x, k.B, k.C, k.S, sc, k.eps, k.version == 5, nhwc);
    case 2:
    case 3: return synetk_ref::NormalizeV23(k.version, x, k.B, k.C, k.S, sc, sh, k.eps, nhwc);
    default: return synetk_ref::NormalizeV4(x, k.B, k.C, k.S, sc, sh, k.eps, nhwc);
  }
}

// Tolerance against the double reference: 2e-5 of the element's term
// magnitude (the kernels reduce in blocked fp32 with double or Kahan totals,
// so the sums keep a few fp32 ulps whatever their length; divisions, square
// roots and the final multiply-add add a few more), plus one ulp of T for
// the output rounding (bf16: 2^-7, f16: 2^-10 relative; f16 subnormals:
// 2^-24 absolute), plus 1e-30.
constexpr double kRelTol = 2e-5;

template <typename T>
double Tol(const synetk_ref::NormOut& ref, size_t i) {
  const double subnormalUlp = std::is_same_v<T, float16_t> ? std::ldexp(1.0, -24) : 0.0;
  return kRelTol * ref.mag[i] + TestElem<T>::kUlp * std::fabs(ref.val[i]) + subnormalUlp + 1e-30;
}

template <typename T>
void CheckAgainstReference(const std::vector<T>& got, const synetk_ref::NormOut& ref,
                           const char* what) {
  REQUIRE(got.size() == ref.val.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = TestElem<T>::ToFloat(got[i]);
    const double r = ref.val[i];
    if (!(std::fabs(g - r) <= Tol<T>(ref, i))) {
      FAIL(what << ": element " << i << " got " << g << " expected " << r << " (tol "
                << Tol<T>(ref, i) << ")");
    }
  }
}

// B x C x S tensor, NCHW <-> NHWC per batch item.
template <typename T>
std::vector<T> Transpose(const std::vector<T>& v, size_t B, size_t C, size_t S, bool toNhwc) {
  std::vector<T> out(v.size());
  for (size_t b = 0; b < B; ++b)
    for (size_t c = 0; c < C; ++c)
      for (size_t s = 0; s < S; ++s) {
        const size_t nchw = (b * C + c) * S + s, nhwc = (b * S + s) * C + c;
        if (toNhwc) out[nhwc] = v[nchw];
        else out[nchw] = v[nhwc];
      }
  return out;
}

template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// One format: guarded, misaligned buffers and workspace of exactly
// ScratchSize floats; checks guards, inputs and the reference.
template <typename T, class F>
std::vector<T> RunAndCheck(const Case<T>& k, const synetk_ref::NormOut& ref) {
  Guarded<T> src(k.Size()), dst(k.Size());
  src.Fill(k.src);
  const size_t need = ScratchOf<T, F>(k);
  Guarded<float> ws(need);
  RunLibrary<T, F>(k, src.data(), need ? ws.data() : nullptr, need, dst.data());
  REQUIRE(dst.GuardsIntact());
  REQUIRE(ws.GuardsIntact());
  REQUIRE(SameBits(src.ToVector(), k.src));
  CheckAgainstReference(dst.ToVector(), ref, F::kName);
  return dst.ToVector();
}

// Case given in NCHW; NHWC runs the transposed input and must give the
// transposed output within the tolerance (the reduction order differs).
template <typename T>
void CheckCase(const Case<T>& k) {
  INFO("version " << (k.version == 5 ? "1 acrossSpatial" : std::to_string(k.version)) << " "
                  << TestElem<T>::kName << " B=" << k.B << " C=" << k.C << " S=" << k.S);
  const auto refNchw = Reference(k, false);
  const auto nchw = RunAndCheck<T, synetk::Nchw>(k, refNchw);
  Case<T> t = k;
  t.src = Transpose(k.src, k.B, k.C, k.S, true);
  const auto refNhwc = Reference(t, true);
  const auto nhwc = RunAndCheck<T, synetk::Nhwc>(t, refNhwc);
  const auto back = Transpose(nhwc, k.B, k.C, k.S, false);
  for (size_t i = 0; i < back.size(); ++i) {
    const double a = TestElem<T>::ToFloat(back[i]), b = TestElem<T>::ToFloat(nchw[i]);
    if (!(std::fabs(a - b) <= 2 * Tol<T>(refNchw, i))) {
      FAIL("NHWC differs from transposed NCHW at " << i << ": " << a << " vs " << b);
    }
  }
}

TEMPLATE_TEST_CASE("normalize layers match the reference on every target", "[normalize]", float,
                   bfloat16_t, float16_t) {
  SYNETK_FOR_EACH_TARGET([] {
    for (int v : kVersions) {
      for (size_t C : EdgeSizes())
        for (size_t S : {1, 3, 16, 17, 33, 49}) CheckCase(MakeCase<TestType>(v, 2, C, S));
      for (size_t S : EdgeSizes()) CheckCase(MakeCase<TestType>(v, 3, 5, S));
      CheckCase(MakeCase<TestType>(v, 2, 64, 56 * 3));  // realistic
      CheckCase(MakeCase<TestType>(v, 1, 256, 7 * 7));
      CheckCase(MakeCase<TestType>(v, 2, 24, 75, 0.0f));
      CheckCase(MakeCase<TestType>(v, 1, 3, 700));  // several NCHW blocks
    }
  });
}

// Long reductions: a 256 x 112 x 112 tensor (3.2 million squares) for V1
// acrossSpatial, and 12544-long columns for V3/V4 in NHWC, stay within the
// same tolerance as short ones.
TEST_CASE("normalize keeps long reductions accurate", "[normalize][long]") {
  auto big = MakeCase<float>(5, 1, 256, 112 * 112);
  for (auto& x : big.src) x = std::fabs(x) + 1.0f;  // all terms of one sign
  const auto refBig = Reference(big, false);
  const auto refBigNhwc = Reference(big, true);  // same buffer read as NHWC
  auto tall3 = MakeCase<float>(3, 1, 8, 112 * 112);
  for (auto& x : tall3.src) x += 100.0f;  // a large mean
  auto tall4 = tall3;
  tall4.version = 4;
  SYNETK_FOR_EACH_TARGET([&] {
    std::vector<float> dst(big.Size());
    RunLibrary<float, synetk::Nchw>(big, big.src.data(), nullptr, 0, dst.data());
    CheckAgainstReference(dst, refBig, "V1 across NCHW");
    RunLibrary<float, synetk::Nhwc>(big, big.src.data(), nullptr, 0, dst.data());
    CheckAgainstReference(dst, refBigNhwc, "V1 across NHWC");
    for (const auto* k : {&tall3, &tall4}) {
      auto t = *k;
      t.src = Transpose(k->src, 1, k->C, k->S, true);
      const auto ref = Reference(t, true);
      std::vector<float> ws(ScratchOf<float, synetk::Nhwc>(t)), out(t.Size());
      RunLibrary<float, synetk::Nhwc>(t, t.src.data(), ws.data(), ws.size(), out.data());
      CheckAgainstReference(out, ref, "NHWC columns");
      CheckCase(*k);
    }
    // NCHW V1/V2 in several position blocks (200 channels x 1100 > 512 KB),
    // with an outlier as the pivot of the first channel group.
    for (int v : kVersions) {
      auto k = MakeCase<float>(v, 2, 200, 1100);
      for (size_t s = 0; s < k.S; s += 7) k.src[s] = 60.0f;
      CheckCase(k);
      // Short NHWC rows (one-pass moments) whose pivot, channel 0, is an
      // outlier in every pixel.
      auto r = MakeCase<float>(v, 2, 48, 50);
      for (size_t b = 0; b < r.B; ++b)
        for (size_t s = 0; s < r.S; ++s) r.src[(b * r.C) * r.S + s] = 60.0f;
      CheckCase(r);
    }
  });
}

// All-zero input, every version, both formats: the outputs of a zero
// normalized value, 0 (V1) or shift[c] (V2-V4), with eps and every scale[c]
// as given (a scale of 0 keeps MakeCase's scales).
void CheckAllZeroInput(float eps, float scale) {
  for (int v : kVersions) {
    auto k = MakeCase<float>(v, 2, 19, 21, eps);
    std::fill(k.src.begin(), k.src.end(), 0.0f);
    if (scale != 0.0f) std::fill(k.scale.begin(), k.scale.end(), scale);
    for (const bool nhwc : {false, true}) {
      std::vector<float> dst(k.Size(), 7.0f), ws(4 * k.C);
      if (nhwc) RunLibrary<float, synetk::Nhwc>(k, k.src.data(), ws.data(), ws.size(), dst.data());
      else RunLibrary<float, synetk::Nchw>(k, k.src.data(), ws.data(), ws.size(), dst.data());
      for (size_t i = 0; i < dst.size(); ++i) {
        const size_t c = nhwc ? i % k.C : (i / k.S) % k.C;
        const float expect = (v == 1 || v == 5) ? 0.0f : k.shift[c];
        INFO("version " << v << " nhwc " << nhwc << " element " << i);
        REQUIRE(dst[i] == expect);
      }
    }
  }
}

// eps = 0: no NaN; the normalizing factor is 0.
TEST_CASE("normalize of all-zero input with eps 0 is defined", "[normalize]") {
  SYNETK_FOR_EACH_TARGET([] { CheckAllZeroInput(0.0f, 0.0f); });
}

// The smallest denormal eps and a scale of 2^65: the normalizing factor
// (2.7e22) times the scale overflows fp32, but the normalized values are 0
// (where factor * scale overflows, the kernels scale (x - mean) * factor
// first).
TEST_CASE("normalize of all-zero input with a huge factor and scale is defined", "[normalize]") {
  SYNETK_FOR_EACH_TARGET([] { CheckAllZeroInput(std::numeric_limits<float>::denorm_min(), 0x1p65f); });
}

// scale[1] = inf (V1, V2, V3): x * scale / sqrt(...) (V2, V3: x - mean for
// x, plus shift) is +-inf for every x of channel 1 that is not its mean,
// also where x / sqrt(...) alone underflows fp32 to 0 (0 * inf would be
// NaN): channel 1 of batch item 1 at position 2 holds a denormal among
// values of thousands that cancel in every reduction (the other channels at
// that position; channel 1's other positions), so that its mean is tiny too.
// The other channels stay finite.
template <class F>
void CheckInfiniteScale(int version, size_t C) {
  auto k = MakeCase<float>(version, 2, C, 5);
  const bool nhwc = std::is_same_v<F, synetk::Nhwc>;
  for (size_t b = 0; b < k.B; ++b) {
    for (size_t c = 0; c < C; ++c) {
      for (size_t s = 0; s < k.S; ++s) {
        const size_t rank = c == 0 ? 0 : c - 1;  // among the channels but 1
        float v = rank % 2 ? -5000.0f : 5000.0f;
        if (c == 1) v = s == 2 ? (b == 1 ? -0x1.39p-141f : 1000.0f) : s % 2 ? -6310.0f : 6310.0f;
        k.src[nhwc ? (b * k.S + s) * C + c : (b * C + c) * k.S + s] = v;
      }
    }
  }
  k.scale[1] = std::numeric_limits<float>::infinity();
  std::vector<float> ws(std::max<size_t>(ScratchOf<float, F>(k), 1)), dst(k.Size(), 7.0f);
  RunLibrary<float, F>(k, k.src.data(), ws.data(), ws.size(), dst.data());
  for (size_t i = 0; i < dst.size(); ++i) {
    const size_t c = nhwc ? i % C : (i / k.S) % C;
    INFO("version " << version << " nhwc " << nhwc << " C " << C << " element " << i << " got "
                    << dst[i]);
    if (c == 1) {
      REQUIRE(std::isinf(dst[i]));
      REQUIRE(std::signbit(dst[i]) == std::signbit(k.src[i]));
    } else {
      REQUIRE(std::isfinite(dst[i]));
    }
  }
}

TEST_CASE("normalize with an infinite scale gives infinities", "[normalize]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (int v : {1, 5, 2, 3}) {
      for (size_t C : {size_t{3}, size_t{37}}) {
        CheckInfiniteScale<synetk::Nchw>(v, C);
        CheckInfiniteScale<synetk::Nhwc>(v, C);
      }
    }
  });
}

// A NaN beside a position whose factor times the scale overflows (V1 and V2,
// one factor per position). Position 1 holds +-1e-30, whose squares
// underflow fp32 to 0: with eps the smallest denormal its factor is 2.7e22,
// and times a scale of 2^65 that passes FLT_MAX, while x * factor * scale is
// about 1e12. NaNs at positions 5, 9 and 17 (position 1's lane in vectors of
// 4, 8 and 16, followed by finite factors in that lane) must not hide that
// factor from the kernels' test for the plain product (on x86, Max of the
// running maximum and a NaN gives the NaN, and the next Max drops it).
template <class F>
void CheckNaNBesideHugeFactor(int version) {
  constexpr size_t C = 19, S = 40;
  auto k = MakeCase<float>(version, 1, C, S, std::numeric_limits<float>::denorm_min());
  std::fill(k.scale.begin(), k.scale.end(), 0x1p65f);
  const bool nhwc = std::is_same_v<F, synetk::Nhwc>;
  const auto at = [&](size_t c, size_t s) { return nhwc ? s * C + c : c * S + s; };
  for (size_t c = 0; c < C; ++c) k.src[at(c, 1)] = c % 2 ? -1e-30f : 1e-30f;
  for (size_t s : {5, 9, 17}) k.src[at(3, s)] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> ws(std::max<size_t>(ScratchOf<float, F>(k), 1)), dst(k.Size(), 7.0f);
  RunLibrary<float, F>(k, k.src.data(), ws.data(), ws.size(), dst.data());
  // Position 1 by the specification, in double.
  double mean = 0.0, var = 0.0, squares = 0.0;
  for (size_t c = 0; c < C; ++c) mean += k.src[at(c, 1)];
  mean /= C;
  for (size_t c = 0; c < C; ++c) {
    const double x = k.src[at(c, 1)];
    var += (x - mean) * (x - mean);
    squares += x * x;
  }
  var /= C;
  for (size_t c = 0; c < C; ++c) {
    const double x = k.src[at(c, 1)];
    const double want = version == 1 ? x * k.scale[c] / std::sqrt(squares + k.eps)
                                     : (x - mean) * k.scale[c] / std::sqrt(var + k.eps) + k.shift[c];
    INFO("version " << version << " nhwc " << nhwc << " channel " << c << " got "
                    << dst[at(c, 1)] << " want " << want);
    REQUIRE(std::fabs(want) > 1e11);
    REQUIRE(std::fabs(dst[at(c, 1)] - want) <= 1e-5 * std::fabs(want));
    for (size_t s : {5, 9, 17}) REQUIRE(std::isnan(dst[at(c, s)]));
  }
}

TEST_CASE("normalize sees a huge factor beside NaN positions", "[normalize]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (int v : {1, 2}) {
      CheckNaNBesideHugeFactor<synetk::Nchw>(v);
      CheckNaNBesideHugeFactor<synetk::Nhwc>(v);
    }
  });
}

TEST_CASE("normalize runs in place", "[normalize]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (int v : kVersions) {
      auto k = MakeCase<bfloat16_t>(v, 2, 21, 37);
      for (const bool nhwc : {false, true}) {
        std::vector<float> ws(4 * k.C);
        std::vector<bfloat16_t> out(k.Size()), inplace = k.src;
        if (nhwc) {
          RunLibrary<bfloat16_t, synetk::Nhwc>(k, k.src.data(), ws.data(), ws.size(), out.data());
          RunLibrary<bfloat16_t, synetk::Nhwc>(k, inplace.data(), ws.data(), ws.size(), inplace.data());
        } else {
          RunLibrary<bfloat16_t, synetk::Nchw>(k, k.src.data(), ws.data(), ws.size(), out.data());
          RunLibrary<bfloat16_t, synetk::Nchw>(k, inplace.data(), ws.data(), ws.size(), inplace.data());
        }
        REQUIRE(SameBits(inplace, out));
      }
    }
  });
}

// Parts: positions (V1, V2), channels (V3), batch items (V1 acrossSpatial,
// V4). Each part writes exactly its outputs, bit-identical to one call.
template <class F>
void CheckNormalizeParts(int version, size_t B, size_t C, size_t S) {
  constexpr bool nhwc = std::is_same_v<F, synetk::Nhwc>;
  INFO("parts version " << version << " B=" << B << " C=" << C << " S=" << S << " " << F::kName);
  const auto k = MakeCase<float>(version, B, C, S);
  const bool byItem = version == 4 || version == 5;
  const size_t axis = byItem ? B : version == 3 ? C : S;
  // Does element (b, c, s) belong to part [p0, p1)?
  auto inPart = [&](size_t i, size_t p0, size_t p1) {
    const size_t b = i / (C * S), r = i % (C * S);
    const size_t c = nhwc ? r % C : r / S, s = nhwc ? r / C : r % S;
    const size_t x = byItem ? b : version == 3 ? c : s;
    return x >= p0 && x < p1;
  };
  std::vector<float> ws(4 * C + 64);
  const std::vector<float> sentinel(k.Size(), 7.0f);
  std::vector<float> whole = sentinel;
  RunLibrary<float, F>(k, k.src.data(), ws.data(), ws.size(), whole.data());
  for (size_t p0 = 0; p0 < axis; p0 += 1 + p0 / 2) {
    const size_t p1 = std::min(axis, p0 + 1 + p0 / 3);
    std::vector<float> part = sentinel;
    RunLibrary<float, F>(k, k.src.data(), ws.data(), ws.size(), part.data(), synetk::Range{p0, p1});
    for (size_t i = 0; i < part.size(); ++i) {
      const float want = inPart(i, p0, p1) ? whole[i] : sentinel[i];
      if (std::memcmp(&part[i], &want, sizeof(float)) != 0) {
        FAIL("part [" << p0 << ", " << p1 << "): element " << i << " is " << part[i] << ", want " << want);
      }
    }
  }
}

// NHWC V1/V2 calls of kNormAheadBytes (128 KiB) or more take the next pixel
// group's statistics while they write the current group: many groups of short
// rows (one-pass moments), of medium rows, and of rows over 2048 channels (one
// pixel a group); in place, and in parts of which some reach that size.
TEST_CASE("normalize NHWC reads the next pixel group ahead", "[normalize]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (int v : {1, 2}) {
      for (auto [C, S] : {std::pair<size_t, size_t>{48, 1000}, {200, 400}, {2500, 20}}) {
        INFO("version " << v << " C=" << C << " S=" << S);
        auto k = MakeCase<float>(v, 2, C, S);
        CheckCase(k);
        std::vector<float> ws(4 * C), out(k.Size()), inplace = k.src;
        RunLibrary<float, synetk::Nhwc>(k, k.src.data(), ws.data(), ws.size(), out.data());
        RunLibrary<float, synetk::Nhwc>(k, inplace.data(), ws.data(), ws.size(), inplace.data());
        REQUIRE(SameBits(inplace, out));
        CheckNormalizeParts<synetk::Nhwc>(v, 1, C, S);
      }
    }
  });
}

TEST_CASE("normalize split into parts gives the whole call's output", "[normalize][parts]") {
  SYNETK_FOR_EACH_TARGET([] {
    for (int v : kVersions) {
      for (auto [B, C, S] : {std::tuple<size_t, size_t, size_t>{3, 5, 37}, {2, 40, 19}, {1, 300, 70}}) {
        CheckNormalizeParts<synetk::Nchw>(v, B, C, S);
        CheckNormalizeParts<synetk::Nhwc>(v, B, C, S);
      }
    }
  });
}

TEST_CASE("normalize scratch sizes", "[normalize]") {
  using synetk::Nchw;
  using synetk::Nhwc;
  CHECK(synetk::NormalizeV1<float, Nchw>::ScratchSize(2, 64, 100) == 0);
  CHECK(synetk::NormalizeV1<float, Nhwc>::ScratchSize(2, 64, 100) == 0);
  CHECK(synetk::NormalizeV2<float, Nchw>::ScratchSize(2, 64, 100) == 0);
  CHECK(synetk::NormalizeV2<float, Nhwc>::ScratchSize(2, 64, 100) == 0);
  CHECK(synetk::NormalizeV3<float, Nchw>::ScratchSize(2, 64, 100) == 0);
  CHECK(synetk::NormalizeV3<float, Nhwc>::ScratchSize(2, 64, 100) == 2 * 64);
  CHECK(synetk::NormalizeV4<float, Nchw>::ScratchSize(2, 64, 100) == 64);
  CHECK(synetk::NormalizeV4<float, Nhwc>::ScratchSize(2, 64, 100) == 2 * 64);
}

TEST_CASE("normalize compatibility entry points match the functors", "[normalize][simd]") {
  using namespace synetk::simd;
  const size_t B = 2, C = 13, S = 29;
  auto k = MakeCase<float>(2, B, C, S);
  const float *src = k.src.data(), *sc = k.scale.data(), *sh = k.shift.data(), *eps = &k.eps;
  std::vector<float> a(k.Size()), b(k.Size()), ws(4 * C), buf(std::max(C, S));
  for (const auto format : {SimdTensorFormatNchw, SimdTensorFormatNhwc}) {
    for (float* bp : {static_cast<float*>(nullptr), buf.data()}) {
      auto both = [&](auto functor, auto compat) {
        std::fill(a.begin(), a.end(), 0.0f);
        std::fill(b.begin(), b.end(), 1.0f);
        if (format == SimdTensorFormatNhwc) functor(synetk::Nhwc());
        else functor(synetk::Nchw());
        compat();
        REQUIRE(a == b);
      };
      for (const SimdBool across : {SimdFalse, SimdTrue}) {
        both([&](auto f) {
               synetk::NormalizeV1<float, decltype(f)>()(src, B, C, S, sc, eps, across == SimdTrue,
                                                         nullptr, 0, a.data());
             },
             [&] { SimdSynetNormalizeLayerForward(src, B, C, S, sc, eps, across, format, bp, b.data()); });
      }
      both([&](auto f) {
             synetk::NormalizeV2<float, decltype(f)>()(src, B, C, S, sc, sh, eps, ws.data(), ws.size(), a.data());
           },
           [&] { SimdSynetNormalizeLayerForwardV2(src, B, C, S, sc, sh, eps, format, bp, b.data()); });
      both([&](auto f) {
             synetk::NormalizeV3<float, decltype(f)>()(src, B, C, S, sc, sh, eps, ws.data(), ws.size(), a.data());
           },
           [&] { SimdSynetNormalizeLayerForwardV3(src, B, C, S, sc, sh, eps, format, bp, b.data()); });
      both([&](auto f) {
             synetk::NormalizeV4<float, decltype(f)>()(src, B, C, S, sc, sh, eps, ws.data(), ws.size(), a.data());
           },
           [&] { SimdSynetNormalizeLayerForwardV4(src, B, C, S, sc, sh, eps, format, bp, b.data()); });
    }
  }
}

// Every bad-input class: synetk::Error naming the parameter, dst untouched.
TEST_CASE("normalize layers reject bad input", "[normalize][errors]") {
  using synetk::Nchw;
  using synetk::Nhwc;
  const size_t B = 2, C = 4, S = 6, n = B * C * S;
  std::vector<float> src(4 * n, 1.0f), p(16, 1.0f), dst(4 * n, 7.0f), ws(64);
  const float* s = src.data();
  const float* q = p.data();
  float* d = dst.data();
  float* w = ws.data();
  const float eps = 1e-3f, negEps = -1e-3f, nanEps = std::numeric_limits<float>::quiet_NaN(),
              infEps = std::numeric_limits<float>::infinity();
  auto expectError = [&](auto&& call, const std::string& needle) {
    std::fill(dst.begin(), dst.end(), 7.0f);
    CheckThrowsNaming(call, needle);
    CHECK(std::all_of(dst.begin(), dst.end(), [](float v) { return v == 7.0f; }));
  };
  synetk::NormalizeV1<float, Nchw> v1;
  synetk::NormalizeV2<float, Nhwc> v2;
  synetk::NormalizeV3<float, Nhwc> v3;
  synetk::NormalizeV4<float, Nchw> v4;
  expectError([&] { v1(nullptr, B, C, S, q, &eps, false, nullptr, 0, d); }, "NormalizeV1: src = null");
  expectError([&] { v1(s, B, C, S, nullptr, &eps, false, nullptr, 0, d); }, "scale = null");
  expectError([&] { v1(s, B, C, S, q, nullptr, false, nullptr, 0, d); }, "eps = null");
  expectError([&] { v1(s, B, C, S, q, &negEps, true, nullptr, 0, d); }, "eps = -0.001");
  expectError([&] { v1(s, B, C, S, q, &nanEps, false, nullptr, 0, d); }, "eps = nan");
  expectError([&] { v1(s, B, C, S, q, &infEps, false, nullptr, 0, d); }, "eps = inf");
  expectError([&] { v1(s, B, C, S, q, &eps, false, nullptr, 0, nullptr); }, "dst = null");
  expectError([&] { v1(s, 0, C, S, q, &eps, false, nullptr, 0, d); }, "batch = 0");
  expectError([&] { v1(s, B, 0, S, q, &eps, false, nullptr, 0, d); }, "channels = 0");
  expectError([&] { v1(s, B, C, 0, q, &eps, false, nullptr, 0, d); }, "spatial = 0");
  expectError([&] { v1(s, B, C, S, q, &eps, false, nullptr, 0, d, synetk::Range{4, 3}); },
              "NormalizeV1: part.begin = 4");
  expectError([&] { v4(s, B, C, S, q, q, &eps, w, 64, d, synetk::Range{3, 9}); },
              "NormalizeV4: part.begin = 3");
  expectError([&] { v1(s, 2, SIZE_MAX / 2, 3, q, &eps, false, nullptr, 0, d); }, "batch*channels*spatial");
  expectError([&] { v1(s, 1, SIZE_MAX / 16, 3, q, &eps, false, nullptr, 0, d); }, "batch*channels*spatial");
  expectError([&] { v1(d + 1, B, C, S, q, &eps, false, nullptr, 0, d); }, "dst =");
  expectError([&] { v2(s, B, C, S, q, nullptr, &eps, nullptr, 0, d); }, "NormalizeV2: shift = null");
  expectError([&] { v2(s, B, C, S, q, q, &nanEps, nullptr, 0, d); }, "NormalizeV2: eps");
  expectError([&] { v3(s, B, C, S, q, q, &eps, nullptr, 0, d); }, "NormalizeV3: workspace = null");
  expectError([&] { v3(s, B, C, S, q, q, &eps, w, 2 * C - 1, d); }, "NormalizeV3: workspaceSize = 7");
  expectError([&] { v3(s, B, C, S, q, q, &eps, d + 2, 2 * C, d); }, "NormalizeV3: workspace =");
  expectError([&] { v4(s, B, C, S, q, q, &eps, w, C - 1, d); }, "NormalizeV4: workspaceSize = 3");
  expectError([&] { v4(s, B, C, S, q, q, &negEps, w, C, d); }, "NormalizeV4: eps");
  expectError([&] { v4(s, B, C, S, nullptr, q, &eps, w, C, d); }, "NormalizeV4: scale = null");
  expectError([&] { synetk::NormalizeV3<float, Nhwc>::ScratchSize(1, SIZE_MAX / 8, 1); }, "channels");
  using namespace synetk::simd;
  expectError([&] { SimdSynetNormalizeLayerForward(s, B, C, S, q, &eps, SimdFalse, SimdTensorFormatType(7), nullptr, d); },
              "format = 7");
  expectError([&] { SimdSynetNormalizeLayerForwardV2(s, B, C, S, q, q, nullptr, SimdTensorFormatNhwc, nullptr, d); },
              "eps = null");
  expectError([&] { SimdSynetNormalizeLayerForwardV3(s, B, C, 0, q, q, &eps, SimdTensorFormatNhwc, nullptr, d); },
              "spatial = 0");
  expectError([&] { SimdSynetNormalizeLayerForwardV4(s, B, C, S, q, q, &negEps, SimdTensorFormatNchw, nullptr, d); },
              "eps");
}

}  // namespace
