# True only inside the tests conftest.AWS_BRANCH_TESTS names (set by an autouse fixture).
AWS_BRANCH = False


def is_aws_cloud() -> bool:
    """The run targets lqsd, not AWS: tests take their short, non-AWS timings and endpoint,
    except where conftest.AWS_BRANCH_TESTS says the AWS branch holds the AWS behaviour."""
    return AWS_BRANCH
