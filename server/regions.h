// server/regions.h — which database serves a region.
//
// SQS keeps each region's queues apart: the same queue name in us-east-1 and
// eu-west-1 names two queues, and ListQueues in one region shows none of the
// other's. lqsd has one endpoint for all regions, so a request's region is
// the one it names (the router decides: the queue URL's region, else the
// region the request is signed for, else the default region) and Regions
// gives the Broker that holds that region's queues:
//
//  - the default region (the region of the Broker lqsd was started with,
//    `--region`) is served by that Broker, on the database directory lqsd was
//    given;
//  - every other region has a database of its own, <root>/<region>, opened
//    with the default Broker's options (the region changed) the first time a
//    request for it arrives, and kept open until CloseAll().
//
// Single-region mode (no root, or `--single-region`): every region is served
// by the default Broker, as if every request named the default region.
//
// Region names are what a client puts into its credential scope, so they are
// checked (lqs::wire::IsRegionName, wire/region_name.h) before they become a
// directory name. At most
// Config::max_regions regions are open at once (the default one included):
// each is a RocksDB instance with its own memtables, cache and threads.
//
// Errors from Get(): kInvalidParameterValue (not a region name), kOverLimit
// (max_regions are open), kClosed (after CloseAll()), or the Status of
// Broker::Open (an I/O error, a locked directory).
//
// Ownership: the default Broker is borrowed (it must outlive Regions; the
// caller closes it); the other Brokers are owned, closed by CloseAll() (or
// the destructor) and freed by the destructor, so a pointer from Get() or
// OpenRegions() stays valid as long as Regions lives.
//
// Group commit (lqs/commit_scope.h) over every region: a thread that called
// DeferCommitsOnThisThread() defers its calls on the default Broker at once
// and on each other region's Broker from its first Get() of it on;
// CommitThisThread() makes all of them durable, one log write per region
// it deferred on; EndDeferralOnThisThread() commits and ends the deferral.
// lqsd's I/O threads do this, so that a round of requests is made durable
// before it is answered whatever regions its requests went to.
//
// Thread safety: every method may be called from any thread. Get() for the
// default region takes no lock; opening a region holds a mutex that other
// non-default lookups wait on. The deferral methods act on the calling
// thread's own state; a thread defers for one Regions at a time.

#ifndef LQS_SERVER_REGIONS_H_
#define LQS_SERVER_REGIONS_H_

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lqs/broker.h"
#include "lqs/status.h"

namespace lqsd {

class Regions {
 public:
  struct Config {
    // Directory of the other regions' databases; empty: single-region mode.
    std::string root;
    size_t max_regions = 32;
    // Called (outside any lock, on the thread that opened it) after a region
    // other than the default one was opened: its name and directory.
    std::function<void(const std::string& region, const std::string& path)> on_open;
  };

  Regions(lqs::Broker* default_broker, Config config);
  ~Regions();
  Regions(const Regions&) = delete;
  Regions& operator=(const Regions&) = delete;

  const std::string& default_region() const { return default_region_; }
  lqs::Broker* default_broker() const { return default_broker_; }
  bool multi_region() const { return !config_.root.empty(); }

  // The Broker serving `region` (opened on first use). Never nullptr when OK.
  lqs::StatusOr<lqs::Broker*> Get(std::string_view region);

  // See "Group commit" above. CommitThisThread() returns the first error
  // (the other Brokers are still committed) and is OK without deferral.
  void DeferCommitsOnThisThread();
  lqs::Status CommitThisThread();
  void EndDeferralOnThisThread();

  // The default region first, then the open ones by name.
  std::vector<std::pair<std::string, lqs::Broker*>> OpenRegions() const;

  // Closes the Brokers Regions opened (not the default one): later Get()s of
  // other regions fail with kClosed, and calls on the Brokers already handed
  // out fail with kClosed (they stay allocated until Regions is destroyed).
  // Returns the first error; later calls return OK.
  lqs::Status CloseAll();

 private:
  lqs::Broker* const default_broker_;
  const std::string default_region_;
  const Config config_;
  mutable std::mutex mu_;
  bool closed_ = false;
  std::map<std::string, std::unique_ptr<lqs::Broker>, std::less<>> others_;

  // `broker`, deferred on the calling thread first if it defers for this.
  lqs::Broker* DeferredHere(lqs::Broker* broker) const;
};

}  // namespace lqsd

#endif  // LQS_SERVER_REGIONS_H_
