// Tests for lib/storage/message_reader.h: the iterator path (runs of close
// sequence numbers) and the point-lookup path (scattered ones) return the
// same thing, in the caller's order, with deleted messages as nullopt.

#include "lib/storage/message_reader.h"

#include <limits>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "lib/storage/keys.h"
#include "tests/testutil.h"

namespace lqs::storage {
namespace {

class MessageReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options options = testing::TestProfileOptions();
    options.path = dir_.path() + "/db";
    StatusOr<std::unique_ptr<Database>> db = Database::Open(options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    // Queue 7 holds seqs 1..40 except multiples of 5 (deleted); queues 6
    // and 8 have neighbours at the edges of its key range.
    rocksdb::WriteBatch batch;
    for (uint64_t qid : {6, 7, 8}) {
      for (uint64_t seq = 1; seq <= 40; ++seq) {
        Message m;
        m.message_id = std::to_string(qid) + "-" + std::to_string(seq);
        m.body = "body of " + m.message_id;
        batch.Put(db_->cf(Cf::kMessages), MessageKey(qid, seq), EncodeMessage(m));
      }
    }
    ASSERT_TRUE(db_->Write(&batch, false).ok());
    rocksdb::WriteBatch deletes;
    for (uint64_t seq = 5; seq <= 40; seq += 5) {
      deletes.Delete(db_->cf(Cf::kMessages), MessageKey(7, seq));
    }
    ASSERT_TRUE(db_->Write(&deletes, false).ok());
  }

  // Reads `seqs` of queue 7 and checks each answer against the setup.
  void ExpectRead(const std::vector<uint64_t>& seqs) {
    std::vector<std::optional<Message>> out;
    Status st = ReadMessages(db_.get(), 7, seqs, "q", &out);
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_EQ(out.size(), seqs.size());
    for (size_t i = 0; i < seqs.size(); ++i) {
      const bool exists = seqs[i] >= 1 && seqs[i] <= 40 && seqs[i] % 5 != 0;
      ASSERT_EQ(out[i].has_value(), exists) << "seq " << seqs[i];
      if (exists) {
        EXPECT_EQ(out[i]->body, "body of 7-" + std::to_string(seqs[i]));
      }
    }
  }

  lqs::testing::TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(MessageReaderTest, RunOfNeighbours) { ExpectRead({1, 2, 3, 4, 6, 7, 8, 9, 11, 12}); }

TEST_F(MessageReaderTest, RunWithDeletedAndUnordered) {
  ExpectRead({12, 3, 10, 4, 5, 11, 9});
  ExpectRead({39, 40, 38});  // the last one deleted: the range ends early
}

TEST_F(MessageReaderTest, ScatteredUsesPointLookups) {
  ExpectRead({1, 40, 20, 33});
  ExpectRead({2, 41});  // past the end
  ExpectRead({17});
  ExpectRead({});
}

TEST_F(MessageReaderTest, LastPossibleSequenceNumber) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  rocksdb::WriteBatch batch;
  for (uint64_t seq : {kMax - 1, kMax}) {
    Message m;
    m.body = "near the end " + std::to_string(seq);
    batch.Put(db_->cf(Cf::kMessages), MessageKey(7, seq), EncodeMessage(m));
  }
  ASSERT_TRUE(db_->Write(&batch, false).ok());
  std::vector<std::optional<Message>> out;
  ASSERT_TRUE(ReadMessages(db_.get(), 7, {kMax, kMax - 1}, "q", &out).ok());
  ASSERT_TRUE(out[0].has_value() && out[1].has_value());
  EXPECT_EQ(out[0]->body, "near the end " + std::to_string(kMax));
  EXPECT_EQ(out[1]->body, "near the end " + std::to_string(kMax - 1));
}

TEST_F(MessageReaderTest, CorruptRecordIsReported) {
  rocksdb::WriteBatch batch;
  batch.Put(db_->cf(Cf::kMessages), MessageKey(7, 3), "not a flatbuffer");
  ASSERT_TRUE(db_->Write(&batch, false).ok());
  for (const std::vector<uint64_t>& seqs :
       {std::vector<uint64_t>{2, 3, 4}, std::vector<uint64_t>{3, 30}}) {
    std::vector<std::optional<Message>> out;
    Status st = ReadMessages(db_.get(), 7, seqs, "q", &out);
    EXPECT_EQ(st.code(), ErrorCode::kCorruption) << st.ToString();
    EXPECT_NE(st.message().find("q/3"), std::string::npos) << st.ToString();
  }
}

}  // namespace
}  // namespace lqs::storage
