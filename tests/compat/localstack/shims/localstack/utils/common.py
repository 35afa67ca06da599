from localstack.utils.strings import long_uid, short_uid, short_uid_from_seed, to_bytes, to_str  # noqa
from localstack.utils.sync import poll_condition, retry  # noqa
