#include "interp/mpi/mpi_exchange.hpp"

#include <mpi.h>

#include <climits>
#include <cstring>
#include <type_traits>

#include "interp/bound/bound.hpp"
#include "interp/domain/domain_spec.hpp"

namespace shlo::mpi {

namespace {

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

template <class T>
void put(std::string& out, const T& x) {
  out.append(reinterpret_cast<const char*>(&x), sizeof x);
}

// Reads from a byte string, refusing to run past its end.
struct Reader {
  std::string_view bytes;
  std::size_t at = 0;
  std::string_view take(std::size_t n) {
    if (bytes.size() - at < n) throw std::runtime_error("MPI: a received value is truncated");
    const auto s = bytes.substr(at, n);
    at += n;
    return s;
  }
  template <class T>
  T get() {
    T x;
    std::memcpy(&x, take(sizeof x).data(), sizeof x);
    return x;
  }
};

// Concatenated length-prefixed strings, and back.
std::string pack(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    put(out, static_cast<std::uint64_t>(p.size()));
    out += p;
  }
  return out;
}
std::vector<std::string> unpack(std::string_view bytes) {
  Reader r{bytes};
  std::vector<std::string> parts;
  while (r.at < bytes.size()) parts.emplace_back(r.take(r.get<std::uint64_t>()));
  return parts;
}

// Every rank's bytes, in rank order, on every rank (root < 0) or at rank `root`.
std::vector<std::string> gather(const std::string& mine, int size, int root) {
  const long long n = static_cast<long long>(mine.size());
  std::vector<long long> sizes(static_cast<std::size_t>(size));
  if (root < 0) check(MPI_Allgather(&n, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD), "MPI_Allgather");
  else check(MPI_Gather(&n, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, root, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  long long total = 0;
  for (int r = 0; r < size; ++r) {
    displs[static_cast<std::size_t>(r)] = static_cast<int>(total);
    counts[static_cast<std::size_t>(r)] = static_cast<int>(sizes[static_cast<std::size_t>(r)]);
    total += sizes[static_cast<std::size_t>(r)];
  }
  if (total > INT_MAX) throw std::runtime_error("MPI: more than 2 GiB to gather in one all_reduce (not supported)");
  std::string all(static_cast<std::size_t>(total), '\0');
  if (root < 0)
    check(MPI_Allgatherv(mine.data(), static_cast<int>(n), MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Allgatherv");
  else
    check(MPI_Gatherv(mine.data(), static_cast<int>(n), MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, root, MPI_COMM_WORLD),
          "MPI_Gatherv");
  std::vector<std::string> out;
  for (int r = 0; r < size; ++r) out.push_back(all.substr(static_cast<std::size_t>(displs[static_cast<std::size_t>(r)]),
                                                          static_cast<std::size_t>(counts[static_cast<std::size_t>(r)])));
  return out;
}

}  // namespace

Session::Session() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) check(MPI_Init(nullptr, nullptr), "MPI_Init");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

Session::~Session() { MPI_Finalize(); }

void Session::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

template <class D>
std::string serialize(const D& d, const Value<D>& v) {
  using S = typename D::Scalar;
  std::string out;
  // The kind of value: 0 domain scalars, 1 predicates (one byte each), 2 integers (their 64-bit
  // patterns, which the instruction's element type reads).
  const bool pred = std::holds_alternative<PredTensor>(v), integer = std::holds_alternative<IntTensor>(v);
  put(out, static_cast<std::uint8_t>(pred ? 1 : integer ? 2 : 0));
  const Shape& shape = std::visit([](const auto& t) -> const Shape& { return t.shape; }, v);
  put(out, static_cast<std::uint64_t>(shape.size()));
  for (auto x : shape) put(out, x);
  if (pred) {
    const auto& p = std::get<PredTensor>(v).data;
    out.append(reinterpret_cast<const char*>(p.data()), p.size());
    return out;
  }
  if (integer) {
    const auto& bits = std::get<IntTensor>(v).data;
    out.append(reinterpret_cast<const char*>(bits.data()), bits.size() * sizeof(std::uint64_t));
    return out;
  }
  const auto& data = std::get<Tensor<S>>(v).data;
  if constexpr (std::is_trivially_copyable_v<S>) {
    out.append(reinterpret_cast<const char*>(data.data()), data.size() * sizeof(S));
  } else {
    for (const auto& x : data) {
      const std::string text = d.to_string(x);
      put(out, static_cast<std::uint32_t>(text.size()));
      out += text;
    }
  }
  return out;
}

template <class D>
Value<D> deserialize(const D& d, std::string_view bytes) {
  using S = typename D::Scalar;
  Reader r{bytes};
  const auto kind = r.get<std::uint8_t>();
  Shape shape(r.get<std::uint64_t>());
  for (auto& x : shape) x = r.get<std::int64_t>();
  const auto n = static_cast<std::size_t>(num_elements(shape));
  if (kind == 1) {
    const auto raw = r.take(n);
    return PredTensor(shape, std::vector<Pred>(raw.begin(), raw.end()));
  }
  if (kind == 2) {
    std::vector<std::uint64_t> bits(n);
    std::memcpy(bits.data(), r.take(n * sizeof(std::uint64_t)).data(), n * sizeof(std::uint64_t));
    return IntTensor(shape, std::move(bits));
  }
  std::vector<S> data;
  if constexpr (std::is_trivially_copyable_v<S>) {
    data.resize(n);
    std::memcpy(data.data(), r.take(n * sizeof(S)).data(), n * sizeof(S));
  } else {
    data.reserve(n);
    for (std::size_t i = 0; i < n; ++i) data.push_back(d.parse(r.take(r.get<std::uint32_t>())));
  }
  return Tensor<S>(shape, std::move(data));
}

template <class D>
std::vector<Value<D>> Exchange<D>::all_reduce(const std::vector<std::vector<std::int64_t>>& groups, const std::vector<const Value<D>*>& local,
                                              const typename ReplicaExchange<Value<D>>::Fold& fold) {
  // Every rank sends its operand to every rank (one collective all ranks take part in), then
  // each folds its own group's in increasing replica id.
  const auto received = gather(serialize(d_, *local[0]), size_, -1);
  for (const auto& group : groups) {
    if (std::find(group.begin(), group.end(), rank_) == group.end()) continue;
    std::vector<Value<D>> others;
    others.reserve(group.size());
    std::vector<const Value<D>*> members;
    for (auto r : group) {
      if (r == rank_) {
        members.push_back(local[0]);
        continue;
      }
      others.push_back(deserialize(d_, received[static_cast<std::size_t>(r)]));
      members.push_back(&others.back());
    }
    std::vector<Value<D>> out;
    out.push_back(fold(members));
    return out;
  }
  throw OpError("replica " + std::to_string(rank_) + " is in no replica group");
}

template <class D>
std::vector<std::vector<Value<D>>> Exchange<D>::collect(const std::vector<Value<D>>& mine, int root) const {
  std::vector<std::string> parts;
  for (const auto& v : mine) parts.push_back(serialize(d_, v));
  const auto received = gather(pack(parts), size_, root);
  std::vector<std::vector<Value<D>>> all;
  if (root >= 0 && rank_ != root) return all;
  for (const auto& bytes : received) {
    all.emplace_back();
    for (const auto& part : unpack(bytes)) all.back().push_back(deserialize(d_, part));
  }
  return all;
}

#define SHLO_INSTANTIATE_MPI(D)                                              \
  template std::string serialize(const D&, const Value<D>&);                 \
  template Value<D> deserialize(const D&, std::string_view);                 \
  template class Exchange<D>;
SHLO_INSTANTIATE_MPI(ExactDomain)
SHLO_INSTANTIATE_MPI(IntervalDomain)
SHLO_INSTANTIATE_MPI(MpfrDomain)
SHLO_INSTANTIATE_MPI(F64Domain)
SHLO_INSTANTIATE_MPI(F32Domain)
SHLO_INSTANTIATE_MPI(BoundDomain)

}  // namespace shlo::mpi
