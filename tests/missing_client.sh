# tests/missing_client.sh — sourced by the test scripts that drive a real client
# (aws-cli, node and npm): tests/missing_client.py's twin.
#
#   missing_client "aws-cli not found at /usr/bin/aws"
#
# exits the script: 77 (skipped, ctest's SKIP_RETURN_CODE) with the reason, or,
# under CI (CI=true, as .ci/run runs; CI installs every client), 1: a missing
# client is a broken install step there, not a skip.
missing_client() {
  case "$(printf '%s' "${CI:-}" | tr '[:upper:]' '[:lower:]')" in
    true | 1 | yes)
      echo "FAIL: $1 (CI=true: CI installs every client the tests drive, so a missing one fails the run)"
      exit 1
      ;;
  esac
  echo "SKIP: $1"
  exit 77
}
