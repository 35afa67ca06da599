// lib/storage/message_reader.h — reads the stored records of several
// messages of one queue (the bodies a ReceiveMessage returns).
//
// One receive usually takes a run of neighbouring sequence numbers. Those are
// read with one bounded iterator (a seek, then a step per message) instead of
// a point lookup each: every lookup searches the memtable's skip list from
// the top, so a batch of 10 costs about a quarter of the instructions.
// Scattered sequence numbers are read with MultiGet.
//
// Thread safety: any thread; reads the latest committed state (message
// records are written once and only ever deleted).

#ifndef LQS_LIB_STORAGE_MESSAGE_READER_H_
#define LQS_LIB_STORAGE_MESSAGE_READER_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "lib/storage/database.h"
#include "lib/storage/records.h"

#include "lqs/status.h"

namespace lqs::storage {

// (*out)[i] is the message `seqs[i]` of queue `qid`, or nullopt when it no
// longer exists (deleted meanwhile, e.g. by a purge). `seqs` may be in any
// order and must not repeat. Errors: kIOError, kCorruption (a record that
// does not verify, named `queue_name`/seq).
Status ReadMessages(Database* db, uint64_t qid, const std::vector<uint64_t>& seqs,
                    std::string_view queue_name, std::vector<std::optional<Message>>* out);

}  // namespace lqs::storage

#endif  // LQS_LIB_STORAGE_MESSAGE_READER_H_
