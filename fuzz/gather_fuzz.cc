// Copyright synetk authors. SPDX-License-Identifier: MIT
// libFuzzer target: GatherElements through synetk::simd
// (SimdSynetGatherElementsInit, SetIndex, InternalBufferSize, Forward,
// SimdRelease). The fuzzer picks data and index types (incl. unsupported
// ones), constant or per-call indices, the shape (incl. zero sizes) and the
// indices: usually in [-srcCount, srcCount), sometimes out of range by one
// (srcCount, -srcCount-1) or arbitrary. A call must match the scalar
// reference or throw synetk::Error with dst unchanged (a rejected SetIndex
// keeps the previous index), never crash or touch memory outside the buffers.
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <vector>

#include "fuzz_input.h"
#include "reference/gather_ref.h"
#include "synetk/simd.h"

using namespace synetk::simd;

namespace {

struct Release {
  void operator()(void* c) const { SimdRelease(c); }
};

size_t ElemSize(int type) {
  switch (type) {
    case SimdTensorData32f:
    case SimdTensorData32i: return 4;
    case SimdTensorData8i:
    case SimdTensorData8u:
    case SimdTensorDataBool: return 1;
    case SimdTensorData64i:
    case SimdTensorData64u: return 8;
    case SimdTensorData16b:
    case SimdTensorData16f: return 2;
    default: return 0;
  }
}

// Indices as bytes of the index type: usually valid, sometimes off by one
// on either side, sometimes arbitrary.
std::vector<uint8_t> MakeIndex(synetk_fuzz::Input& in, size_t n, size_t srcCount, bool wide) {
  std::vector<uint8_t> bytes(n * (wide ? 8 : 4));
  const int64_t s = static_cast<int64_t>(srcCount);
  const bool allValid = in.Range(0, 3) != 0;
  for (size_t j = 0; j < n; ++j) {
    int64_t v;
    switch (allValid ? 5 : in.Range(0, 9)) {
      case 0: v = s; break;
      case 1: v = -s - 1; break;
      case 2: v = wide ? in.Raw<int64_t>() : in.Raw<int32_t>(); break;
      case 3: v = wide ? (in.Bool() ? INT64_MIN : INT64_MAX) : (in.Bool() ? INT32_MIN : INT32_MAX); break;
      default: v = s == 0 ? static_cast<int64_t>(in.Range(0, 2)) - 1 : static_cast<int64_t>(in.Range(0, 2 * s - 1)) - s;
    }
    if (wide) {
      std::memcpy(&bytes[j * 8], &v, 8);
    } else {
      const int32_t v32 = static_cast<int32_t>(v);
      std::memcpy(&bytes[j * 4], &v32, 4);
    }
  }
  return bytes;
}

// The reference gather on elements of `es` bytes; false when an index is out
// of range (the reference throws std::out_of_range).
template <typename I>
bool RefGather(const uint8_t* src, const uint8_t* idxBytes, uint8_t* dst, size_t es, size_t outer, size_t srcCount,
               size_t inner, size_t idxCount) {
  std::vector<I> idx(outer * idxCount * inner);
  std::memcpy(idx.data(), idxBytes, idx.size() * sizeof(I));
  try {
    switch (es) {
      case 1: synetk_ref::GatherElements(src, idx.data(), dst, outer, srcCount, inner, idxCount); break;
      case 2: synetk_ref::GatherElements(reinterpret_cast<const uint16_t*>(src), idx.data(), reinterpret_cast<uint16_t*>(dst), outer, srcCount, inner, idxCount); break;
      case 4: synetk_ref::GatherElements(reinterpret_cast<const uint32_t*>(src), idx.data(), reinterpret_cast<uint32_t*>(dst), outer, srcCount, inner, idxCount); break;
      default: synetk_ref::GatherElements(reinterpret_cast<const uint64_t*>(src), idx.data(), reinterpret_cast<uint64_t*>(dst), outer, srcCount, inner, idxCount); break;
    }
  } catch (const std::out_of_range&) {
    return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  synetk_fuzz::Input in(data, size);
  const int dataType = static_cast<int>(in.Range(0, 11)) - 1;   // -1..10: Unknown, the nine types, one invalid
  const int indexType = in.Range(0, 7) == 0 ? static_cast<int>(in.Range(0, 11)) - 1
                                            : (in.Bool() ? SimdTensorData64i : SimdTensorData32i);
  const bool indexConst = in.Bool();
  const size_t outerSize = in.Range(0, 3);
  size_t outerDims[3];
  size_t outer = 1;
  for (size_t k = 0; k < outerSize; ++k) {
    outerDims[k] = in.Range(0, 9) == 0 ? 0 : in.Range(1, 4);
    outer *= outerDims[k];
  }
  const size_t srcCount = in.Range(0, 12), inner = in.Range(0, 8), idxCount = in.Range(0, 12);
  const bool outerNull = outerSize > 0 && in.Range(0, 15) == 0;

  std::unique_ptr<void, Release> ctx;
  try {
    ctx.reset(SimdSynetGatherElementsInit(SimdTensorDataType(dataType), SimdTensorDataType(indexType),
                                          indexConst ? SimdTrue : SimdFalse, in.Range(0, 3),
                                          outerNull ? nullptr : outerDims, outerSize, srcCount, inner, idxCount));
  } catch (const synetk::Error&) {
    // Only invalid shapes are rejected.
    if (!(outerNull || outer == 0 || srcCount == 0 || inner == 0 || idxCount == 0)) {
      std::fprintf(stderr, "Init rejected a valid shape\n");
      std::abort();
    }
    return 0;
  }
  const size_t es = ElemSize(dataType);
  const bool typesOk = es != 0 && (indexType == SimdTensorData32i || indexType == SimdTensorData64i);
  if ((ctx != nullptr) != typesOk) {
    std::fprintf(stderr, "Init returned %p for dataType %d indexType %d\n", ctx.get(), dataType, indexType);
    std::abort();
  }
  if (ctx == nullptr) return 0;
  if (outerNull || outer == 0 || srcCount == 0 || inner == 0 || idxCount == 0) {
    std::fprintf(stderr, "Init accepted an invalid shape\n");
    std::abort();
  }
  const bool wide = indexType == SimdTensorData64i;
  const size_t srcN = outer * srcCount * inner, dstN = outer * idxCount * inner;
  std::vector<uint8_t> src(srcN * es);
  for (auto& b : src) b = in.Raw<uint8_t>();
  char context[160];
  std::snprintf(context, sizeof(context), "gather data %d index %d const %d outer %zu srcCount %zu inner %zu idxCount %zu",
                dataType, indexType, indexConst, outer, srcCount, inner, idxCount);

  auto ref = [&](const std::vector<uint8_t>& idx, std::vector<uint8_t>& out) {
    out.assign(dstN * es, 0);
    return wide ? RefGather<int64_t>(src.data(), idx.data(), out.data(), es, outer, srcCount, inner, idxCount)
                : RefGather<int32_t>(src.data(), idx.data(), out.data(), es, outer, srcCount, inner, idxCount);
  };

  // The index Forward must use: in constant mode the last accepted SetIndex
  // (up to two calls), otherwise (no SetIndex accepted, or a non-constant
  // context) the one passed to Forward.
  std::vector<uint8_t> active;
  bool haveActive = false;
  std::vector<uint8_t> scratch;
  if (indexConst) {
    const size_t calls = in.Range(0, 2);
    for (size_t k = 0; k < calls; ++k) {
      std::vector<uint8_t> idx = MakeIndex(in, dstN, srcCount, wide);
      const bool valid = ref(idx, scratch);
      const size_t sizeBefore = SimdSynetGatherElementsInternalBufferSize(ctx.get());
      try {
        SimdSynetGatherElementsSetIndex(ctx.get(), idx.data());
      } catch (const synetk::Error&) {
        if (valid) synetk_fuzz::Mismatch(context, 0, 0, 1);  // a valid index was rejected
        if (SimdSynetGatherElementsInternalBufferSize(ctx.get()) != sizeBefore) {
          std::fprintf(stderr, "%s: rejected SetIndex changed the context\n", context);
          std::abort();
        }
        continue;
      }
      if (!valid) synetk_fuzz::Mismatch(context, 1, 1, 0);  // an invalid index was accepted
      active = idx;
      haveActive = true;
    }
    // Kept bytes: at most the indices and one row entry per (outer, idxCount) row.
    const size_t kept = SimdSynetGatherElementsInternalBufferSize(ctx.get());
    if (kept > dstN * 8 + outer * idxCount * 8 || (!haveActive && kept != 0)) {
      std::fprintf(stderr, "%s: InternalBufferSize %zu\n", context, kept);
      std::abort();
    }
  } else if (SimdSynetGatherElementsInternalBufferSize(ctx.get()) != 0) {
    std::fprintf(stderr, "%s: InternalBufferSize of a non-constant context\n", context);
    std::abort();
  }
  // Forward: per-call indices (ignored after SetIndex, where they may be null).
  std::vector<uint8_t> idx = MakeIndex(in, dstN, srcCount, wide);
  const bool nullIdx = in.Range(0, 7) == 0;
  if (!haveActive) {
    active = idx;
    haveActive = !nullIdx;
  }
  // dst: separate with a guard element after it, or (rarely) the same buffer as src.
  const bool inPlace = in.Range(0, 15) == 0;
  std::vector<uint8_t> dstBuf((dstN + 1) * es);
  for (auto& b : dstBuf) b = in.Raw<uint8_t>();
  std::vector<uint8_t> srcCopy = src;
  uint8_t* dst = inPlace ? srcCopy.data() : dstBuf.data();
  const std::vector<uint8_t> before = dstBuf, srcBefore = srcCopy;
  try {
    SimdSynetGatherElementsForward(ctx.get(), srcCopy.data(), nullIdx ? nullptr : idx.data(), dst);
  } catch (const synetk::Error&) {
    if (dstBuf != before || srcCopy != srcBefore) {
      std::fprintf(stderr, "%s: rejected call wrote to its buffers\n", context);
      std::abort();
    }
    // Rejections are right only without a usable valid index, or in place.
    if (haveActive && !inPlace && ref(active, scratch)) synetk_fuzz::Mismatch(context, 2, 0, 1);
    return 0;
  }
  if (!haveActive || inPlace) synetk_fuzz::Mismatch(context, 3, 1, 0);  // should have been rejected
  std::vector<uint8_t> want;
  if (!ref(active, want)) synetk_fuzz::Mismatch(context, 4, 1, 0);  // out-of-range index accepted
  if (std::memcmp(dstBuf.data(), want.data(), want.size()) != 0) {
    for (size_t i = 0; i < want.size(); ++i)
      if (dstBuf[i] != want[i]) synetk_fuzz::Mismatch(context, i / es, dstBuf[i], want[i]);
  }
  if (std::memcmp(&dstBuf[dstN * es], &before[dstN * es], es) != 0) synetk_fuzz::Mismatch(context, dstN, 0, 0);
  return 0;
}
