// lqsd's request handling for callers in the same process (see local_caller.h).

#include "server/local_caller.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>

#include "server/actions.h"
#include "server/regions.h"
#include "server/router.h"

namespace lqsd {
namespace {

// One call's executor: the closures its answer posts run on the caller's
// thread, which waits here until the answer arrives.
class CallWaiter {
 public:
  void Post(std::function<void()> fn) {
    std::lock_guard<std::mutex> lock(mu_);
    posted_.push_back(std::move(fn));
    cv_.notify_one();
  }

  void Respond(HttpResponse response) {
    std::lock_guard<std::mutex> lock(mu_);
    if (response_.has_value()) return;
    response_ = std::move(response);
    cv_.notify_one();
  }

  // Runs posted closures until the answer arrives; returns it.
  HttpResponse Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      while (!posted_.empty()) {
        std::function<void()> fn = std::move(posted_.front());
        posted_.pop_front();
        lock.unlock();
        fn();
        lock.lock();
      }
      if (response_.has_value()) return std::move(*response_);
      cv_.wait(lock, [&] { return response_.has_value() || !posted_.empty(); });
    }
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> posted_;
  std::optional<HttpResponse> response_;
};

}  // namespace

struct LocalCaller::State {
  State(lqs::Broker* broker, const LocalCallerConfig& config)
      : regions(broker, Regions::Config{}),
        actions(config.account_id),
        router(&actions, RouterFor(config, &regions)),
        host(HostOf(config.endpoint_url)) {}

  static RouterConfig RouterFor(const LocalCallerConfig& config, Regions* regions) {
    RouterConfig out;
    out.account_id = config.account_id;
    out.public_url = config.endpoint_url;
    out.regions = regions;
    return out;
  }

  // "localhost:9324" out of "http://localhost:9324/...".
  static std::string HostOf(std::string_view url) {
    const size_t scheme = url.find("://");
    if (scheme != std::string_view::npos) url.remove_prefix(scheme + 3);
    return std::string(url.substr(0, url.find('/')));
  }

  Regions regions;
  Actions actions;
  Router router;
  const std::string host;
};

LocalCaller::LocalCaller(lqs::Broker* broker, LocalCallerConfig config)
    : state_(std::make_unique<State>(broker, config)) {}

LocalCaller::~LocalCaller() = default;

HttpResponse LocalCaller::Call(std::string_view action, std::string json_input) {
  HttpRequest request;
  request.method = "POST";
  request.target = "/";
  request.headers = {
      {"host", state_->host},
      {"content-type", "application/x-amz-json-1.0"},
      {"x-amz-target", "AmazonSQS." + std::string(action)},
  };
  request.body = std::move(json_input);
  request.remote = "in-process";
  return Handle(request);
}

HttpResponse LocalCaller::Handle(const HttpRequest& request) {
  // The waiter outlives every closure the router keeps: the router answers
  // exactly once, and nothing is posted after the answer.
  auto waiter = std::make_shared<CallWaiter>();
  state_->router.Handle(
      request, [waiter](std::function<void()> fn) { waiter->Post(std::move(fn)); },
      [waiter](HttpResponse response) { waiter->Respond(std::move(response)); });
  return waiter->Wait();
}

}  // namespace lqsd
