// A tensor of one domain's scalars: a shape and the elements in row-major order.
//
// Plain std::vector storage: every kernel owns its loops and its summation order, and
// arbitrary-precision scalars never meet a library's expression machinery.
#pragma once

#include <cstdint>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace shlo {

using Shape = std::vector<std::int64_t>;

/// Product of the dimensions (1 for a scalar); throws on a negative dimension or overflow.
std::int64_t num_elements(const Shape& shape);
/// "128x10", or "scalar" for rank 0.
std::string shape_to_string(const Shape& shape);
/// Row-major strides in elements.
std::vector<std::int64_t> row_major_strides(const Shape& shape);

/// Storage blocks of this size or more come from the storage pool, once it is enabled.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// `bytes` of tensor storage (throws std::bad_alloc). Once enable_storage_pool has been called,
/// a block of kHugePageBytes or more is whole huge pages from the pool (interp/storage_pool.cpp):
/// mappings the kernel is asked to back with transparent huge pages, where it offers them, so
/// that first writes fault 2 MiB at a time instead of 4 KiB (on a virtual machine a fault costs
/// microseconds: a third of a short f64 run), and freed blocks are kept for the next tensor.
/// Otherwise, and for smaller blocks, plain operator new.
void* allocate_storage_bytes(std::size_t bytes);
/// Frees a block from allocate_storage_bytes of the same `bytes`.
void free_storage_bytes(void* block, std::size_t bytes) noexcept;
/// Large storage from the pool from now on. The pool keeps the peak of the large blocks live at
/// once until the process exits: for the shlo command (keep_freed_memory_for_reuse), not for a
/// library's host process.
void enable_storage_pool();
bool storage_pool_enabled();

/// std::allocator, except that an element constructed without a value is default-initialised
/// rather than value-initialised (for float and double, left indeterminate instead of zeroed),
/// and that its blocks come from allocate_storage_bytes (large ones on huge pages).
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind { using other = DefaultInitAllocator<U>; };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocate_storage_bytes(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { free_storage_bytes(p, n * sizeof(T)); }
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) { ::new (static_cast<void*>(p)) U; }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) { ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...); }
};

/// Scalars whose tensors take their storage from allocate_storage_bytes: float and double, and
/// scalars with a placeholder state (BigInterval, whose headers alone are 128 MiB for a
/// 128x16x32x32 tensor: from glibc, a fresh mapping per op, faulted in on one thread).
template <class S>
inline constexpr bool kStorageFromPool = std::is_floating_point_v<S> || requires { S::placeholder(); };

/// A tensor's element storage. For float and double, `Storage<S>(n)` (and `resize`) leave the
/// elements indeterminate: an op's output is then first written, and its pages first touched,
/// by the threads that compute it, instead of being zero-filled on one thread before (issue
/// 13, docs/measurements.md "All cores"). Code that reads before it writes asks for a value:
/// `Storage<S>(n, S{})`. Every other scalar type keeps std::vector's value-initialisation
/// (BigInterval's storage comes from the pool too, but its elements are constructed as before:
/// for a class with a default constructor, default- and value-initialisation both call it).
template <class S>
using Storage = std::vector<S, std::conditional_t<kStorageFromPool<S>, DefaultInitAllocator<S>, std::allocator<S>>>;

template <class S>
struct Tensor {
  Shape shape;
  Storage<S> data;

  Tensor() = default;
  Tensor(Shape s, const S& fill) : shape(std::move(s)), data(static_cast<std::size_t>(num_elements(shape)), fill) {}
  Tensor(Shape s, Storage<S> d) : shape(std::move(s)), data(std::move(d)) { check_size(); }
  /// From a plain vector where that is another type (float, double, intervals): a copy of each
  /// element, or from an rvalue a move of each (an interval's limbs change hands).
  template <class V>
    requires(std::is_same_v<std::remove_cvref_t<V>, std::vector<S>> && !std::is_same_v<std::remove_cvref_t<V>, Storage<S>>)
  Tensor(Shape s, V&& d) : shape(std::move(s)) {
    if constexpr (std::is_rvalue_reference_v<V&&>)
      data.assign(std::make_move_iterator(d.begin()), std::make_move_iterator(d.end()));
    else
      data.assign(d.begin(), d.end());
    check_size();
  }
  /// The elements as a plain vector (a copy): for code that exchanges them with other libraries.
  std::vector<S> to_vector() const { return {data.begin(), data.end()}; }
  std::int64_t rank() const { return static_cast<std::int64_t>(shape.size()); }
  std::int64_t size() const { return static_cast<std::int64_t>(data.size()); }
  S& operator[](std::int64_t i) { return data[static_cast<std::size_t>(i)]; }
  const S& operator[](std::int64_t i) const { return data[static_cast<std::size_t>(i)]; }
  /// Element at a multi-index (row-major), bounds-checked.
  const S& at(const std::vector<std::int64_t>& index) const { return data.at(flat_index(index)); }
  S& at(const std::vector<std::int64_t>& index) { return data.at(flat_index(index)); }

  void check_size() const {
    if (static_cast<std::int64_t>(data.size()) != num_elements(shape))
      throw std::invalid_argument("tensor of shape " + shape_to_string(shape) + " needs " +
                                  std::to_string(num_elements(shape)) + " elements, got " +
                                  std::to_string(data.size()));
  }

  std::size_t flat_index(const std::vector<std::int64_t>& index) const {
    if (index.size() != shape.size()) throw std::out_of_range("tensor index of wrong rank");
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (index[d] < 0 || index[d] >= shape[d]) throw std::out_of_range("tensor index out of range");
      flat = flat * shape[d] + index[d];
    }
    return static_cast<std::size_t>(flat);
  }
};

}  // namespace shlo
