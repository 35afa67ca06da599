"""The `markers` object the tests decorate with; each attribute is a plain pytest mark whose
name conftest.py's selection reads."""

import pytest


class _Aws:
    validated = pytest.mark.aws_validated
    manual_setup_required = pytest.mark.aws_manual_setup_required
    needs_fixing = pytest.mark.aws_needs_fixing
    only_localstack = pytest.mark.aws_only_localstack
    unknown = pytest.mark.aws_unknown


class _Parity:
    aws_validated = pytest.mark.aws_validated
    only_localstack = pytest.mark.aws_only_localstack


class _Snapshot:
    skip_snapshot_verify = pytest.mark.skip_snapshot_verify


class markers:
    aws = _Aws
    parity = _Parity
    snapshot = _Snapshot
    requires_in_process = pytest.mark.requires_in_process
    requires_in_container = pytest.mark.requires_in_container
    requires_docker = pytest.mark.requires_docker
    multiruntime = pytest.mark.multiruntime
    resource_heavy = pytest.mark.resource_heavy
    skip_offline = pytest.mark.skip_offline
    acceptance_test = pytest.mark.acceptance_test
