"""Stand-in for the few LocalStack configuration names the SQS tests read or monkeypatch.

The SQS_* switches configure LocalStack's own provider; setting them here changes nothing in
lqsd. Tests that depend on them are marked requires_in_process / only_localstack and skipped.
"""

import dataclasses
from urllib.parse import urlparse

import lqs_compat_env as _env


@dataclasses.dataclass
class HostAndPort:
    host: str
    port: int

    def host_and_port(self) -> str:
        return f"{self.host}:{self.port}"

    def __str__(self) -> str:
        return self.host_and_port()


_parsed = urlparse(_env.ENDPOINT)
LOCALSTACK_HOST = HostAndPort(_parsed.hostname or "localhost", _parsed.port or 80)

SQS_ENDPOINT_STRATEGY = "path"
SQS_DELAY_RECENTLY_DELETED = False
SQS_DELAY_PURGE_RETRY = False
SQS_ENABLE_MESSAGE_RETENTION_PERIOD = True
SQS_DISABLE_CLOUDWATCH_METRICS = True


def internal_service_url(*args, **kwargs) -> str:
    return _env.ENDPOINT


def external_service_url(*args, **kwargs) -> str:
    return _env.ENDPOINT


def is_env_true(name: str) -> bool:
    import os

    return os.environ.get(name, "").lower() in ("1", "true")
