from localstack import config


def localstack_host():
    return config.LOCALSTACK_HOST
