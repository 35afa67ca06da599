// Tests for lib/api/queue_config.h: the Policy attribute and its
// quotas, AddPermission and RemovePermission.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lib/api/api_test_util.h"
#include "lib/api/queue_config.h"
#include "tests/testutil.h"

namespace lqs::api {
namespace {

using namespace test_util;  // NOLINT(google-build-using-namespace)
using ::lqs::testing::MessageStartsWith;

// ---- Policy ------------------------------------------------------------------------------------

TEST(ApplyQueueAttributesTest, Policy) {
  const std::string doc = R"({"Version":"2012-10-17","Statement":[]})";
  QueueConfig config = MustApply({{"Policy", doc}});
  EXPECT_EQ(config.policy, doc);
  EXPECT_EQ(RenderQueueConfig(config).at("Policy"), doc);
  config = MustApply({{"Policy", ""}}, config);
  EXPECT_TRUE(config.policy.empty());
  EXPECT_EQ(RenderQueueConfig(config).count("Policy"), 0u);
  for (const char* bad : {"{", "[]", "\"str\"", "42", "null", "not json", "{}x"}) {
    EXPECT_STATUS(Set({{"Policy", bad}}), kInvalidAttributeValue,
                  "Invalid value for the parameter Policy.")
        << bad;
  }
}

TEST(ApplyQueueAttributesTest, PolicyLimits) {
  // At most 20 statements and 7 actions per statement (AWS's OverLimit texts).
  const auto policy = [](int statements, int actions) {
    std::string doc = R"({"Version":"2012-10-17","Statement":[)";
    for (int s = 0; s < statements; ++s) {
      doc += s == 0 ? "{" : ",{";
      doc.append(R"("Sid":"s)").append(std::to_string(s));
      doc += R"(","Effect":"Allow","Principal":"*",)";
      doc += R"("Resource":"*","Action":[)";
      for (int a = 0; a < actions; ++a) doc.append(a == 0 ? "" : ",").append(R"("SQS:Get")");
      doc += "]}";
    }
    return doc + "]}";
  };
  EXPECT_TRUE(CheckPolicyLimits({{"Policy", policy(20, 7)}}).ok());
  EXPECT_STATUS(CheckPolicyLimits({{"Policy", policy(21, 1)}}), kOverLimit,
                "21 statements were found in the submitted policy, max allowed is 20");
  EXPECT_STATUS(CheckPolicyLimits({{"Policy", policy(2, 10)}}), kOverLimit,
                "10 actions were found in a statement from the submitted policy, max allowed is 7");
  // A single statement object and a single action string count as one; no
  // Policy, an empty one (removal) or a malformed one is not a limit error.
  EXPECT_TRUE(CheckPolicyLimits({{"Policy", R"({"Statement":{"Action":"SQS:*"}})"}}).ok());
  EXPECT_TRUE(CheckPolicyLimits({{"DelaySeconds", "1"}}).ok());
  EXPECT_TRUE(CheckPolicyLimits({{"Policy", ""}}).ok());
  EXPECT_TRUE(CheckPolicyLimits({{"Policy", "{"}}).ok());
  // ApplyQueueAttributes also re-applies stored attributes when a database
  // opens, so it keeps accepting what an older lqs stored.
  EXPECT_EQ(MustApply({{"Policy", policy(21, 10)}}).policy, policy(21, 10));
}

TEST(ApplyQueueAttributesTest, PolicySizePrincipalAndConditionQuotas) {
  // At most 8,192 bytes, checked before the document is parsed.
  const auto sized = [](size_t bytes) {
    const std::string head = R"({"Id":")", tail = R"(","Statement":[]})";
    return head + std::string(bytes - head.size() - tail.size(), 'x') + tail;
  };
  ASSERT_EQ(sized(8192).size(), 8192u);
  EXPECT_TRUE(CheckPolicyLimits({{"Policy", sized(8192)}}).ok());
  EXPECT_STATUS(CheckPolicyLimits({{"Policy", sized(8193)}}), kOverLimit,
                "The submitted policy is 8193 bytes long, max allowed is 8192");
  EXPECT_STATUS(CheckPolicyLimits({{"Policy", std::string(9000, '{')}}), kOverLimit,
                "The submitted policy is 9000 bytes long, max allowed is 8192");

  // At most 50 principals in all: each entry of Principal or NotPrincipal,
  // "*" counting one.
  const auto accounts = [](int n) {
    std::string list = "[";
    for (int i = 0; i < n; ++i) {
      list += (i == 0 ? "\"" : ",\"") + std::to_string(100000000000 + i) + "\"";
    }
    return list + "]";
  };
  const std::string two_statements = R"({"Statement":[{"Principal":{"AWS":)" + accounts(25) +
                                     R"(,"Service":"sns.amazonaws.com"},)" +
                                     R"("Action":"SQS:SendMessage"},{"NotPrincipal":{"AWS":)" +
                                     accounts(24) + R"(},)" + R"("Action":"SQS:*"})";
  EXPECT_TRUE(CheckPolicyLimits({{"Policy", two_statements + "]}"}}).ok());
  EXPECT_STATUS(
      CheckPolicyLimits({{"Policy", two_statements + R"(,{"Principal":"*","Action":"SQS:*"}]})"}}),
      kOverLimit, "51 principals were found in the submitted policy, max allowed is 50");

  // At most 10 conditions in all: each key under each operator.
  const auto conditions = [](int per_operator) {
    std::string keys;
    for (int i = 0; i < per_operator; ++i) {
      keys.append(i == 0 ? "" : ",").append(R"("aws:k)").append(std::to_string(i));
      keys += R"(":"v")";
    }
    return R"({"StringEquals":{)" + keys + R"(},"ArnLike":{)" + keys + "}}";
  };
  EXPECT_TRUE(
      CheckPolicyLimits({{"Policy", R"({"Statement":{"Condition":)" + conditions(5) + "}}"}}).ok());
  EXPECT_STATUS(
      CheckPolicyLimits({{"Policy", R"({"Statement":[{"Condition":)" + conditions(5) +
                                        R"(},{"Condition":{"Bool":{"aws:x":"true"}}}]})"}}),
      kOverLimit, "11 conditions were found in the submitted policy, max allowed is 10");
}

// ---- AddPermission / RemovePermission
// -------------------------------------------------------------------

StatusOr<std::string> Add(const std::string& policy, const std::string& label,
                          const std::vector<std::string>& accounts,
                          const std::vector<std::string>& actions) {
  return PolicyAddPermission(policy, kQueueArn, "111111111111", label, accounts, actions);
}

TEST(PolicyAddPermissionTest, FirstStatementSingleValues) {
  const StatusOr<std::string> policy = Add("", "MyLabel", {"111111111111"}, {"ReceiveMessage"});
  ASSERT_TRUE(policy.ok()) << policy.status().ToString();
  EXPECT_EQ(*policy, R"({"Version":"2008-10-17",)"
                     R"("Id":"arn:aws:sqs:us-east-1:111111111111:my-queue/SQSDefaultPolicy",)"
                     R"("Statement":[{"Sid":"MyLabel","Effect":"Allow",)"
                     R"("Principal":{"AWS":"arn:aws:iam::111111111111:root"},)"
                     R"("Action":"SQS:ReceiveMessage",)"
                     R"("Resource":"arn:aws:sqs:us-east-1:111111111111:my-queue"}]})");
}

TEST(PolicyAddPermissionTest, SeveralValuesBecomeArrays) {
  const StatusOr<std::string> policy =
      Add("", "L", {"111111111111", "222222222222"}, {"SendMessage", "DeleteMessage"});
  ASSERT_TRUE(policy.ok());
  EXPECT_NE(policy->find(R"("Principal":{"AWS":["arn:aws:iam::111111111111:root",)"
                         R"("arn:aws:iam::222222222222:root"]})"),
            std::string::npos)
      << *policy;
  EXPECT_NE(policy->find(R"("Action":["SQS:SendMessage","SQS:DeleteMessage"])"), std::string::npos)
      << *policy;
}

TEST(PolicyAddPermissionTest, WildcardAction) {
  const StatusOr<std::string> policy = Add("", "L", {"111111111111"}, {"*"});
  ASSERT_TRUE(policy.ok());
  EXPECT_NE(policy->find(R"("Action":"SQS:*")"), std::string::npos);
}

TEST(PolicyAddPermissionTest, TwentyStatementsAtMost) {
  StatusOr<std::string> policy = std::string();
  for (int i = 0; i < 20; ++i) {
    policy =
        Add(*policy, std::string("L").append(std::to_string(i)), {"111111111111"}, {"SendMessage"});
    ASSERT_TRUE(policy.ok()) << policy.status().ToString();
  }
  EXPECT_STATUS(Add(*policy, "L20", {"111111111111"}, {"SendMessage"}).status(), kOverLimit,
                "21 statements were found in the submitted policy, max allowed is 20");
}

TEST(PolicyAddPermissionTest, ResultingPolicyWithinPrincipalAndSizeQuotas) {
  // 50 principals in all; the 51st is refused.
  std::vector<std::string> fifty;
  for (int i = 0; i < 50; ++i) fifty.push_back(std::to_string(100000000000 + i));
  const StatusOr<std::string> full = Add("", "Fifty", fifty, {"SendMessage"});
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_STATUS(Add(*full, "One", {"111111111111"}, {"SendMessage"}).status(), kOverLimit,
                "51 principals were found in the submitted policy, max allowed is 50");

  // Long labels with seven actions each reach 8,192 bytes before 20
  // statements.
  StatusOr<std::string> policy = std::string();
  int added = 0;
  for (; added < 20; ++added) {
    StatusOr<std::string> next = Add(
        *policy, std::string(78, 'L') + std::to_string(10 + added), {"111111111111"},
        {"ChangeMessageVisibilityBatch", "ChangeMessageVisibility", "DeleteMessageBatch",
         "GetQueueAttributes", "SendMessageBatch", "ListDeadLetterSourceQueues", "ReceiveMessage"});
    if (!next.ok()) {
      EXPECT_CODE(next, kOverLimit);
      EXPECT_NE(next.status().message().find("bytes long, max allowed is 8192"), std::string::npos)
          << next.status().message();
      break;
    }
    EXPECT_LE(next->size(), 8192u);
    policy = std::move(next);
  }
  EXPECT_GT(added, 10);
  EXPECT_LT(added, 20);
}

TEST(PolicyAddPermissionTest, AppendsToExistingPolicy) {
  const StatusOr<std::string> first = Add("", "A", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(first.ok());
  const StatusOr<std::string> second = Add(*first, "B", {"222222222222"}, {"ReceiveMessage"});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->rfind(R"({"Version":"2008-10-17","Id":)", 0), 0u) << *second;
  EXPECT_NE(second->find(R"("Sid":"A")"), std::string::npos);
  EXPECT_NE(second->find(R"("Sid":"B")"), std::string::npos);
  EXPECT_LT(second->find(R"("Sid":"A")"), second->find(R"("Sid":"B")"));
}

TEST(PolicyAddPermissionTest, ExistingUserPolicyIsKept) {
  const std::string user = R"({"Version":"2012-10-17","Statement":{"Sid":"Own","Effect":"Deny"}})";
  const StatusOr<std::string> policy = Add(user, "New", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(policy.ok());
  EXPECT_EQ(policy->rfind(R"({"Version":"2012-10-17","Statement":[{"Sid":"Own","Effect":"Deny"},)"
                          R"({"Sid":"New")",
                          0),
            0u)
      << *policy;
  EXPECT_CODE(Add(user, "Own", {"111111111111"}, {"SendMessage"}).status(), kInvalidParameterValue);
}

TEST(PolicyAddPermissionTest, DuplicateLabel) {
  const StatusOr<std::string> first = Add("", "Dup", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(first.ok());
  EXPECT_STATUS(Add(*first, "Dup", {"111111111111"}, {"SendMessage"}).status(),
                kInvalidParameterValue,
                "Value Dup for parameter Label is invalid. Reason: Already exists.");
}

TEST(PolicyAddPermissionTest, InvalidLabel) {
  for (const std::string& bad :
       {std::string(""), std::string(81, 'l'), std::string("has space"), std::string("a.b")}) {
    const Status status = Add("", bad, {"111111111111"}, {"SendMessage"}).status();
    EXPECT_CODE(status, kInvalidParameterValue) << bad;
    EXPECT_TRUE(MessageStartsWith(status, "Value " + bad + " for parameter Label is invalid."));
  }
  EXPECT_TRUE(Add("", std::string(80, 'l'), {"111111111111"}, {"SendMessage"}).ok());
  EXPECT_TRUE(Add("", "a_B-9", {"111111111111"}, {"SendMessage"}).ok());
}

TEST(PolicyAddPermissionTest, EmptyListsAndBadValues) {
  EXPECT_CODE(Add("", "L", {}, {"SendMessage"}).status(), kInvalidParameterValue);
  EXPECT_CODE(Add("", "L", {"111111111111"}, {}).status(), kInvalidParameterValue);
  EXPECT_CODE(Add("", "L", {"1234"}, {"SendMessage"}).status(), kInvalidParameterValue);
  EXPECT_CODE(Add("", "L", {"arn:aws:iam::111111111111:root"}, {"SendMessage"}).status(),
              kInvalidParameterValue);
  for (const char* bad : {"sendmessage", "SQS:SendMessage", "Foo", "", "sqs:*"}) {
    EXPECT_CODE(Add("", "L", {"111111111111"}, {bad}).status(), kInvalidParameterValue) << bad;
  }
}

// Every action another account can be granted, the batch actions by name
// too (granting SendMessage also grants SendMessageBatch, but naming the
// batch action is not refused).
TEST(PolicyAddPermissionTest, GrantableActionNamesAccepted) {
  for (const char* action :
       {"GetQueueUrl", "GetQueueAttributes", "PurgeQueue", "SendMessage", "SendMessageBatch",
        "ReceiveMessage", "DeleteMessage", "DeleteMessageBatch", "ChangeMessageVisibility",
        "ChangeMessageVisibilityBatch", "ListDeadLetterSourceQueues", "*"}) {
    const StatusOr<std::string> policy = Add("", "L", {"111111111111"}, {action});
    ASSERT_TRUE(policy.ok()) << action << ": " << policy.status().ToString();
    EXPECT_NE(policy->find(std::string(R"("Action":"SQS:)") + action + "\""), std::string::npos)
        << *policy;
  }
}

// The actions to which cross-account permissions don't apply (developer
// guide, "Limitations of Amazon SQS custom policies").
TEST(PolicyAddPermissionTest, OwnerOnlyActionsRefused) {
  for (const char* action :
       {"AddPermission", "CancelMessageMoveTask", "CreateQueue", "DeleteQueue",
        "ListMessageMoveTasks", "ListQueues", "ListQueueTags", "RemovePermission",
        "SetQueueAttributes", "StartMessageMoveTask", "TagQueue", "UntagQueue"}) {
    EXPECT_STATUS(Add("", "L", {"111111111111"}, {action}).status(), kInvalidParameterValue,
                  std::string("Value SQS:") + action +
                      " for parameter ActionName is invalid. Reason: Only the queue owner is "
                      "allowed to invoke this action.");
  }
  // Among grantable ones, the first offending action in request order is
  // named; an unknown name keeps its own error.
  EXPECT_STATUS(Add("", "L", {"111111111111"}, {"SendMessage", "TagQueue", "Foo"}).status(),
                kInvalidParameterValue,
                "Value SQS:TagQueue for parameter ActionName is invalid. Reason: Only the queue "
                "owner is allowed to invoke this action.");
  EXPECT_STATUS(Add("", "L", {"111111111111"}, {"Foo", "TagQueue"}).status(),
                kInvalidParameterValue,
                "Value Foo for parameter ActionName is invalid. Reason: Must be an SQS action "
                "name or *.");
  // Nothing is added to an existing policy.
  const StatusOr<std::string> first = Add("", "A", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(first.ok());
  EXPECT_CODE(Add(*first, "B", {"111111111111"}, {"ReceiveMessage", "DeleteQueue"}).status(),
              kInvalidParameterValue);
}

TEST(PolicyAddPermissionTest, MoreThanSevenActionsIsOverLimit) {
  const std::vector<std::string> seven = {
      "SendMessage",        "ReceiveMessage", "DeleteMessage", "ChangeMessageVisibility",
      "GetQueueAttributes", "GetQueueUrl",    "PurgeQueue"};
  EXPECT_TRUE(Add("", "L", {"111111111111"}, seven).ok());
  std::vector<std::string> eight = seven;
  eight.push_back("ListQueueTags");
  EXPECT_CODE(Add("", "L", {"111111111111"}, eight).status(), kOverLimit);
}

TEST(PolicyRemovePermissionTest, RemovesStatement) {
  const StatusOr<std::string> one = Add("", "A", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(one.ok());
  const StatusOr<std::string> two = Add(*one, "B", {"111111111111"}, {"ReceiveMessage"});
  ASSERT_TRUE(two.ok());
  const StatusOr<std::string> removed = PolicyRemovePermission(*two, "B");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, *one);
}

TEST(PolicyRemovePermissionTest, LastStatementRemovesPolicy) {
  const StatusOr<std::string> one = Add("", "A", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(one.ok());
  const StatusOr<std::string> removed = PolicyRemovePermission(*one, "A");
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, "");
}

TEST(PolicyRemovePermissionTest, UnknownLabel) {
  const std::string text = "Value X for parameter Label is invalid. Reason: can't find label.";
  EXPECT_STATUS(PolicyRemovePermission("", "X").status(), kInvalidParameterValue, text);
  const StatusOr<std::string> one = Add("", "A", {"111111111111"}, {"SendMessage"});
  ASSERT_TRUE(one.ok());
  EXPECT_STATUS(PolicyRemovePermission(*one, "X").status(), kInvalidParameterValue, text);
  EXPECT_STATUS(PolicyRemovePermission(R"({"Version":"2012-10-17"})", "X").status(),
                kInvalidParameterValue, text);
}

}  // namespace
}  // namespace lqs::api
