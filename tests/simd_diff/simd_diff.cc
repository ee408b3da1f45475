// Copyright synetk authors. SPDX-License-Identifier: MIT
// Differential test: every synetk::simd compat function against the Simd
// Library itself (a local build named by the Meson option simd_dir; see
// docs/peer-simd.md), on random valid inputs in both formats, small and odd
// shapes. Both libraries get the same positional arguments, in the order
// Simd's callers (the engine Synet) pass them.
//
// Equality: integer and bf16 outputs, and the float outputs of the fused
// layers, max pooling and dequantization, must be bit-identical. Normalize
// and average pooling sum in another order than Simd: their outputs may
// differ by kNormTol and kAverageTol units in the last place of the case's
// largest output (see Compare).
//
// Cases Simd computes wrongly are skipped where they are listed in
// ../shared/PEERS.md ("Simd bugs"); each skip names its bug. Any other write
// by Simd outside its output is reported as a failure of the case.
//
// Prints one line per function (cases, differing cases, skipped, largest
// ulp distance, the first differing case) and exits 1 when any case differs.
#include "Simd/SimdLib.h"
#include "SimdPeerFused.h"
#include "synetk/simd.h"

#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace sk = synetk::simd;

// Tolerances of the float outputs that sum in another order than Simd, in
// units of the last place of the case's largest output (see Compare).
// Normalize's tolerance covers ill-conditioned cases (a few nearly equal
// values, whose deviations from the mean are all rounding).
constexpr double kNormTol = 256;
constexpr double kAverageTol = 8;

// The synetk target running now (every case runs on each target).
std::string& TargetNow() {
  static std::string t;
  return t;
}

// simd-peer's library (docs/peer-simd.md) lets a program choose Simd's ISA:
// 0 the best the CPU runs, 1 plain C, 2 SSE4.1, 3 AVX2, 4 AVX-512BW. Each
// synetk target is compared with Simd's code of the same vector ISA (an
// engine on such a CPU runs that pair), which matters where Simd's AVX2 and
// AVX-512 code fuse a multiply-add that its SSE4.1 and plain C code round
// twice. Absent in another build of Simd: then every target is compared with
// Simd's best.
extern "C" __attribute__((weak)) int simd_peer_isa;

int SimdIsaFor(int64_t target) {
  const std::string name = hwy::TargetName(target);
  if (name.rfind("AVX3", 0) == 0) return 4;
  if (name == "AVX2") return 3;
  if (name == "SSE4" || name == "SSSE3") return 2;
  return 1;
}
const char* SimdIsaName(int isa) {
  static const char* names[] = {"best", "plain C", "SSE4.1", "AVX2", "AVX-512BW"};
  return names[isa];
}

// Simd picks its code by CPU: AVX-512BW, else AVX2, else SSE4.1.
const bool kSimdAvx512 = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd");
const bool kSimdAvx2Path = !kSimdAvx512 && __builtin_cpu_supports("avx2");

// The ISA of the code Simd runs now (as simd_peer_isa numbers it).
int SimdIsaNow() {
  if (&simd_peer_isa != nullptr && simd_peer_isa != 0) return simd_peer_isa;
  return kSimdAvx512 ? 4 : kSimdAvx2Path ? 3 : 2;
}

std::mt19937& Rng() {
  static std::mt19937 rng(20261201);
  return rng;
}
float Uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(Rng()); }
int UniformInt(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(Rng()); }

std::vector<float> Floats(size_t n, float lo = -3.0f, float hi = 3.0f) {
  std::vector<float> v(n);
  for (auto& x : v) x = Uniform(lo, hi);
  return v;
}
std::vector<uint8_t> Bytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(Rng()());
  return v;
}

// Casts for the two libraries' enums (synetk's own look-alikes, or Simd's
// where synetk/simd.h uses them).
::SimdTensorFormatType SimdFmt(bool nhwc) { return nhwc ? ::SimdTensorFormatNhwc : ::SimdTensorFormatNchw; }
sk::SimdTensorFormatType SkFmt(bool nhwc) { return static_cast<sk::SimdTensorFormatType>(nhwc ? 1 : 0); }
sk::SimdBool SkBool(bool b) { return static_cast<sk::SimdBool>(b ? 1 : 0); }
sk::SimdTensorDataType SkType(::SimdTensorDataType t) { return static_cast<sk::SimdTensorDataType>(t); }

// An output buffer with guard elements on both sides.
template <typename T>
class Guarded {
 public:
  static constexpr size_t kGuard = 64;
  explicit Guarded(size_t n) : n_(n), v_(n + 2 * kGuard) {
    std::memset(v_.data(), 0xA5, v_.size() * sizeof(T));
  }
  T* data() { return v_.data() + kGuard; }
  const T* data() const { return v_.data() + kGuard; }
  size_t size() const { return n_; }
  bool GuardsIntact() const {
    const auto* b = reinterpret_cast<const uint8_t*>(v_.data());
    const size_t g = kGuard * sizeof(T);
    for (size_t i = 0; i < g; ++i)
      if (b[i] != 0xA5 || b[g + n_ * sizeof(T) + i] != 0xA5) return false;
    return true;
  }

 private:
  size_t n_;
  std::vector<T> v_;
};

int64_t UlpDistance(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  const int64_t oa = ia < 0 ? int64_t{INT32_MIN} - ia : ia;
  const int64_t ob = ib < 0 ? int64_t{INT32_MIN} - ib : ib;
  return oa > ob ? oa - ob : ob - oa;
}

struct Stat {
  std::string name;
  size_t cases = 0, differing = 0, skipped = 0;
  int64_t maxUlps = 0;        // largest distance of two floats in ulps
  double maxTensorUlps = 0.0;  // ... in ulps of the largest output of the case
  std::string first;
};
std::vector<Stat>& Stats() {
  static std::vector<Stat> s;
  return s;
}
Stat& StatOf(const std::string& name) {
  for (auto& s : Stats())
    if (s.name == name) return s;
  Stat s;
  s.name = name;
  Stats().push_back(s);
  return Stats().back();
}
void Skip(const std::string& fn) { ++StatOf(fn).skipped; }

// Compares Simd's and synetk's outputs. Floats: with tol == 0 they must be
// bit-identical; else |a - b| may be at most tol units of the last place of
// the largest magnitude in Simd's output (a sum's rounding error scales with
// the magnitudes summed, not with the result, which may be near zero).
// Returns the description of the first difference, or "".
template <typename T>
std::string Compare(const Guarded<T>& simd, const Guarded<T>& mine, double tol, Stat* st) {
  if (!simd.GuardsIntact()) return "Simd wrote outside its output";
  if (!mine.GuardsIntact()) return "synetk wrote outside its output";
  double unit = 0.0;
  if constexpr (std::is_same_v<T, float>) {
    float maxAbs = 0.0f;
    for (size_t i = 0; i < simd.size(); ++i)
      if (std::isfinite(simd.data()[i])) maxAbs = std::max(maxAbs, std::fabs(simd.data()[i]));
    int e = 0;
    std::frexp(maxAbs, &e);
    unit = std::ldexp(1.0, e - 24);
  }
  for (size_t i = 0; i < simd.size(); ++i) {
    const T a = simd.data()[i], b = mine.data()[i];
    if constexpr (std::is_same_v<T, float>) {
      if (std::memcmp(&a, &b, 4) == 0 || (std::isnan(a) && std::isnan(b))) continue;
      const int64_t u = UlpDistance(a, b);
      const double t = std::fabs(double(a) - double(b)) / unit;
      st->maxUlps = std::max(st->maxUlps, u);
      st->maxTensorUlps = std::max(st->maxTensorUlps, t);
      if (tol > 0 && t <= tol) continue;
      std::ostringstream o;
      o.precision(9);
      o << "dst[" << i << "]: Simd " << a << ", synetk " << b << " (" << u << " ulps, " << t
        << " ulps of the largest output)";
      return o.str();
    } else {
      if (a == b) continue;
      std::ostringstream o;
      o << "dst[" << i << "]: Simd " << +a << ", synetk " << +b;
      return o.str();
    }
  }
  return "";
}

// Runs one case: simd() and mine() fill their outputs; check() compares.
void Case(const std::string& fn, const std::string& what, const std::function<void()>& simd,
          const std::function<void()>& mine, const std::function<std::string()>& check) {
  Stat& s = StatOf(fn);
  ++s.cases;
  simd();
  std::string diff;
  try {
    mine();
    diff = check();
  } catch (const std::exception& e) {
    diff = std::string("synetk threw: ") + e.what();
  }
  if (!diff.empty()) {
    ++s.differing;
    if (s.first.empty()) s.first = TargetNow() + ", " + what + ": " + diff;
  }
}

std::string Shape(bool nhwc, size_t a, size_t b) {
  std::ostringstream o;
  o << (nhwc ? "NHWC" : "NCHW") << " C=" << a << " S=" << b;
  return o.str();
}

const size_t kChannels[] = {1, 2, 3, 5, 8, 15, 16, 17, 32, 33, 64};
const size_t kSpatial[] = {1, 2, 3, 7, 16, 17, 49, 64, 100};

// ---- Fused ------------------------------------------------------------------

void FusedCases() {
  for (int type : {0, 1, 2, 3, 4, 8, 9})
    for (bool nhwc : {false, true})
      for (size_t C : kChannels)
        for (size_t S : kSpatial) {
          const std::string fn = "SimdSynetFusedLayerForward" + std::to_string(type);
          // Fused 4 NHWC with one channel: Simd writes the two halves in NCHW
          // order (PEERS.md, "Fused type 4, NHWC with one channel").
          if (type == 4 && nhwc && C == 1) {
            Skip(fn);
            continue;
          }
          const size_t C1 = type == 9 ? std::max<size_t>(1, C / 2) : 0;
          const size_t Ct = C + C1;
          const auto src0 = Floats(C * S), src1 = Floats((type == 9 ? C1 : C) * S);
          const auto p0 = Floats(Ct, -2, 2), p1 = Floats(Ct, -2, 2), p2 = Floats(Ct, -2, 2);
          const size_t n = (type == 4 ? 2 * C : Ct) * S;
          const bool withDst1 = type == 9 && (S % 2 == 1);
          Guarded<float> a0(n), b0(n), a1(withDst1 ? n : 0), b1(withDst1 ? n : 0);
          const auto fmt = SimdFmt(nhwc);
          const auto skf = SkFmt(nhwc);
          const float* s0 = src0.data();
          const float* s1 = src1.data();
          std::function<void()> simd, mine;
          switch (type) {
            case 0:
              simd = [&] { SimdSynetFusedLayerForward0(s0, p0.data(), p1.data(), C, S, a0.data(), fmt); };
              mine = [&] { sk::SimdSynetFusedLayerForward0(s0, p0.data(), p1.data(), C, S, b0.data(), skf); };
              break;
            case 1:
              simd = [&] { SimdSynetFusedLayerForward1(s0, p0.data(), p1.data(), p2.data(), C, S, a0.data(), fmt); };
              mine = [&] { sk::SimdSynetFusedLayerForward1(s0, p0.data(), p1.data(), p2.data(), C, S, b0.data(), skf); };
              break;
            case 2:
              simd = [&] { SimdSynetFusedLayerForward2(s0, p0.data(), p1.data(), C, S, p2.data(), a0.data(), fmt); };
              mine = [&] { sk::SimdSynetFusedLayerForward2(s0, p0.data(), p1.data(), C, S, p2.data(), b0.data(), skf); };
              break;
            case 3:
              simd = [&] { SimdSynetFusedLayerForward3(s0, p0.data(), p1.data(), C, S, a0.data(), fmt); };
              mine = [&] { sk::SimdSynetFusedLayerForward3(s0, p0.data(), p1.data(), C, S, b0.data(), skf); };
              break;
            case 4:
              simd = [&] { SimdSynetFusedLayerForward4(s0, p0.data(), p1.data(), p2.data(), C, S, a0.data(), fmt); };
              mine = [&] { sk::SimdSynetFusedLayerForward4(s0, p0.data(), p1.data(), p2.data(), C, S, b0.data(), skf); };
              break;
            case 8:
              simd = [&] { SimdSynetFusedLayerForward8(s0, s1, p0.data(), C, S, a0.data(), fmt); };
              mine = [&] { sk::SimdSynetFusedLayerForward8(s0, s1, p0.data(), C, S, b0.data(), skf); };
              break;
            case 9:
              simd = [&] {
                SimdSynetFusedLayerForward9(s0, s1, p0.data(), p1.data(), C, C1, S, a0.data(),
                                            withDst1 ? a1.data() : nullptr, fmt);
              };
              mine = [&] {
                sk::SimdSynetFusedLayerForward9(s0, s1, p0.data(), p1.data(), C, C1, S, b0.data(),
                                                withDst1 ? b1.data() : nullptr, skf);
              };
              break;
          }
          Stat& st = StatOf(fn);
          Case(fn, Shape(nhwc, C, S), simd, mine, [&] {
            std::string d = Compare(a0, b0, 0, &st);
            if (d.empty() && withDst1) {
              d = Compare(a1, b1, 0, &st);
              if (!d.empty()) d = "dst1 " + d;
            }
            return d;
          });
        }
}

// ---- Normalize --------------------------------------------------------------

void NormalizeCases() {
  const char* names[] = {"SimdSynetNormalizeLayerForward", "SimdSynetNormalizeLayerForwardV2",
                         "SimdSynetNormalizeLayerForwardV3", "SimdSynetNormalizeLayerForwardV4"};
  for (int v = 1; v <= 4; ++v)
    for (bool nhwc : {false, true})
      for (size_t batch : {1, 2})
        for (size_t C : kChannels)
          for (size_t S : kSpatial)
            for (bool across : {false, true})
              for (bool withBuf : {false, true}) {
                if (v != 1 && across) continue;  // acrossSpatial is V1's only
                const std::string fn = names[v - 1];
                // NormalizeV3 NHWC with buf == NULL and more channels than
                // positions: Simd allocates spatial floats but uses channels
                // (PEERS.md, "NormalizeV3 NHWC with buf == NULL").
                if (v == 3 && nhwc && !withBuf && C > S) {
                  Skip(fn);
                  continue;
                }
                const auto src = Floats(batch * C * S);
                const auto scale = Floats(C, -2, 2), shift = Floats(C, -2, 2);
                const float eps = v == 1 ? 1e-10f : 1e-5f;
                // The documented buffer: spatial floats for V1/V2, channels for V3/V4.
                std::vector<float> bufA(v <= 2 ? S : C), bufB(bufA.size());
                Guarded<float> a(batch * C * S), b(batch * C * S);
                const auto fmt = SimdFmt(nhwc);
                const auto skf = SkFmt(nhwc);
                float* ba = withBuf ? bufA.data() : nullptr;
                float* bb = withBuf ? bufB.data() : nullptr;
                std::function<void()> simd, mine;
                switch (v) {
                  case 1:
                    simd = [&] {
                      SimdSynetNormalizeLayerForward(src.data(), batch, C, S, scale.data(), &eps,
                                                     across ? ::SimdTrue : ::SimdFalse, fmt, ba, a.data());
                    };
                    mine = [&] {
                      sk::SimdSynetNormalizeLayerForward(src.data(), batch, C, S, scale.data(), &eps,
                                                         SkBool(across), skf, bb, b.data());
                    };
                    break;
                  case 2:
                    simd = [&] { SimdSynetNormalizeLayerForwardV2(src.data(), batch, C, S, scale.data(), shift.data(), &eps, fmt, ba, a.data()); };
                    mine = [&] { sk::SimdSynetNormalizeLayerForwardV2(src.data(), batch, C, S, scale.data(), shift.data(), &eps, skf, bb, b.data()); };
                    break;
                  case 3:
                    simd = [&] { SimdSynetNormalizeLayerForwardV3(src.data(), batch, C, S, scale.data(), shift.data(), &eps, fmt, ba, a.data()); };
                    mine = [&] { sk::SimdSynetNormalizeLayerForwardV3(src.data(), batch, C, S, scale.data(), shift.data(), &eps, skf, bb, b.data()); };
                    break;
                  case 4:
                    simd = [&] { SimdSynetNormalizeLayerForwardV4(src.data(), batch, C, S, scale.data(), shift.data(), &eps, fmt, ba, a.data()); };
                    mine = [&] { sk::SimdSynetNormalizeLayerForwardV4(src.data(), batch, C, S, scale.data(), shift.data(), &eps, skf, bb, b.data()); };
                    break;
                }
                std::ostringstream what;
                what << Shape(nhwc, C, S) << " batch=" << batch << (across ? " across" : "")
                     << (withBuf ? " buf" : " buf=NULL");
                Stat& st = StatOf(fn);
                Case(fn, what.str(), simd, mine, [&] { return Compare(a, b, kNormTol, &st); });
              }
}

// ---- Pooling ----------------------------------------------------------------

struct PoolGeom {
  size_t C, H, W, ky, kx, sy, sx, py, px, dH, dW;
  std::string Describe(bool nhwc) const {
    std::ostringstream o;
    o << (nhwc ? "NHWC" : "NCHW") << " C=" << C << " " << H << "x" << W << " k" << ky << "x" << kx
      << " s" << sy << "x" << sx << " p" << py << "x" << px << " -> " << dH << "x" << dW;
    return o.str();
  }
};

// Random geometry: floor-mode outputs, or ceil-mode ones where the last
// window starts inside the padded input.
PoolGeom RandomGeom() {
  static const size_t channels[] = {1, 2, 3, 4, 7, 8, 9, 16, 17, 31, 32, 33, 64, 65};
  PoolGeom g;
  g.C = channels[UniformInt(0, 13)];
  g.ky = UniformInt(1, 5);
  g.kx = UniformInt(0, 3) == 0 ? g.ky : UniformInt(1, 5);
  g.sy = UniformInt(1, 3);
  g.sx = UniformInt(0, 3) == 0 ? g.sy : UniformInt(1, 3);
  g.py = UniformInt(0, int(g.ky) - 1);
  g.px = UniformInt(0, int(g.kx) - 1);
  g.H = UniformInt(int(std::max(g.ky, size_t{1})), 40);
  g.W = UniformInt(int(std::max(g.kx, size_t{1})), 40);
  const bool ceil = UniformInt(0, 2) == 0;
  auto out = [&](size_t n, size_t k, size_t s, size_t p) {
    size_t d = (n + 2 * p - k) / s + 1;
    if (ceil && (n + 2 * p - k) % s != 0 && d * s < n + p) ++d;
    return d;
  };
  g.dH = out(g.H, g.ky, g.sy, g.py);
  g.dW = out(g.W, g.kx, g.sx, g.px);
  return g;
}

// The standard geometries of networks, beside the random ones.
std::vector<PoolGeom> FixedGeoms() {
  std::vector<PoolGeom> v;
  auto add = [&](size_t C, size_t H, size_t k, size_t s, size_t p) {
    const size_t d = (H + 2 * p - k) / s + 1;
    v.push_back(PoolGeom{C, H, H, k, k, s, s, p, p, d, d});
  };
  add(64, 56, 3, 2, 1);
  add(32, 28, 2, 2, 0);
  add(16, 32, 5, 1, 2);
  add(512, 7, 7, 1, 0);
  add(3, 37, 3, 2, 1);
  add(5, 33, 3, 1, 1);
  add(17, 40, 2, 2, 0);
  return v;
}

// SynetPoolingMax32f NCHW 2x2 and 3x3 stride 2 without padding: Simd's fast
// paths write an output sized as if in ceil mode (PEERS.md, "NCHW 2x2 stride
// 2 on odd sizes ... and 3x3 s2 p0"): skipped wherever floor and ceil sizes
// differ.
bool SimdMaxNchwOverflow(const PoolGeom& g) {
  if (g.sy != 2 || g.sx != 2 || g.py != 0 || g.px != 0 || g.ky != g.kx) return false;
  if (g.ky != 2 && g.ky != 3) return false;
  const size_t ceilH = (g.H - g.ky + 1) / 2 + 1, ceilW = (g.W - g.kx + 1) / 2 + 1;
  return g.dH != ceilH || g.dW != ceilW;
}

template <typename T>
std::vector<T> PoolValues(size_t n) {
  std::vector<T> v(n);
  if constexpr (std::is_same_v<T, float>) {
    v = Floats(n, -10, 10);
  } else if constexpr (std::is_same_v<T, uint16_t>) {  // bfloat16 bits of finite values
    for (auto& x : v) {
      const float f = Uniform(-10, 10);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      x = static_cast<uint16_t>(bits >> 16);
    }
  } else {
    v = Bytes(n);
  }
  return v;
}

template <typename T>
void PoolingCase(int op, const PoolGeom& g, bool nhwc) {
  // op: 0 Max32f, 1 Average exclude pad, 2 Average include pad, 3 Max16b, 4 Max8u.
  const char* names[] = {"SimdSynetPoolingMax32f", "SimdSynetPoolingAverage", "SimdSynetPoolingAverage",
                         "SimdSynetPoolingMax16b", "SimdSynetPoolingMax8u"};
  const std::string fn = names[op];
  if (op == 0 && !nhwc && SimdMaxNchwOverflow(g)) {
    Skip(fn);
    return;
  }
  // AVX2 SynetPoolingMax32f NHWC with fewer than 8 channels writes nothing
  // (PEERS.md, "AVX2 SynetPoolingMax32f, NHWC with fewer than 8 channels");
  // its SSE4.1 code has the same channel test, at fewer than 4 channels.
  if (op == 0 && nhwc && ((g.C < 8 && SimdIsaNow() == 3) || (g.C < 4 && SimdIsaNow() == 2))) {
    Skip(fn);
    return;
  }
  const auto src = PoolValues<T>(g.C * g.H * g.W);
  const size_t n = g.C * g.dH * g.dW;
  Guarded<T> a(n), b(n);
  const auto fmt = SimdFmt(nhwc);
  const auto skf = SkFmt(nhwc);
  std::function<void()> simd, mine;
  if constexpr (std::is_same_v<T, float>) {
    if (op == 0) {
      simd = [&] {
        SimdSynetPoolingMax32f(src.data(), g.C, g.H, g.W, 1, g.ky, g.kx, 1, g.sy, g.sx, 0, g.py, g.px, a.data(),
                               g.C, g.dH, g.dW, fmt);
      };
      mine = [&] {
        sk::SimdSynetPoolingMax32f(src.data(), g.C, g.H, g.W, 1, g.ky, g.kx, 1, g.sy, g.sx, 0, g.py, g.px,
                                   b.data(), g.C, g.dH, g.dW, skf);
      };
    } else {
      const bool exclude = op == 1;
      simd = [&] {
        SimdSynetPoolingAverage(src.data(), g.C, g.H, g.W, g.ky, g.kx, g.sy, g.sx, g.py, g.px, a.data(), g.dH,
                                g.dW, exclude ? ::SimdTrue : ::SimdFalse, fmt);
      };
      mine = [&] {
        sk::SimdSynetPoolingAverage(src.data(), g.C, g.H, g.W, g.ky, g.kx, g.sy, g.sx, g.py, g.px, b.data(),
                                    g.dH, g.dW, SkBool(exclude), skf);
      };
    }
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    simd = [&] {
      SimdSynetPoolingMax16b(src.data(), g.C, g.H, g.W, g.ky, g.kx, g.sy, g.sx, g.py, g.px, a.data(), g.dH,
                             g.dW, fmt);
    };
    mine = [&] {
      sk::SimdSynetPoolingMax16b(src.data(), g.C, g.H, g.W, g.ky, g.kx, g.sy, g.sx, g.py, g.px, b.data(), g.dH,
                                 g.dW, skf);
    };
  } else {
    simd = [&] {
      SimdSynetPoolingMax8u(src.data(), g.C, g.H, g.W, g.ky, g.kx, g.sy, g.sx, g.py, g.px, a.data(), g.dH,
                            g.dW, fmt);
    };
    mine = [&] {
      sk::SimdSynetPoolingMax8u(src.data(), g.C, g.H, g.W, g.ky, g.kx, g.sy, g.sx, g.py, g.px, b.data(), g.dH,
                                g.dW, skf);
    };
  }
  std::string what = g.Describe(nhwc);
  if (op == 1) what += " excludePad";
  Stat& st = StatOf(fn);
  Case(fn, what, simd, mine, [&] { return Compare(a, b, op == 1 || op == 2 ? kAverageTol : 0, &st); });
}

void PoolingCases() {
  std::vector<PoolGeom> geoms = FixedGeoms();
  for (int i = 0; i < 150; ++i) geoms.push_back(RandomGeom());
  for (const auto& g : geoms)
    for (bool nhwc : {false, true}) {
      PoolingCase<float>(0, g, nhwc);
      PoolingCase<float>(1, g, nhwc);
      PoolingCase<float>(2, g, nhwc);
      PoolingCase<uint16_t>(3, g, nhwc);
      PoolingCase<uint8_t>(4, g, nhwc);
    }
}

// ---- Quantization -----------------------------------------------------------

void QuantCases() {
  const size_t sizes[] = {1, 3, 15, 16, 17, 31, 64, 100, 257, 1000, 4099};
  for (size_t n : sizes)
    for (int rep = 0; rep < 3; ++rep) {
      {
        const auto src = Bytes(n);
        const int32_t bias = -UniformInt(0, 255);  // minus the zero point
        const float norm = Uniform(0.001f, 0.2f);
        Guarded<float> a(n), b(n);
        std::ostringstream what;
        what << "size=" << n << " bias=" << bias << " norm=" << norm;
        Stat& st = StatOf("SimdSynetDequantizeLinear");
        Case("SimdSynetDequantizeLinear", what.str(),
             [&] { SimdSynetDequantizeLinear(src.data(), n, bias, &norm, a.data()); },
             [&] { sk::SimdSynetDequantizeLinear(src.data(), n, bias, &norm, b.data()); },
             [&] { return Compare(a, b, 0, &st); });
      }
      {
        const auto src = Floats(n, -100, 100);
        const float norm = Uniform(0.5f, 4.0f);
        const int32_t zero = UniformInt(0, 255);
        Guarded<uint8_t> a(n), b(n);
        std::ostringstream what;
        what << "size=" << n << " norm=" << norm << " zero=" << zero;
        Stat unused;
        Case("SimdSynetQuantizeLinear", what.str(),
             [&] { SimdSynetQuantizeLinear(src.data(), n, &norm, zero, a.data()); },
             [&] { sk::SimdSynetQuantizeLinear(src.data(), n, &norm, zero, b.data()); },
             [&] { return Compare(a, b, 0, &unused); });
      }
    }

  // Concat: count inputs, num outer repetitions, size[i] bytes each.
  for (size_t count : {1, 2, 3, 5})
    for (size_t num : {1, 2, 7, 49})
      for (int rep = 0; rep < 4; ++rep) {
        std::vector<size_t> size(count);
        std::vector<int32_t> bias(count);
        std::vector<float> norm(count);
        std::vector<std::vector<uint8_t>> srcs(count);
        std::vector<const uint8_t*> ptrs(count);
        size_t total = 0;
        for (size_t i = 0; i < count; ++i) {
          size[i] = static_cast<size_t>(UniformInt(1, 70));
          bias[i] = -UniformInt(0, 255);
          norm[i] = Uniform(0.005f, 0.08f);
          srcs[i] = Bytes(num * size[i]);
          ptrs[i] = srcs[i].data();
          total += size[i];
        }
        const float scale = 1.0f / Uniform(0.01f, 0.08f);
        const int32_t zero = UniformInt(0, 255);
        Guarded<uint8_t> a(num * total), b(num * total);
        std::ostringstream what;
        what << "count=" << count << " num=" << num << " size[0]=" << size[0];
        Stat unused;
        Case("SimdSynetQuantizedConcatLayerForward", what.str(),
             [&] {
               SimdSynetQuantizedConcatLayerForward(count, ptrs.data(), num, size.data(), bias.data(), norm.data(),
                                                    &scale, zero, a.data());
             },
             [&] {
               sk::SimdSynetQuantizedConcatLayerForward(count, ptrs.data(), num, size.data(), bias.data(),
                                                        norm.data(), &scale, zero, b.data());
             },
             [&] { return Compare(a, b, 0, &unused); });
      }

  // QuantizedScale, with and without bias.
  for (bool nhwc : {false, true})
    for (size_t C : kChannels)
      for (size_t S : kSpatial)
        for (bool withBias : {true, false}) {
          const auto src = Bytes(C * S);
          const auto scale = Floats(C, -3, 3), bias = Floats(C, -2, 2);
          const float srcScale = Uniform(0.005f, 0.05f), dstScale = Uniform(0.01f, 0.08f);
          const int srcZero = UniformInt(0, 255), dstZero = UniformInt(0, 255);
          Guarded<uint8_t> a(C * S), b(C * S);
          const auto fmt = SimdFmt(nhwc);
          const auto skf = SkFmt(nhwc);
          const float* pb = withBias ? bias.data() : nullptr;
          std::string what = Shape(nhwc, C, S) + (withBias ? " bias" : " bias=NULL");
          Stat unused;
          Case("SimdSynetQuantizedScaleLayerForward", what,
               [&] {
                 SimdSynetQuantizedScaleLayerForward(src.data(), &srcScale, srcZero, C, S, scale.data(), pb,
                                                     a.data(), &dstScale, dstZero, fmt);
               },
               [&] {
                 sk::SimdSynetQuantizedScaleLayerForward(src.data(), &srcScale, srcZero, C, S, scale.data(), pb,
                                                         b.data(), &dstScale, dstZero, skf);
               },
               [&] { return Compare(a, b, 0, &unused); });
        }

  // QuantizedScale where one rounding of v*scale + bias and two give
  // different bytes: srcScale = dstScale = 1 and srcZero = 0 make v the byte
  // x; bias[c] = 0.5 - RN(x_c*scale[c]) puts x_c's exact value next to a
  // rounding tie that the twice-rounded sum lands on (random parameters
  // almost never meet one).
  for (bool nhwc : {false, true})
    for (size_t C : {size_t{7}, size_t{64}})
      for (size_t S : {size_t{40}, size_t{1030}}) {
        auto src = Bytes(C * S);
        std::vector<float> scale(C), bias(C);
        for (size_t c = 0; c < C; ++c) {
          const int x = UniformInt(129, 255);
          scale[c] = 1.0f + static_cast<float>(UniformInt(1, 1 << 20)) * 0x1p-23f;
          bias[c] = 0.5f - static_cast<float>(x) * scale[c];
          const size_t s = c % S;
          src[nhwc ? s * C + c : c * S + s] = static_cast<uint8_t>(x);
        }
        const float one = 1.0f;
        Guarded<uint8_t> a(C * S), b(C * S);
        const auto fmt = SimdFmt(nhwc);
        const auto skf = SkFmt(nhwc);
        Stat unused;
        Case("SimdSynetQuantizedScaleLayerForward", Shape(nhwc, C, S) + " near rounding ties",
             [&] {
               SimdSynetQuantizedScaleLayerForward(src.data(), &one, 0, C, S, scale.data(), bias.data(),
                                                   a.data(), &one, 100, fmt);
             },
             [&] {
               sk::SimdSynetQuantizedScaleLayerForward(src.data(), &one, 0, C, S, scale.data(),
                                                       bias.data(), b.data(), &one, 100, skf);
             },
             [&] { return Compare(a, b, 0, &unused); });
      }

  // Shuffle types 0 and 1: two inputs of an even channel count each.
  for (int type : {0, 1})
    for (bool nhwc : {false, true})
      for (size_t half : {1, 2, 4, 8, 9, 16, 33})
        for (size_t S : kSpatial) {
          const size_t C0 = 2 * half, C1 = type == 1 ? C0 : 2 * static_cast<size_t>(UniformInt(1, 20));
          const auto s0 = Bytes(C0 * S), s1 = Bytes(C1 * S);
          const int bias0 = -UniformInt(0, 255), bias1 = -UniformInt(0, 255);
          const float norm0 = Uniform(0.005f, 0.08f), norm1 = Uniform(0.005f, 0.08f);
          const float scale = 1.0f / Uniform(0.01f, 0.08f);
          const int zero = UniformInt(0, 255);
          const size_t dstC = (C0 + C1) / 2;
          Guarded<uint8_t> a0(dstC * S), a1(dstC * S), b0(dstC * S), b1(dstC * S);
          const auto fmt = SimdFmt(nhwc);
          const auto skf = SkFmt(nhwc);
          std::ostringstream what;
          what << (nhwc ? "NHWC" : "NCHW") << " type=" << type << " C0=" << C0 << " C1=" << C1 << " S=" << S;
          Stat unused;
          Case("SimdSynetQuantizedShuffleLayerForward", what.str(),
               [&] {
                 SimdSynetQuantizedShuffleLayerForward(s0.data(), bias0, &norm0, C0, s1.data(), bias1, &norm1, C1, S,
                                                       a0.data(), a1.data(), &scale, zero, fmt, type);
               },
               [&] {
                 sk::SimdSynetQuantizedShuffleLayerForward(s0.data(), bias0, &norm0, C0, s1.data(), bias1, &norm1,
                                                           C1, S, b0.data(), b1.data(), &scale, zero, skf, type);
               },
               [&] {
                 std::string d = Compare(a0, b0, 0, &unused);
                 if (d.empty()) {
                   d = Compare(a1, b1, 0, &unused);
                   if (!d.empty()) d = "dst1 " + d;
                 }
                 return d;
               });
        }
}

// ---- GatherElements ---------------------------------------------------------

// Modes: 0 non-constant index; 1 constant with SetIndex; 2 constant without
// SetIndex (optional in Simd); 3 non-constant with SetIndex (Simd ignores it).
template <typename D, typename I>
void GatherCase(::SimdTensorDataType dt, ::SimdTensorDataType it, int mode, const std::vector<size_t>& outer,
                size_t srcCount, size_t inner, size_t idxCount, bool repeatOuter) {
  size_t outerN = 1;
  for (size_t o : outer) outerN *= o;
  std::vector<D> src(outerN * srcCount * inner);
  {
    const auto bytes = Bytes(src.size() * sizeof(D));
    std::memcpy(src.data(), bytes.data(), bytes.size());
  }
  // Indexes in [-srcCount, srcCount); with repeatOuter every outer block has
  // the same indexes (Simd's SetIndex then folds the outer loop).
  const size_t block = idxCount * inner;
  std::vector<I> idx(outerN * block);
  for (size_t i = 0; i < idx.size(); ++i)
    idx[i] = repeatOuter && i >= block ? idx[i % block]
                                       : static_cast<I>(UniformInt(-int(srcCount), int(srcCount) - 1));
  const size_t n = outerN * block;
  Guarded<D> a(n), b(n);
  const bool isConst = mode == 1 || mode == 2;
  const bool setIndex = mode == 1 || mode == 3;
  const auto* src8 = reinterpret_cast<const uint8_t*>(src.data());
  const auto* idx8 = reinterpret_cast<const uint8_t*>(idx.data());
  const std::string fn = "SimdSynetGatherElements";
  std::ostringstream what;
  what << "elem=" << sizeof(D) << "B idx=" << sizeof(I) << "B outer=" << outerN << " srcCount=" << srcCount
       << " inner=" << inner << " idxCount=" << idxCount
       << (mode == 0 ? " non-constant" : mode == 1 ? " constant+SetIndex" : mode == 2 ? " constant, no SetIndex"
                                                                                         : " non-constant+SetIndex");
  Stat unused;
  Case(fn, what.str(),
       [&] {
         void* c = SimdSynetGatherElementsInit(dt, it, isConst ? ::SimdTrue : ::SimdFalse, 1, outer.data(),
                                               outer.size(), srcCount, inner, idxCount);
         if (setIndex) SimdSynetGatherElementsSetIndex(c, idx8);
         SimdSynetGatherElementsForward(c, src8, idx8, reinterpret_cast<uint8_t*>(a.data()));
         SimdRelease(c);
       },
       [&] {
         void* c = sk::SimdSynetGatherElementsInit(SkType(dt), SkType(it), SkBool(isConst), 1, outer.data(),
                                                   outer.size(), srcCount, inner, idxCount);
         struct Release {
           void* c;
           ~Release() { sk::SimdRelease(c); }
         } release{c};
         if (c == nullptr) throw std::runtime_error("Init returned NULL");
         if (setIndex) sk::SimdSynetGatherElementsSetIndex(c, idx8);
         sk::SimdSynetGatherElementsForward(c, src8, idx8, reinterpret_cast<uint8_t*>(b.data()));
       },
       [&] { return Compare(a, b, 0, &unused); });
}

template <typename D, typename I>
void GatherCasesFor(::SimdTensorDataType dt, ::SimdTensorDataType it) {
  const std::vector<std::vector<size_t>> outers = {{}, {1}, {3}, {2, 5}, {4, 1, 3}};
  for (int mode = 0; mode < 4; ++mode)
    for (const auto& outer : outers)
      for (size_t inner : {1, 2, 7, 16, 33})
        for (bool repeat : {false, true}) {
          const size_t srcCount = static_cast<size_t>(UniformInt(1, 40));
          const size_t idxCount = static_cast<size_t>(UniformInt(1, 40));
          GatherCase<D, I>(dt, it, mode, outer, srcCount, inner, idxCount, repeat);
        }
}

void GatherCases() {
  GatherCasesFor<float, int32_t>(::SimdTensorData32f, ::SimdTensorData32i);
  GatherCasesFor<float, int64_t>(::SimdTensorData32f, ::SimdTensorData64i);
  GatherCasesFor<uint16_t, int32_t>(::SimdTensorData16b, ::SimdTensorData32i);
  GatherCasesFor<uint16_t, int64_t>(::SimdTensorData16b, ::SimdTensorData64i);
  GatherCasesFor<uint8_t, int32_t>(::SimdTensorData8u, ::SimdTensorData32i);
  GatherCasesFor<uint8_t, int64_t>(::SimdTensorData8u, ::SimdTensorData64i);
}

}  // namespace

int main() {
  std::printf("Simd's best on this CPU: %s\n", kSimdAvx512 ? "AVX-512BW" : kSimdAvx2Path ? "AVX2" : "SSE4.1 or plain C");
  const bool chooseIsa = &simd_peer_isa != nullptr;
  std::printf("synetk target (Simd ISA):");
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(t);
    if (synetk::ChosenTarget() != t) {
      std::printf("\nsynetk did not dispatch to %s\n", hwy::TargetName(t));
      return 2;
    }
    const int isa = chooseIsa ? SimdIsaFor(t) : 0;
    if (chooseIsa) simd_peer_isa = isa;
    TargetNow() = std::string(hwy::TargetName(t)) + " (Simd " + SimdIsaName(isa) + ")";
    std::printf(" %s", TargetNow().c_str());
    FusedCases();
    NormalizeCases();
    PoolingCases();
    QuantCases();
    GatherCases();
  }
  hwy::SetSupportedTargetsForTest(0);
  if (chooseIsa) simd_peer_isa = 0;
  std::printf("\n");
  size_t cases = 0, differing = 0;
  for (const auto& s : Stats()) {
    std::printf("%-40s %5zu cases %4zu differ %4zu skipped  max %lld ulps, %.1f of the largest output\n",
                s.name.c_str(), s.cases, s.differing, s.skipped, static_cast<long long>(s.maxUlps),
                s.maxTensorUlps);
    if (!s.first.empty()) std::printf("    first: %s\n", s.first.c_str());
    cases += s.cases;
    differing += s.differing;
  }
  std::printf("%zu cases, %zu differ\n", cases, differing);
  return differing == 0 ? 0 : 1;
}
