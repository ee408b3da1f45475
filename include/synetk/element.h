// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_ELEMENT_H_
#define SYNETK_ELEMENT_H_

#include <cstdint>
#include <type_traits>

#include <hwy/base.h>

namespace synetk {

/// How an element type is stored, as far as the kernels care. Float layers
/// compute in fp32; an element type only says how its values load into fp32
/// lanes and store back.
enum class Encoding {
  kFloat32,   ///< IEEE binary32
  kBFloat16,  ///< upper half of a binary32; stores round to nearest even
  kFloat16,   ///< IEEE binary16; stores round to nearest even
  kUint8,     ///< unsigned bytes (pooling max, quantization)
  kInt8,      ///< signed bytes (pooling max, quantization)
  kCodec,     ///< user type converted by scalar ToFloat / FromFloat
};

/// The customisation point for element types.
///
/// Built in: float, hwy::bfloat16_t, hwy::float16_t, uint8_t, int8_t. A
/// specialisation has `static constexpr Encoding kEncoding` (and the built-in
/// ones a `kName` for messages and benchmarks).
///
/// A user type has two ways in:
///  1. Same bits as a built-in type (a struct wrapping a bfloat16 pattern,
///     say): inherit its traits,
///
///         template <> struct synetk::ElementTraits<MyBf16>
///             : synetk::ElementTraits<hwy::bfloat16_t> {};
///
///     The kernels then load and store it with the built-in vector code
///     (its size must match and it must be trivially copyable; checked by
///     static_assert).
///  2. Any other encoding: give two scalar conversions,
///
///         template <> struct synetk::ElementTraits<MyFixed> {
///           static constexpr Encoding kEncoding = Encoding::kCodec;
///           static float ToFloat(MyFixed v);
///           static MyFixed FromFloat(float f);
///         };
///
///     The kernels convert a vector's worth of elements through a small
///     aligned buffer; the arithmetic stays vectorized. Max pooling needs a
///     built-in encoding (it compares stored bits).
///
/// \tparam T The element type. Not defined for other types: an unsupported
///   type fails to compile.
template <typename T>
struct ElementTraits;  // not defined: an unsupported type fails to compile

/// IEEE binary32.
template <>
struct ElementTraits<float> {
  static constexpr Encoding kEncoding = Encoding::kFloat32;  ///< Stored as binary32.
  static constexpr const char* kName = "f32";  ///< Short name.
};
/// bfloat16: computed in fp32, stored rounded to nearest even.
template <>
struct ElementTraits<hwy::bfloat16_t> {
  static constexpr Encoding kEncoding = Encoding::kBFloat16;  ///< Stored as the upper half of a binary32.
  static constexpr const char* kName = "bf16";  ///< Short name.
};
/// IEEE binary16: computed in fp32, stored rounded to nearest even.
template <>
struct ElementTraits<hwy::float16_t> {
  static constexpr Encoding kEncoding = Encoding::kFloat16;  ///< Stored as binary16.
  static constexpr const char* kName = "f16";  ///< Short name.
};
/// Unsigned bytes (max pooling, quantization).
template <>
struct ElementTraits<uint8_t> {
  static constexpr Encoding kEncoding = Encoding::kUint8;  ///< Stored as an unsigned byte.
  static constexpr const char* kName = "u8";  ///< Short name.
};
/// Signed bytes (max pooling, quantization).
template <>
struct ElementTraits<int8_t> {
  static constexpr Encoding kEncoding = Encoding::kInt8;  ///< Stored as a signed byte.
  static constexpr const char* kName = "i8";  ///< Short name.
};

namespace detail {

template <Encoding E>
struct BuiltinOf;
template <>
struct BuiltinOf<Encoding::kFloat32> {
  using type = float;
};
template <>
struct BuiltinOf<Encoding::kBFloat16> {
  using type = hwy::bfloat16_t;
};
template <>
struct BuiltinOf<Encoding::kFloat16> {
  using type = hwy::float16_t;
};
template <>
struct BuiltinOf<Encoding::kUint8> {
  using type = uint8_t;
};
template <>
struct BuiltinOf<Encoding::kInt8> {
  using type = int8_t;
};

// Element types whose values the float layers can hold.
template <typename T>
inline constexpr bool kIsFloatElement =
    ElementTraits<T>::kEncoding == Encoding::kFloat32 ||
    ElementTraits<T>::kEncoding == Encoding::kBFloat16 ||
    ElementTraits<T>::kEncoding == Encoding::kFloat16 ||
    ElementTraits<T>::kEncoding == Encoding::kCodec;

// A user type that borrows a built-in encoding must have its layout.
template <typename T>
constexpr bool CheckElementLayout() {
  constexpr Encoding e = ElementTraits<T>::kEncoding;
  if constexpr (e != Encoding::kCodec) {
    using B = typename BuiltinOf<e>::type;
    static_assert(sizeof(T) == sizeof(B),
                  "ElementTraits<T> borrows an encoding whose size differs");
    static_assert(std::is_trivially_copyable_v<T>,
                  "element types must be trivially copyable");
  }
  return true;
}

}  // namespace detail
}  // namespace synetk

#endif  // SYNETK_ELEMENT_H_
