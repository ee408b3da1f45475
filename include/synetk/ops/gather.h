// Copyright synetk authors. SPDX-License-Identifier: MIT
// GatherElements: the public context class. Included by synetk.h after every
// target's kernels exist (HWY_ONCE); do not include directly.
#ifndef SYNETK_OPS_GATHER_H_
#define SYNETK_OPS_GATHER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "synetk/context.h"
#include "synetk/detail/check.h"
#include "synetk/detail/dispatch.h"
#include "synetk/range.h"

namespace synetk {
namespace detail {

// Throws for the first index of idx[n] (a tensor [outer, idxCount, inner])
// outside [-srcCount, srcCount), naming its position and value. Called only
// after the vectorized check failed, so speed does not matter here.
template <typename Index>
[[noreturn]] inline void FailGatherIndex(const char* layer, const Index* idx,
                                         size_t n, size_t idxCount, size_t inner,
                                         size_t srcCount) {
  const int64_t s = static_cast<int64_t>(srcCount);
  for (size_t j = 0; j < n; ++j) {
    const int64_t v = static_cast<int64_t>(idx[j]);
    if (v < -s || v >= s) {
      std::ostringstream param, expected;
      param << "idx[outer " << j / (idxCount * inner) << ", index " << (j / inner) % idxCount
            << ", inner " << j % inner << "]";
      expected << "an index in [" << -s << ", " << s << ") (srcCount = " << srcCount << ")";
      Fail(layer, param.str().c_str(), v, expected.str().c_str());
    }
  }
  Fail(layer, "idx", "out of range", "indices in [-srcCount, srcCount)");
}

}  // namespace detail
}  // namespace synetk

SYNETK_NAMESPACE_BEGIN

/// Byte-level interface of every GatherElements<T, Index> (the compatibility
/// layer holds contexts of run-time element and index types through it).
class GatherElementsAny : public Context {
 public:
  /// Whether the context was made for a constant index.
  /// \return The constructor's indexConst.
  virtual bool IndexConstMode() const = 0;
  /// GatherElements::SetIndex with the index given as bytes.
  /// \param idx DstSize() indices of the context's index type.
  /// \throws synetk::Error as GatherElements::SetIndex.
  virtual void SetIndexBytes(const void* idx) = 0;
  /// Bytes of analysed index data the context keeps.
  /// \return 0 before SetIndex and in non-constant mode.
  virtual size_t InternalBufferSize() const = 0;
  /// GatherElements::Forward over all outer items, with the tensors given
  /// as bytes.
  /// \param src SrcSize() elements of the context's element type.
  /// \param idx DstSize() indices of the context's index type; ignored (may
  ///   be null) after SetIndex.
  /// \param dst DstSize() elements of the context's element type.
  /// \throws synetk::Error as GatherElements::Forward.
  virtual void ForwardBytes(const void* src, const void* idx, void* dst) const = 0;
};

/// GatherElements over tensors viewed as src [outer..., srcCount, inner] and
/// idx, dst [outer..., idxCount, inner]:
///
///     k = idx[o, c, i] < 0 ? idx[o, c, i] + srcCount : idx[o, c, i]
///     dst[o, c, i] = src[o, k, i]
///
/// T: any trivially copyable type of 1, 2, 4 or 8 bytes (uint8_t,
/// hwy::bfloat16_t, float, double, user types): the gather moves bits.
/// Index: int32_t or int64_t. An index outside [-srcCount, srcCount) throws
/// synetk::Error naming its position and value; nothing is written then.
///
/// Constant-index mode (indexConst): SetIndex, usually called once,
/// validates the indices, removes the negative fix-up, narrows int64 to
/// int32 when srcCount allows, stores one slice when every outer item
/// repeats the same indices, and (inner > 1) finds rows whose `inner`
/// indices are all equal, which Forward then copies as contiguous runs.
/// InternalBufferSize reports the bytes kept. After SetIndex, Forward
/// ignores its idx argument (it may be null); without SetIndex, Forward
/// reads and checks the idx it is given, as in non-constant mode (SetIndex
/// is optional, as in the original).
///
/// Forward is const: parts of one call (or whole calls) may run on several
/// threads at once; SetIndex must not run at the same time as Forward.
///
/// \tparam T Element type: trivially copyable, 1, 2, 4 or 8 bytes.
/// \tparam Index int32_t or int64_t.
template <typename T, typename Index>
class GatherElements final : public GatherElementsAny {
  static_assert(std::is_trivially_copyable_v<T>, "GatherElements moves elements as bits");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                "GatherElements takes elements of 1, 2, 4 or 8 bytes");
  static_assert(std::is_same_v<Index, int32_t> || std::is_same_v<Index, int64_t>,
                "GatherElements takes int32_t or int64_t indices");

 public:
  /// The layer's name in synetk::Error messages.
  static constexpr const char* kLayer = "GatherElements";

  /// Makes a context for one tensor shape.
  /// \param outer outerSize outer dimensions (null allowed when outerSize
  ///   is 0); their product is the outer count (1 for none).
  /// \param outerSize Number of outer dimensions.
  /// \param srcCount Extent of the gathered axis in src (> 0, at most the
  ///   largest value of Index).
  /// \param inner Product of the dimensions after the gathered axis (> 0).
  /// \param idxCount Extent of the gathered axis in idx and dst (> 0).
  /// \param indexConst Constant-index mode (see SetIndex).
  /// \param indexUsers Accepted for compatibility with the original;
  ///   ignored.
  /// \throws synetk::Error for a null outer with outerSize > 0, an outer
  ///   dimension, srcCount, inner or idxCount of 0, srcCount above the
  ///   largest Index, or sizes whose product or byte count overflows.
  GatherElements(const size_t* outer, size_t outerSize, size_t srcCount, size_t inner,
                 size_t idxCount, bool indexConst = false, size_t indexUsers = 1)
      : srcCount_(srcCount), inner_(inner), idxCount_(idxCount), indexConst_(indexConst) {
    (void)indexUsers;
    using namespace detail;
    if (outerSize > 0) CheckNotNull(kLayer, "outer", outer);
    size_t count = 1;
    for (size_t k = 0; k < outerSize; ++k) {
      if (outer[k] == 0) {
        const std::string p = "outer[" + std::to_string(k) + "]";
        Fail(kLayer, p.c_str(), outer[k], "> 0");
      }
      count = CheckedProduct(kLayer, "outer", {count, outer[k]});
    }
    outer_ = count;
    CheckPositive(kLayer, "srcCount", srcCount);
    CheckPositive(kLayer, "inner", inner);
    CheckPositive(kLayer, "idxCount", idxCount);
    if (srcCount > static_cast<size_t>(std::numeric_limits<Index>::max())) {
      Fail(kLayer, "srcCount", srcCount, "at most the largest value of the index type");
    }
    srcSize_ = CheckedProduct(kLayer, "outer*srcCount*inner", {outer_, srcCount, inner});
    dstSize_ = CheckedProduct(kLayer, "outer*idxCount*inner", {outer_, idxCount, inner});
    CheckedBytes(kLayer, "outer*srcCount*inner", srcSize_, sizeof(T));
    CheckedBytes(kLayer, "outer*idxCount*inner", dstSize_, sizeof(T) > sizeof(Index) ? sizeof(T) : sizeof(Index));
  }

  /// The constructor above with the outer dimensions as a list.
  /// \param outer The outer dimensions ({} for none).
  /// \param srcCount Extent of the gathered axis in src (> 0).
  /// \param inner Product of the dimensions after the gathered axis (> 0).
  /// \param idxCount Extent of the gathered axis in idx and dst (> 0).
  /// \param indexConst Constant-index mode (see SetIndex).
  /// \throws synetk::Error as the constructor above.
  GatherElements(std::initializer_list<size_t> outer, size_t srcCount, size_t inner,
                 size_t idxCount, bool indexConst = false)
      : GatherElements(outer.begin(), outer.size(), srcCount, inner, idxCount, indexConst) {}

  /// \return The outer count: the product of the outer dimensions.
  size_t OuterCount() const { return outer_; }
  /// \return Elements of src: outer*srcCount*inner.
  size_t SrcSize() const { return srcSize_; }
  /// \return Elements of idx and of dst: outer*idxCount*inner.
  size_t DstSize() const { return dstSize_; }
  /// \return Whether the context was made in constant-index mode.
  bool IndexConst() const { return indexConst_; }
  /// \return Whether SetIndex has succeeded on this context.
  bool IndexSet() const { return indexSet_; }

  /// Constant-index mode only: validates and analyses idx, and keeps what
  /// Forward needs (see the class). A later call replaces the index. On
  /// error the context keeps its previous index, if any.
  /// \param idx DstSize() indices, each in [-srcCount, srcCount).
  /// \throws synetk::Error for a context made without indexConst, a null
  ///   idx, or an index outside [-srcCount, srcCount) (naming its position
  ///   and value).
  void SetIndex(const Index* idx) {
    using namespace detail;
    if (!indexConst_) Fail(kLayer, "indexConst", "false", "true (a constant-index context) for SetIndex");
    CheckNotNull(kLayer, "idx", idx);
    CheckIndices(idx, dstSize_, idx);
    const size_t slice = idxCount_ * inner_;
    std::vector<Index> fixed(dstSize_);
    for (size_t j = 0; j < dstSize_; ++j) {
      fixed[j] = idx[j] < 0 ? static_cast<Index>(idx[j] + static_cast<Index>(srcCount_)) : idx[j];
    }
    bool repeated = outer_ > 1;
    for (size_t o = 1; o < outer_ && repeated; ++o) {
      repeated = std::memcmp(fixed.data(), fixed.data() + o * slice, slice * sizeof(Index)) == 0;
    }
    const size_t kept = repeated ? 1 : outer_;
    const size_t rows = kept * idxCount_;
    std::vector<int64_t> rowIndex;
    bool allUniform = false;
    if (inner_ > 1) {
      rowIndex.resize(rows);
      allUniform = true;
      for (size_t r = 0; r < rows; ++r) {
        const Index* p = fixed.data() + r * inner_;
        bool uniform = true;
        for (size_t i = 1; i < inner_ && uniform; ++i) uniform = p[i] == p[0];
        rowIndex[r] = uniform ? static_cast<int64_t>(p[0]) : -1;
        allUniform &= uniform;
      }
    }
    const bool narrow = srcCount_ <= static_cast<size_t>(std::numeric_limits<int32_t>::max());
    idx32_.clear();
    idx64_.clear();
    rows32_.clear();
    rows64_.clear();
    const size_t keepIdx = allUniform ? 0 : kept * slice;
    if (narrow) {
      idx32_.assign(fixed.begin(), fixed.begin() + keepIdx);
      rows32_.assign(rowIndex.begin(), rowIndex.end());
    } else {
      idx64_.assign(fixed.begin(), fixed.begin() + keepIdx);
      rows64_.assign(rowIndex.begin(), rowIndex.end());
    }
    idx32_.shrink_to_fit();
    idx64_.shrink_to_fit();
    rows32_.shrink_to_fit();
    rows64_.shrink_to_fit();
    narrow_ = narrow;
    repeated_ = repeated;
    indexSet_ = true;
  }

  /// Bytes of analysed index data the context keeps.
  /// \return 0 before SetIndex and in non-constant mode.
  size_t InternalBufferSize() const override {
    return idx32_.size() * sizeof(int32_t) + rows32_.size() * sizeof(int32_t) +
           idx64_.size() * sizeof(int64_t) + rows64_.size() * sizeof(int64_t);
  }

  /// \return True when SetIndex found more than one outer item, all using
  ///   the same indices (one slice is kept); false before SetIndex.
  bool IndexRepeated() const { return repeated_; }
  /// \return True when SetIndex stored the indices as int32 (srcCount fits
  ///   in int32); false before SetIndex.
  bool IndexNarrowed() const { return indexSet_ && narrow_; }

  /// dst[o, c, i] = src[o, k, i] with k = idx[o, c, i], plus srcCount if
  /// negative (the class's formula).
  /// \param src Input, SrcSize() elements.
  /// \param idx DstSize() indices. After SetIndex it is ignored (may be
  ///   null); otherwise it is read, and the indices of the outer items in
  ///   `part` are checked.
  /// \param dst Output, DstSize() elements, disjoint from src and idx.
  /// \param part The outer items to compute.
  /// \throws synetk::Error (nothing written) for a null src or dst, dst
  ///   overlapping src, part.begin > part.end, and, without SetIndex, a null
  ///   idx, dst overlapping idx, or an index of the part outside
  ///   [-srcCount, srcCount) (naming its position and value).
  void Forward(const T* src, const Index* idx, T* dst, Range part = Range::All()) const {
    using namespace detail;
    CheckNotNull(kLayer, "src", src);
    CheckNotNull(kLayer, "dst", dst);
    const size_t srcBytes = srcSize_ * sizeof(T), dstBytes = dstSize_ * sizeof(T);
    CheckNoPartialOverlap(kLayer, "dst", dst, dstBytes, "src", src, srcBytes, false);
    ClampPart(kLayer, part, outer_);
    if (indexSet_) {
      if (narrow_) {
        Run<int32_t>(src, idx32_.empty() ? nullptr : idx32_.data(), rows32_, true, dst, part);
      } else {
        Run<int64_t>(src, idx64_.empty() ? nullptr : idx64_.data(), rows64_, true, dst, part);
      }
      return;
    }
    CheckNotNull(kLayer, "idx", idx);
    CheckNoPartialOverlap(kLayer, "dst", dst, dstBytes, "idx", idx, dstSize_ * sizeof(Index), false);
    const size_t slice = idxCount_ * inner_;
    CheckIndices(idx + part.begin * slice, (part.end - part.begin) * slice, idx);
    Run<Index>(src, idx, std::vector<Index>(), false, dst, part);
  }

  /// \return The constructor's indexConst.
  bool IndexConstMode() const override { return indexConst_; }
  /// SetIndex with idx given as bytes.
  /// \param idx DstSize() Index values.
  /// \throws synetk::Error as SetIndex.
  void SetIndexBytes(const void* idx) override { SetIndex(static_cast<const Index*>(idx)); }
  /// Forward over all outer items, with the tensors given as bytes.
  /// \param src SrcSize() T values.
  /// \param idx DstSize() Index values; ignored (may be null) after SetIndex.
  /// \param dst DstSize() T values.
  /// \throws synetk::Error as Forward.
  void ForwardBytes(const void* src, const void* idx, void* dst) const override {
    Forward(static_cast<const T*>(src), static_cast<const Index*>(idx), static_cast<T*>(dst));
  }

 private:
  // Checks idx[0, n); `all` (the whole index tensor) names a bad one.
  void CheckIndices(const Index* idx, size_t n, const Index* all) const {
    using Check = detail::GatherCheckCfg<Index>;
    if (!SYNETK_DISPATCH(GatherCheckKernel<Check>)(idx, n, static_cast<int64_t>(srcCount_))) {
      detail::FailGatherIndex(kLayer, all, dstSize_, idxCount_, inner_, srcCount_);
    }
  }

  template <typename I>
  void Run(const T* src, const I* idx, const std::vector<I>& rows, bool constant, T* dst,
           Range part) const {
    if (part.begin == part.end) return;
    detail::GatherArgs<I> a;
    a.src = reinterpret_cast<const uint8_t*>(src);
    a.dst = reinterpret_cast<uint8_t*>(dst);
    a.idx = idx;
    a.idxOuterStride = (constant && repeated_) ? 0 : idxCount_ * inner_;
    a.rowIndex = rows.empty() ? nullptr : rows.data();
    a.rowOuterStride = repeated_ ? 0 : idxCount_;
    a.outer = outer_;
    a.srcCount = srcCount_;
    a.inner = inner_;
    a.idxCount = idxCount_;
    a.begin = part.begin;
    a.end = part.end;
    a.nonNegative = constant;
    using Cfg = detail::GatherCfg<sizeof(T), I>;
    SYNETK_DISPATCH(GatherElementsKernel<Cfg>)(a);
  }

  size_t outer_ = 1, srcCount_, inner_, idxCount_;
  size_t srcSize_ = 0, dstSize_ = 0;
  bool indexConst_;
  bool indexSet_ = false, narrow_ = false, repeated_ = false;
  std::vector<int32_t> idx32_, rows32_;
  std::vector<int64_t> idx64_, rows64_;
};

SYNETK_NAMESPACE_END

#endif  // SYNETK_OPS_GATHER_H_
