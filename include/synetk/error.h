// Copyright synetk authors. SPDX-License-Identifier: MIT
#ifndef SYNETK_ERROR_H_
#define SYNETK_ERROR_H_

#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace synetk {

/// Thrown for every input the library rejects, before anything is written.
/// The message always reads
///
///     <Layer>: <parameter> = <value>: expected <what>
///
/// so that an engine can log it as is. Derives from std::invalid_argument
/// because every rejection is about an argument the caller passed.
class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

namespace detail {

template <typename V>
[[noreturn]] inline void Fail(const char* layer, const char* param,
                              const V& value, const char* expected) {
  std::ostringstream os;
  if constexpr (std::is_pointer_v<V>) {
    if (value == nullptr) {
      os << layer << ": " << param << " = null: expected " << expected;
      throw Error(os.str());
    }
    os << layer << ": " << param << " = "
       << static_cast<const void*>(value) << ": expected " << expected;
  } else if constexpr (sizeof(V) == 1 && std::is_integral_v<V>) {
    os << layer << ": " << param << " = " << static_cast<int>(value)
       << ": expected " << expected;
  } else if constexpr (std::is_floating_point_v<V>) {
    // Every NaN as "nan": the printed sign of a NaN depends on how the
    // compiler materialised it.
    os << layer << ": " << param << " = ";
    if (value != value) {
      os << "nan";
    } else {
      os << value;
    }
    os << ": expected " << expected;
  } else {
    os << layer << ": " << param << " = " << value << ": expected "
       << expected;
  }
  throw Error(os.str());
}

}  // namespace detail
}  // namespace synetk

#endif  // SYNETK_ERROR_H_
