// server/init_file.h — lqsd --init FILE: queues created at startup, as
// ElasticMQ's `queues {}` block creates them.
//
// The file is JSON:
//
//   {"queues": [
//     {"name": "jobs-dlq"},
//     {"name": "jobs",
//      "attributes": {"VisibilityTimeout": 60,
//                     "RedrivePolicy": {"deadLetterTargetQueue": "jobs-dlq",
//                                       "maxReceiveCount": 5}},
//      "tags": {"team": "core"}},
//     {"name": "orders.fifo", "attributes": {"ContentBasedDeduplication": true}}]}
//
// - The top level has only "queues"; a queue has "name" (required),
//   "attributes" and "tags" (objects); any other key is an error.
// - Attribute values are strings, or numbers and booleans (written as SQS
//   writes them: 60, true). RedrivePolicy, RedriveAllowPolicy and Policy may
//   be JSON objects or strings holding JSON. A RedrivePolicy names its
//   dead-letter queue by name (deadLetterTargetQueue) or by ARN
//   (deadLetterTargetArn, which must be of lqsd's default region and account).
// - A name ending in ".fifo" is a FIFO queue (FifoQueue=true is implied);
//   FifoQueue=true without it is an error, as in CreateQueue.
// - Every queue is in lqsd's default region (its --region, the --data
//   database).
//
// The contract:
// - Everything is checked before anything is created (ParseInitFile, then
//   InitPlan::Check against the open database): JSON syntax (with line and
//   column), unknown keys, queue names, attribute values and tags (with the
//   library's own CreateQueue rules, lib/api/queue_config.h), duplicate
//   names, a dead-letter queue that is neither in the file nor in the
//   database, a dead-letter queue of the other type or whose
//   RedriveAllowPolicy refuses the source, and redrive cycles. Each error
//   names the file, the queue and the parameter, with the SQS error code
//   when there is one.
// - Apply creates the queues with CreateQueue, dead-letter queues before
//   their sources whatever the file's order. It is idempotent: a queue that
//   exists with the attributes of the file is left as it is. A queue that
//   exists with other values gets the file's values (SetQueueAttributes), as
//   an ElasticMQ configuration is the source of truth at each start;
//   attributes the file does not name keep their values. Tags of the file
//   are added (TagQueue); other tags stay.
//
// Thread safety: none needed; lqsd runs it on its main thread before it
// serves requests.

#ifndef LQS_SERVER_INIT_FILE_H_
#define LQS_SERVER_INIT_FILE_H_

#include <functional>
#include <string>
#include <vector>

#include "lqs/broker.h"
#include "lqs/status.h"
#include "lqs/types.h"

namespace lqsd {

struct InitQueue {
  std::string name;
  bool fifo = false;
  // As CreateQueue takes them: strings, a RedrivePolicy with its ARN.
  lqs::AttributeMap attributes;
  lqs::TagMap tags;
  std::string dead_letter_queue;  // the RedrivePolicy's target by name; "" without one
};

class InitPlan {
 public:
  // The queues in creation order: each dead-letter queue of the file before
  // its sources.
  const std::vector<InitQueue>& queues() const { return queues_; }

  // The checks that need the database (see the contract above). Creates
  // nothing. Errors: InvalidParameterValue, naming the file and the queue.
  lqs::Status Check(lqs::Broker* broker) const;

  // Creates or updates the queues, in order. `log` gets one line per queue
  // that was created or changed. Errors: the first library error, naming the
  // queue (the queues before it are in place).
  lqs::Status Apply(lqs::Broker* broker, const std::function<void(const std::string&)>& log) const;

 private:
  friend lqs::StatusOr<InitPlan> ParseInitFile(const std::string&, const std::string&,
                                               const std::string&, const std::string&);
  std::string path_;
  std::string region_;
  std::string account_id_;
  std::vector<InitQueue> queues_;
};

// Parses and checks `text`, the contents of the file at `path` (named in
// the errors), for lqsd's default `region` and `account_id`. Everything that
// needs no database is checked here, redrive cycles included. Errors:
// InvalidParameterValue with the message to print.
lqs::StatusOr<InitPlan> ParseInitFile(const std::string& path, const std::string& text,
                                      const std::string& region, const std::string& account_id);

// Reads the file and parses it. Errors: IOError (unreadable), or
// ParseInitFile's.
lqs::StatusOr<InitPlan> ReadInitFile(const std::string& path, const std::string& region,
                                     const std::string& account_id);

}  // namespace lqsd

#endif  // LQS_SERVER_INIT_FILE_H_
