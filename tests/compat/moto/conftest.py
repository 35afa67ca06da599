"""pytest glue that runs moto's AWS-verified SQS tests against lqsd. Written for lqs.

moto's @aws_verified / @sqs_aws_verified decorators run a test against real endpoints when
MOTO_TEST_ALLOW_AWS_REQUEST=true; run.sh sets it and points the SQS endpoint at lqsd
(AWS_ENDPOINT_URL_SQS). Two things here:

* moto's `account_id` fixture asks STS for the caller's account. lqsd serves no STS, so an
  in-process moto server answers STS only (AWS_ENDPOINT_URL_STS); its account, 123456789012,
  is lqsd's default one.
* LQS_COMPAT_PROTOCOL=query makes every boto3 "sqs" client speak the query protocol, through
  the query-protocol service model in AWS_DATA_PATH (loaded as service "sqs-query").
"""

import os

import boto3.session
import pytest

PROTOCOL = os.environ.get("LQS_COMPAT_PROTOCOL", "json")

_sts_server = None


def pytest_configure(config):
    global _sts_server
    from moto.server import ThreadedMotoServer

    _sts_server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    _sts_server.start()
    host, port = _sts_server.get_host_and_port()
    os.environ["AWS_ENDPOINT_URL_STS"] = f"http://{host}:{port}"


def pytest_unconfigure(config):
    if _sts_server is not None:
        _sts_server.stop()


if PROTOCOL == "query":
    _client = boto3.session.Session.client
    _resource = boto3.session.Session.resource

    def client(self, service_name, *args, **kwargs):
        if service_name == "sqs":
            service_name = "sqs-query"
            kwargs.setdefault("endpoint_url", os.environ["AWS_ENDPOINT_URL_SQS"])
        return _client(self, service_name, *args, **kwargs)

    def resource(self, service_name, *args, **kwargs):
        if service_name == "sqs":
            pytest.skip("boto3 resources have no sqs-query model; the query run covers clients only")
        return _resource(self, service_name, *args, **kwargs)

    boto3.session.Session.client = client
    boto3.session.Session.resource = resource
