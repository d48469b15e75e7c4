// Replicas as MPI ranks: replica r runs on rank r of MPI_COMM_WORLD, and all_reduce gathers
// its group's operands from their ranks and folds them in increasing replica id, exactly as
// the in-process run does (interp/replica_loop.hpp), so results are the same bit for bit.
// Values travel losslessly: IEEE and bound scalars as their bytes, exact, interval and mpfr
// scalars as the domain's text, which parse() reads back to the same value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "interp/replica_loop.hpp"

namespace shlo::mpi {

/// MPI_Init on construction, MPI_Finalize on destruction: one per process, around the run.
class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Ends every rank (after a failure on one, so that the others do not wait forever).
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0, size_ = 1;
};

/// A value as bytes and back (lossless).
template <class D>
std::string serialize(const D& d, const Value<D>& v);
template <class D>
Value<D> deserialize(const D& d, std::string_view bytes);

/// One replica per rank: this process holds replica `rank`; R is the number of ranks.
template <class D>
class Exchange final : public ReplicaExchange<Value<D>> {
 public:
  explicit Exchange(const D& d, const Session& session) : d_(d), rank_(session.rank()), size_(session.size()) {}
  int replicas() const override { return size_; }
  std::vector<int> local_replicas() const override { return {rank_}; }
  std::vector<Value<D>> all_reduce(const std::vector<std::vector<std::int64_t>>& groups, const std::vector<const Value<D>*>& local,
                                   const typename ReplicaExchange<Value<D>>::Fold& fold) override;
  /// Every rank's values, [replica][i], at rank 0; {} on the other ranks.
  std::vector<std::vector<Value<D>>> gather_at_root(const std::vector<Value<D>>& mine) const { return collect(mine, 0); }
  /// Every rank's values, [replica][i], on every rank.
  std::vector<std::vector<Value<D>>> gather_everywhere(const std::vector<Value<D>>& mine) const { return collect(mine, -1); }

 private:
  std::vector<std::vector<Value<D>>> collect(const std::vector<Value<D>>& mine, int root) const;
  const D& d_;
  int rank_, size_;
};

}  // namespace shlo::mpi
