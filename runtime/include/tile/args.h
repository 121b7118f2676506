//===- args.h - kernel argument packing for Kernel::launch ------*- C++ -*-===//
#pragma once

#include <cuda.h>

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tile/kernel_info.h"
#include "tile/target.h"

namespace tile {

template <class T> class DeviceBuffer;
class Tensor;

namespace detail {

// How one launch argument is passed: by value, as `type`.
template <class T, class Enable = void> struct ArgTraits {
  static_assert(std::is_trivially_copyable<T>::value,
                "kernel arguments must be trivially copyable scalars/structs, "
                "tile::DeviceBuffer<T> or CUdeviceptr");
  static_assert(!std::is_reference<T>::value, "unexpected reference");
  using type = T;
  static const T &convert(const T &v) { return v; }
  static constexpr ArgDesc::Kind kind = std::is_floating_point<T>::value ? ArgDesc::Kind::Float
                                        : std::is_integral<T>::value     ? ArgDesc::Kind::Integer
                                                                         : ArgDesc::Kind::Other;
  static constexpr ArgDesc desc() { return {kind, sizeof(T), ArgDesc::Kind::Other, 0}; }
};
// DeviceBuffer<T> is passed as its CUdeviceptr.
template <class T> struct ArgTraits<DeviceBuffer<T>> {
  using type = CUdeviceptr;
  static CUdeviceptr convert(const DeviceBuffer<T> &b) { return b.ptr(); }
  static constexpr ArgDesc desc() {
    return {ArgDesc::Kind::DeviceBuffer, sizeof(CUdeviceptr), ArgTraits<T>::kind, sizeof(T)};
  }
};

// A tile::Tensor travels as itself: Kernel::launch encodes its 128-byte map
// from the kernel info (tile/tensor_map.h) and passes that instead.
template <> struct ArgTraits<Tensor> {
  using type = Tensor;
  static const Tensor &convert(const Tensor &t) { return t; }
  static constexpr ArgDesc desc() {
    return {ArgDesc::Kind::Tensor, target::kTensorMapBytes, ArgDesc::Kind::Other, 0};
  }
};

} // namespace detail

// Owns one stable copy of every argument and the void* array cuLaunchKernelEx wants
// (kernelParams[i] points at the i-th copy). Neither copyable nor movable, so the
// pointers stay valid for the pack's whole life.
template <class... Args> class ArgPack {
public:
  static constexpr size_t kCount = sizeof...(Args);
  using Storage = std::tuple<typename detail::ArgTraits<Args>::type...>;

  explicit ArgPack(const Args &...args) : values_(detail::ArgTraits<Args>::convert(args)...) {
    fill(std::index_sequence_for<Args...>{});
  }
  ArgPack(const ArgPack &) = delete;
  ArgPack &operator=(const ArgPack &) = delete;

  void **data() { return ptrs_.data(); }
  static constexpr size_t size() { return kCount; }
  // Byte size of each argument as the kernel receives it, in order (a
  // tile::Tensor: its 128-byte map).
  static constexpr std::array<size_t, kCount + 1> sizes() {
    return {detail::ArgTraits<Args>::desc().size..., 0};
  }
  // How each argument is passed (kind, size, a DeviceBuffer's element), in order.
  static constexpr std::array<ArgDesc, kCount + 1> descriptors() {
    return {detail::ArgTraits<Args>::desc()..., ArgDesc{}};
  }
  template <size_t I> const auto &get() const { return std::get<I>(values_); }

private:
  template <size_t... I> void fill(std::index_sequence<I...>) {
    ptrs_ = {{static_cast<void *>(&std::get<I>(values_))..., nullptr}};
  }
  Storage values_;
  std::array<void *, kCount + 1> ptrs_{}; // +1: never zero-sized, null-terminated
};

} // namespace tile
