"""Settings of the lqs compatibility run, read from the environment that run.sh sets up.

LQS_COMPAT_ENDPOINT   base URL of the lqsd under test (http://localhost:<port>)
LQS_COMPAT_ACCOUNT    the account lqsd answers in (lqsd --account-id, default 123456789012)
LQS_COMPAT_REGION     the region the clients sign for (default us-east-1)
LQS_COMPAT_DATA_PATH  a botocore data directory holding the sqs-query service model
"""

import os

ENDPOINT = os.environ.get("LQS_COMPAT_ENDPOINT", "http://localhost:4566").rstrip("/")
ACCOUNT_ID = os.environ.get("LQS_COMPAT_ACCOUNT", "123456789012")
REGION = os.environ.get("LQS_COMPAT_REGION", "us-east-1")
SECONDARY_REGION = os.environ.get("LQS_COMPAT_SECONDARY_REGION", "ap-southeast-1")
DATA_PATH = os.environ.get("LQS_COMPAT_DATA_PATH", "")
ACCESS_KEY = "test"
SECRET_KEY = "test"
