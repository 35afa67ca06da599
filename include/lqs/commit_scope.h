// lqs/commit_scope.h — group commit for a thread that serves many requests.
//
// An event loop answers one request after another on one thread. Without
// help each call that changes state writes the log on its own (one write(2)
// per call; with Durability::kFsync, one fsync per send). Inside a
// CommitScope the calls of this thread return before their changes are
// durable, and Commit() makes all of them durable at once: the loop handles
// what is ready, commits, and only then answers. That is how lqsd works.
//
//   lqs::CommitScope scope(broker);            // this thread, this Broker
//   for (;;) {
//     ... handle every ready request (SendMessage, ReceiveMessage, ...) ...
//     if (!scope.Commit().ok()) { ... answer none of them ... }
//     ... now send the answers ...
//   }
//
// The contract, for calls made inside the scope:
// - A change is visible to every thread at once (a message sent can be
//   received before Commit), but it is durable only after a Commit() that
//   returned OK. A crash before that loses it whole, as if the call had not
//   been made: each call's change is kept or lost as a unit, never in part.
// - So do not tell anyone outside the process that a call succeeded (answer
//   a request, acknowledge a job) before Commit() returns OK.
// - Calls from other threads are not deferred.
//
// Needs a Broker opened with Options::deferred_commits; otherwise the scope
// changes nothing and Commit() returns OK at once.
//
// Thread safety: a CommitScope belongs to the thread that made it: make,
// Commit() and destroy it there, one per Broker and thread at a time (a
// thread may hold scopes on several Brokers, each committed on its own).
// The Broker must outlive it.

#ifndef LQS_COMMIT_SCOPE_H_
#define LQS_COMMIT_SCOPE_H_

#include "lqs/broker.h"
#include "lqs/status.h"

namespace lqs {

class CommitScope {
 public:
  explicit CommitScope(Broker* broker) : broker_(broker) { broker_->DeferCommits(true); }
  // Commits what is still pending (an error is lost: call Commit() first to
  // see it) and ends the deferral.
  ~CommitScope() {
    broker_->Commit().IgnoreError();
    broker_->DeferCommits(false);
  }
  CommitScope(const CommitScope&) = delete;
  CommitScope& operator=(const CommitScope&) = delete;

  // Makes every change of this thread's calls so far durable. Errors:
  // kIOError (see Broker::Commit).
  Status Commit() { return broker_->Commit(); }

 private:
  Broker* broker_;
};

}  // namespace lqs

#endif  // LQS_COMMIT_SCOPE_H_
