// The SQS actions as data (see action_model.h). Member names and query
// spellings: docs/sqs-reference.md §6 (per action), §11.2 (query flattening),
// §11.4 and §11.7 (output elements).

#include "server/action_model.h"

#include <array>
#include <cstddef>

namespace lqsd::action_model {
namespace {

using K = Kind;
using O = OutputKind;

// ---- Input members ----------------------------------------------------------------

// `m`, marked required (SQS's API: docs/sqs-reference.md §6).
constexpr Member Required(Member m) {
  m.required = true;
  return m;
}

constexpr Member kQueueUrl = Required({"QueueUrl"});

constexpr Member kAttributes{"Attributes", K::kStringMap, "Attribute", "Name", "Value"};

constexpr Member kMessageAttributes{"MessageAttributes", K::kMessageAttributeMap,
                                    "MessageAttribute"};
constexpr Member kMessageSystemAttributes{"MessageSystemAttributes", K::kMessageAttributeMap,
                                          "MessageSystemAttribute"};

constexpr Member kCreateQueueIn[] = {
    Required({"QueueName"}),
    kAttributes,
    // CreateQueue's tag member is lower-case (§6.1); the query name is Tag.
    {"tags", K::kStringMap, "Tag", "Key", "Value"},
};
constexpr Member kGetQueueUrlIn[] = {Required({"QueueName"}), {"QueueOwnerAWSAccountId"}};
constexpr Member kListQueuesIn[] = {
    {"QueueNamePrefix"}, {"NextToken"}, {"MaxResults", K::kInteger}};
constexpr Member kQueueUrlIn[] = {kQueueUrl};
constexpr Member kGetQueueAttributesIn[] = {kQueueUrl,
                                            {"AttributeNames", K::kStringList, "AttributeName"}};
constexpr Member kSetQueueAttributesIn[] = {kQueueUrl, Required(kAttributes)};

// `first`, then `rest`.
template <size_t N>
constexpr std::array<Member, N + 1> Prepend(const Member& first,
                                            const std::array<Member, N>& rest) {
  std::array<Member, N + 1> out{};
  out[0] = first;
  for (size_t i = 0; i < N; ++i) out[i + 1] = rest[i];
  return out;
}

// A message's members: SendMessage's besides QueueUrl, a batch entry's besides Id.
constexpr std::array<Member, 6> kMessageMembers = {{
    Required({"MessageBody"}),
    {"DelaySeconds", K::kInteger},
    kMessageAttributes,
    kMessageSystemAttributes,
    {"MessageDeduplicationId"},
    {"MessageGroupId"},
}};
constexpr auto kSendMessageIn = Prepend(kQueueUrl, kMessageMembers);
constexpr Member kId = Required({"Id"});
constexpr auto kSendBatchEntry = Prepend(kId, kMessageMembers);
constexpr Member kSendMessageBatchIn[] = {
    kQueueUrl,
    Required({"Entries", K::kEntryList, "SendMessageBatchRequestEntry", {}, {}, kSendBatchEntry}),
};

constexpr Member kReceiveMessageIn[] = {
    kQueueUrl,
    {"AttributeNames", K::kStringList, "AttributeName"},
    {"MessageSystemAttributeNames", K::kStringList, "MessageSystemAttributeName"},
    {"MessageAttributeNames", K::kStringList, "MessageAttributeName"},
    {"MaxNumberOfMessages", K::kInteger},
    {"VisibilityTimeout", K::kInteger},
    {"WaitTimeSeconds", K::kInteger},
    {"ReceiveRequestAttemptId"},
};

constexpr Member kReceiptHandle = Required({"ReceiptHandle"});
constexpr Member kDeleteMessageIn[] = {kQueueUrl, kReceiptHandle};
constexpr Member kDeleteBatchEntry[] = {kId, kReceiptHandle};
constexpr Member kDeleteMessageBatchIn[] = {
    kQueueUrl,
    Required(
        {"Entries", K::kEntryList, "DeleteMessageBatchRequestEntry", {}, {}, kDeleteBatchEntry}),
};

constexpr Member kChangeVisibilityIn[] = {kQueueUrl, kReceiptHandle,
                                          Required({"VisibilityTimeout", K::kInteger})};
constexpr Member kChangeVisibilityEntry[] = {
    kId, kReceiptHandle, {"VisibilityTimeout", K::kInteger}};
constexpr Member kChangeVisibilityBatchIn[] = {
    kQueueUrl,
    Required({"Entries",
              K::kEntryList,
              "ChangeMessageVisibilityBatchRequestEntry",
              {},
              {},
              kChangeVisibilityEntry}),
};

constexpr Member kTagQueueIn[] = {kQueueUrl,
                                  Required({"Tags", K::kStringMap, "Tag", "Key", "Value"})};
constexpr Member kUntagQueueIn[] = {kQueueUrl, Required({"TagKeys", K::kStringList, "TagKey"})};
constexpr Member kLabel = Required({"Label"});
constexpr Member kAddPermissionIn[] = {
    kQueueUrl,
    kLabel,
    Required({"AWSAccountIds", K::kStringList, "AWSAccountId"}),
    Required({"Actions", K::kStringList, "ActionName"}),
};
constexpr Member kRemovePermissionIn[] = {kQueueUrl, kLabel};
constexpr Member kListDeadLetterSourcesIn[] = {
    kQueueUrl, {"NextToken"}, {"MaxResults", K::kInteger}};
constexpr Member kSourceArn = Required({"SourceArn"});
constexpr Member kStartMoveTaskIn[] = {
    kSourceArn, {"DestinationArn"}, {"MaxNumberOfMessagesPerSecond", K::kInteger}};
constexpr Member kCancelMoveTaskIn[] = {Required({"TaskHandle"})};
constexpr Member kListMoveTasksIn[] = {kSourceArn, {"MaxResults", K::kInteger}};

// ---- Output members that are lists or maps ----------------------------------------

constexpr OutputMember kAttributesOut{"Attributes", O::kFlattenedMap, "Attribute", "Name"};

constexpr OutputMember kMessageOut[] = {
    kAttributesOut,
    {"MessageAttributes", O::kFlattenedMap, "MessageAttribute", "Name"},
};

constexpr OutputMember kListQueuesOut[] = {{"QueueUrls", O::kList, "QueueUrl"}};
constexpr OutputMember kGetQueueAttributesOut[] = {kAttributesOut};
constexpr OutputMember kReceiveMessageOut[] = {
    // AWS names this list "messages" in the JSON rendering (an AWS-validated
    // recording, docs/sqs_compat.md); the XML's other names stand there.
    {"Messages", O::kList, "Message", {}, "messages", kMessageOut},
};
constexpr OutputMember kFailedOut{"Failed", O::kList, "BatchResultErrorEntry"};
constexpr OutputMember kSendMessageBatchOut[] = {
    {"Successful", O::kList, "SendMessageBatchResultEntry"}, kFailedOut};
constexpr OutputMember kDeleteMessageBatchOut[] = {
    {"Successful", O::kList, "DeleteMessageBatchResultEntry"}, kFailedOut};
constexpr OutputMember kChangeVisibilityBatchOut[] = {
    {"Successful", O::kList, "ChangeMessageVisibilityBatchResultEntry"}, kFailedOut};
constexpr OutputMember kListQueueTagsOut[] = {{"Tags", O::kFlattenedMap, "Tag", "Key"}};
constexpr OutputMember kListDeadLetterSourcesOut[] = {{"queueUrls", O::kList, "QueueUrl"}};
constexpr OutputMember kListMoveTasksOut[] = {
    {"Results", O::kList, "ListMessageMoveTasksResultEntry"}};

// ---- The actions ------------------------------------------------------------------

constexpr Action kActions[] = {
    {"CreateQueue", false, true, kCreateQueueIn, {}},
    {"DeleteQueue", true, false, kQueueUrlIn, {}},
    {"GetQueueUrl", false, true, kGetQueueUrlIn, {}},
    {"ListQueues", false, true, kListQueuesIn, kListQueuesOut},
    {"GetQueueAttributes", true, true, kGetQueueAttributesIn, kGetQueueAttributesOut},
    {"SetQueueAttributes", true, false, kSetQueueAttributesIn, {}},
    {"PurgeQueue", true, false, kQueueUrlIn, {}},
    {"SendMessage", true, true, kSendMessageIn, {}},
    {"SendMessageBatch", true, true, kSendMessageBatchIn, kSendMessageBatchOut},
    {"ReceiveMessage", true, true, kReceiveMessageIn, kReceiveMessageOut},
    {"DeleteMessage", true, false, kDeleteMessageIn, {}},
    {"DeleteMessageBatch", true, true, kDeleteMessageBatchIn, kDeleteMessageBatchOut},
    {"ChangeMessageVisibility", true, false, kChangeVisibilityIn, {}},
    {"ChangeMessageVisibilityBatch", true, true, kChangeVisibilityBatchIn,
     kChangeVisibilityBatchOut},
    {"TagQueue", true, false, kTagQueueIn, {}},
    {"UntagQueue", true, false, kUntagQueueIn, {}},
    {"ListQueueTags", true, true, kQueueUrlIn, kListQueueTagsOut},
    {"AddPermission", true, false, kAddPermissionIn, {}},
    {"RemovePermission", true, false, kRemovePermissionIn, {}},
    {"ListDeadLetterSourceQueues", true, true, kListDeadLetterSourcesIn, kListDeadLetterSourcesOut},
    {"StartMessageMoveTask", false, true, kStartMoveTaskIn, {}},
    {"CancelMessageMoveTask", false, true, kCancelMoveTaskIn, {}},
    {"ListMessageMoveTasks", false, true, kListMoveTasksIn, kListMoveTasksOut},
};

}  // namespace

std::span<const Action> All() { return kActions; }

const Action* Find(std::string_view name) {
  for (const Action& action : kActions) {
    if (action.name == name) return &action;
  }
  return nullptr;
}

const Member* FindMember(std::span<const Member> members, std::string_view name,
                         bool by_query_name) {
  for (const Member& member : members) {
    if ((by_query_name ? member.QueryName() : member.json_name) == name) return &member;
  }
  return nullptr;
}

const OutputMember* FindOutput(std::span<const OutputMember> members, std::string_view name) {
  for (const OutputMember& member : members) {
    if (member.json_name == name) return &member;
  }
  return nullptr;
}

}  // namespace lqsd::action_model
