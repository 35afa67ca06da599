"""Queue-URL and move-task-handle helpers the tests import."""

import base64
import json
from urllib.parse import urlparse

import lqs_compat_env as _env


def parse_queue_url(queue_url: str) -> tuple[str, str | None, str]:
    """(account, region, name) of a queue URL. Knows AWS' host form, LocalStack's and lqsd's
    /queue/<region>/<account>/<name> path form; the region is the default one when the URL
    does not say."""
    parsed = urlparse(queue_url)
    parts = [p for p in parsed.path.split("/") if p]
    if len(parts) >= 4 and parts[0] == "queue":
        return parts[2], parts[1], parts[3]
    account, name = parts[-2], parts[-1]
    host = parsed.hostname or ""
    region = _env.REGION
    labels = host.split(".")
    if len(labels) > 2 and labels[0] == "sqs":
        region = labels[1]
    return account, region, name


# A TaskHandle, as AWS hands it out, is the base64 of a small JSON object naming the task id
# ("taskId") and the source queue ARN ("sourceArn").


def encode_move_task_handle(task_id: str, source_arn: str) -> str:
    text = json.dumps({"taskId": task_id, "sourceArn": source_arn}, separators=(",", ":"))
    return base64.b64encode(text.encode()).decode()


def decode_move_task_handle(handle) -> tuple[str, str]:
    if isinstance(handle, str):
        handle = handle.encode()
    doc = json.loads(base64.b64decode(handle + b"=" * (-len(handle) % 4)))
    for key in ("taskId", "sourceArn"):
        if key not in doc:
            raise ValueError(f"{key} missing from task handle")
    return doc["taskId"], doc["sourceArn"]
