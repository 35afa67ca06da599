"""Snapshot transformers for the lqs compatibility run, written for it.

The comparison itself is the localstack-snapshot library's (SnapshotSession). What LocalStack's
own harness adds on top of it - the `snapshot.transform` helpers the SQS tests call and the
default normalisations every test gets - is re-done here from its documented behaviour:

* sqs_api(): receipt handles, task handles, sender ids and sequence numbers become numbered
  placeholders; the name in a queue ARN becomes <resource:N> wherever it appears.
* the defaults: ResponseMetadata keeps only status code and (emptied) headers; values of keys
  ending in "Id" that are UUIDs become <uuid:N>; ISO-8601 dates become <date>; keys containing
  "timestamp" get <timestamp>; the account id becomes 111111111111, the region <region>, the
  partition <partition>.
* one normalisation of this run: lqsd's queue-URL origin (http://localhost:<port>, and its
  /queue/<region>/ path for other regions; http://sqs.<region>.localhost:<port> with
  --url-style host) is rewritten to the origin LocalStack's recordings
  use (http://sqs.<region>.localhost.localstack.cloud:4566). Queue URLs differ from AWS and
  from LocalStack by design; their host is not what these tests check.
"""

import re
from datetime import datetime

from localstack_snapshot.snapshots.transformer import (
    GenericTransformer,
    KeyValueBasedTransformer,
    RegexTransformer,
    ResponseMetaDataTransformer,
)
from localstack_snapshot.snapshots.transformer_utility import TransformerUtility as _Base

UUID_RE = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
ISO8601_RE = re.compile(
    r"\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-][01]\d:?(?:[0-5]\d)?)"
)
ARN_RE = re.compile(r"^arn:[a-z-]*:[a-zA-Z0-9._-]*:[^:]*:(\d{12})?:(.+)$")


def _arn_resource_name(key, value):
    if not isinstance(value, str):
        return None
    m = ARN_RE.match(value)
    if not m:
        return None
    resource = m.group(2)
    if resource.startswith("<") and resource.endswith(">"):
        return None
    return re.split(r"[/:]", resource)[-1]


def _strip_key(key):
    def fn(data, ctx):
        def walk(node):
            if isinstance(node, dict):
                node.pop(key, None)
                for v in node.values():
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)

        walk(data)
        return data

    return GenericTransformer(fn)


class TransformerUtility(_Base):
    @staticmethod
    def remove_key(key: str):
        return _strip_key(key)

    @staticmethod
    def resource_name(replacement_name: str = "resource"):
        return KeyValueBasedTransformer(_arn_resource_name, replacement_name)

    @staticmethod
    def sqs_api():
        return [
            _Base.key_value("ReceiptHandle"),
            _Base.key_value("TaskHandle"),
            _Base.key_value("SenderId"),
            _Base.key_value("SequenceNumber"),
            _Base.jsonpath("$..MessageAttributes.RequestID.StringValue", "request-id"),
            KeyValueBasedTransformer(_arn_resource_name, "resource"),
        ]


def _uuid_id(key, value):
    if isinstance(value, str) and key.lower().endswith("id") and UUID_RE.fullmatch(value):
        return value
    return None


def _timestamp(key, value):
    if "timestamp" in key.lower() and not ISO8601_RE.match(str(value)):
        return str(value)
    return None


def default_transformers():
    return [
        ResponseMetaDataTransformer(),
        KeyValueBasedTransformer(_uuid_id, "uuid"),
        RegexTransformer(ISO8601_RE, "date"),
        KeyValueBasedTransformer(
            lambda k, v: v if isinstance(v, datetime) else None, "datetime", replace_reference=False
        ),
        KeyValueBasedTransformer(_timestamp, "timestamp", replace_reference=False),
    ]


def setup_session(session, endpoint: str, account_id: str, region: str, partition: str):
    session.transform = TransformerUtility
    ep = re.escape(endpoint.rstrip("/"))
    # lqsd --url-style host: http://sqs.<region>.localhost:<port>/...
    port = re.escape(endpoint.rstrip("/").rsplit(":", 1)[-1])
    session.add_transformer(
        RegexTransformer(
            re.compile(r"http://sqs\.([a-z0-9-]+)\.localhost:" + port + r"(?=/)"),
            r"http://sqs.\1.localhost.localstack.cloud:4566",
        ),
        priority=1,
    )
    # lqsd's other-region URLs first, then its default-region ones
    session.add_transformer(
        RegexTransformer(
            re.compile(ep + r"/queue/([a-z0-9-]+)/"),
            r"http://sqs.\1.localhost.localstack.cloud:4566/",
        ),
        priority=1,
    )
    session.add_transformer(
        RegexTransformer(
            re.compile(ep + r"(?=/)"), f"http://sqs.{region}.localhost.localstack.cloud:4566"
        ),
        priority=1,
    )
    session.add_transformer(RegexTransformer(account_id, "1" * 12), priority=2)
    session.add_transformer(RegexTransformer(region, "<region>"), priority=2)
    session.add_transformer(RegexTransformer(f"arn:{partition}:", "arn:<partition>:"), priority=2)
    session.add_transformer(TransformerUtility.remove_key("x-localstack"))
    session.add_transformer(default_transformers(), priority=2)
    return session
