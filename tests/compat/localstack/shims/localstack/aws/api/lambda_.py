"""Only the names the SQS tests import; Lambda itself is not served by lqsd."""


class Runtime:
    python3_12 = "python3.12"
    python3_11 = "python3.11"
