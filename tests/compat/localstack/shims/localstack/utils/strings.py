import base64
import hashlib
import uuid


def short_uid() -> str:
    """Eight random hex digits (the head of a uuid4), as the tests use for unique names."""
    return uuid.uuid4().hex[:8]


def long_uid() -> str:
    return str(uuid.uuid4())


def short_uid_from_seed(seed: str) -> str:
    """Eight hex digits derived from seed: the head of its SHA-1 (the recorded snapshots name
    queues with it, so it must be this derivation)."""
    return hashlib.sha1(seed.encode()).hexdigest()[:8]


def token_generator(item: str) -> str:
    """The pagination test's stand-in NextToken: base64 of the given text."""
    return base64.b64encode(item.encode()).decode()


def to_str(value, encoding: str = "utf-8"):
    return value.decode(encoding) if isinstance(value, (bytes, bytearray)) else value


def to_bytes(value, encoding: str = "utf-8"):
    return value.encode(encoding) if isinstance(value, str) else value
