"""Values the SQS tests import from LocalStack's provider constants (facts about SQS and the tests)."""

# SQS' maximum message size since 2025 (1 MiB), also the default MaximumMessageSize.
DEFAULT_MAXIMUM_MESSAGE_SIZE = 1024 * 1024
# Seed the pagination test hashes into a stable queue-name prefix (it is in the recorded snapshot).
SQS_UUID_STRING_SEED = "123e4567-e89b-12d3-a456-426614174000"
RECENTLY_DELETED_TIMEOUT = 60
