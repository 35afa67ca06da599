def mock_aws_request_headers(service: str, aws_access_key_id: str, region_name: str, internal=False):
    """Headers that look like a SigV4-signed form request (the signature is not valid: lqsd,
    like LocalStack, does not check signatures)."""
    date = "20240101T000000Z"
    return {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Amz-Date": date,
        "Authorization": (
            f"AWS4-HMAC-SHA256 Credential={aws_access_key_id}/{date[:8]}/{region_name}/"
            f"{service}/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=0"
        ),
    }
