"""lqs's pytest plugin (bindings/python/lqs/pytest.py) used from outside the repository.

sqs_example.py is an application's test module: no conftest, fixtures from
`pytest -p lqs.pytest`. Each case here copies it into a fresh temporary directory as
test_sqs_example.py, runs pytest on it in a child process, and checks every test's
outcome (JUnit XML):

- query: Debian's /usr/bin/python3 and its pytest (botocore 1.29, the query protocol; old
  botocore that mock_sqs must point at AWS_ENDPOINT_URL_SQS itself);
- json: a virtual environment of the python3 on PATH (`-m venv
  --system-site-packages`: boto3 1.43, the JSON protocol), with Debian's pure-Python pytest
  made importable through a directory of symlinks named in a .pth file (after the venv's
  own packages, so its boto3 is the one used); the example asserts botocore >= 1.31;
- each in process (lqs_server, its clock running), and with --sqs-endpoint against an
  lqsd binary started with --manual-clock (frozen: the running clock's test skips); and
  against one without it, where the lqs_clock tests are skipped with the reason.

The package comes from PYTHONPATH (CMake sets the build tree's bindings/python); the
lqsd binary from $LQSD (tests/server/lqsd_harness.py).
"""

import ast
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "server"))

from lqsd_harness import Lqsd, missing_client, require_lqsd_and_boto3  # noqa: E402

require_lqsd_and_boto3()  # skips (fails under CI=true) without them

EXAMPLE = os.path.join(HERE, "sqs_example.py")
DEBIAN_PYTHON = "/usr/bin/python3"
# Debian's pytest and what it imports (pure Python, /usr/lib/python3/dist-packages).
PYTEST_PACKAGES = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "py", "py.py",
                   "attr", "attrs", "exceptiongroup", "tomli")
DEBIAN_DIST_PACKAGES = "/usr/lib/python3/dist-packages"

RUNNING_CLOCK_TESTS = {"test_an_empty_long_poll_ends_after_its_real_wait_on_a_running_clock"}
CLOCK_TESTS = {"test_visibility_timeout_expires_when_the_clock_moves", "test_delay_seconds",
               "test_long_polls_end_when_the_clock_moves"} | RUNNING_CLOCK_TESTS
IN_PROCESS_ONLY = {"test_lqs_server_is_in_process_with_a_manual_clock"}


def example_tests():
    with open(EXAMPLE) as f:
        tree = ast.parse(f.read())
    return {n.name for n in tree.body
            if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


def child_env(protocol, endpoint):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AWS_", "PYTEST_")) and k != "PYTHONHOME"}
    env.update({"AWS_CONFIG_FILE": "/dev/null", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
                "PYTHONDONTWRITEBYTECODE": "1", "LQS_EXPECT_PROTOCOL": protocol,
                "LQS_EXPECT_ENDPOINT": endpoint})
    return env


def make_venv(base_python, directory):
    """Makes a virtual environment of `base_python` in `directory`/venv, without pip but
    seeing the base's site packages; returns its python."""
    venv = os.path.join(directory, "venv")
    subprocess.run([base_python, "-m", "venv", "--system-site-packages", "--without-pip", venv],
                   check=True, timeout=120)
    return os.path.join(venv, "bin", "python")


def run_example(python, protocol, endpoint_url=None, installed=False, load_option=True):
    """Runs the example with `python -m pytest -p lqs.pytest`; {test name: (outcome,
    message)} and the output. `installed`: without PYTHONPATH, the package pip
    installed for `python`; `load_option=False`: without -p (the plugin comes from the
    package's pytest11 entry point)."""
    with tempfile.TemporaryDirectory(prefix="lqs-pytest-plugin-") as tmp:
        shutil.copy(EXAMPLE, os.path.join(tmp, "test_sqs_example.py"))
        report = os.path.join(tmp, "report.xml")
        args = [python, "-m", "pytest", "-p", "no:cacheprovider", "--noconftest", "-q", "-rs",
                "--rootdir", tmp, "-c", os.devnull, "--junitxml", report, "test_sqs_example.py"]
        if load_option:
            args[3:3] = ["-p", "lqs.pytest"]
        if endpoint_url is not None:
            args += ["--sqs-endpoint", endpoint_url]
        env = child_env(protocol, endpoint_url or "in-process")
        if installed:
            env.pop("PYTHONPATH", None)
        proc = subprocess.run(args, cwd=tmp, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=240)
        output = proc.stdout.decode(errors="replace")
        outcomes = {}
        if os.path.exists(report):
            for case in ET.parse(report).getroot().iter("testcase"):
                outcome, message = "passed", ""
                for kind in ("failure", "error", "skipped"):
                    node = case.find(kind)
                    if node is not None:
                        outcome, message = kind, node.get("message", "")
                        break
                outcomes[case.get("name")] = (outcome, message)
        return proc.returncode, outcomes, output


def check(outcomes, output, skipped, clock_skip_reason=None):
    assert set(outcomes) == example_tests(), output
    for name, (outcome, message) in sorted(outcomes.items()):
        if name in skipped:
            assert outcome == "skipped", (name, outcome, message, output)
            if clock_skip_reason is not None and name in CLOCK_TESTS:
                assert clock_skip_reason in message, (name, message)
        else:
            assert outcome == "passed", (name, outcome, message, output)


def run_all_ways(python, protocol):
    rc, outcomes, output = run_example(python, protocol)
    check(outcomes, output, skipped=set())
    assert rc == 0, output
    # A separately started lqsd with a (frozen) manual clock: the same tests, over HTTP;
    # the running clock's test skips.
    with Lqsd("--manual-clock") as server:
        rc, outcomes, output = run_example(python, protocol, server.url)
    check(outcomes, output, skipped=IN_PROCESS_ONLY | RUNNING_CLOCK_TESTS)
    assert rc == 0, output
    # One without: the clock tests are skipped, and say why.
    with Lqsd() as server:
        rc, outcomes, output = run_example(python, protocol, server.url)
    check(outcomes, output, skipped=IN_PROCESS_ONLY | CLOCK_TESTS, clock_skip_reason="--manual-clock")
    assert "--manual-clock" in output  # -rs shows the reason
    assert rc == 0, output


def test_query_protocol_with_debian_pytest():
    run_all_ways(DEBIAN_PYTHON, "query")


def test_query_protocol_plugin_from_the_pytest11_entry_point():
    """pip-installed into a virtual environment (Debian's python3: it has pip and wheel),
    the package registers the plugin: pytest loads it without -p."""
    import lqs  # the build tree's, from PYTHONPATH
    built = os.path.dirname(os.path.abspath(lqs.__file__))
    build_dir = os.path.dirname(os.path.dirname(os.path.dirname(built)))  # <build>
    tmp = tempfile.mkdtemp(prefix="lqs-plugin-pip-")
    try:
        python = make_venv(DEBIAN_PYTHON, tmp)
        # setup.py and the package's sources, outside the checkout (setuptools writes
        # next to them); setup.py packages what the build assembled in LQS_BUILD_DIR.
        package = os.path.join(tmp, "package")
        shutil.copytree(os.path.join(os.path.dirname(os.path.dirname(HERE)), "bindings",
                                     "python"), package,
                        ignore=shutil.ignore_patterns("tests", "__pycache__", "build"))
        env = dict(child_env("query", "in-process"), LQS_BUILD_DIR=build_dir)
        env.pop("PYTHONPATH", None)
        pip = subprocess.run(
            [python, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps",
             "--no-index", package], env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, timeout=240)
        assert pip.returncode == 0, pip.stdout.decode(errors="replace")
        for load_option in (False, True):  # -p lqs.pytest works installed too
            rc, outcomes, output = run_example(python, "query", installed=True,
                                               load_option=load_option)
            check(outcomes, output, skipped=set())
            assert rc == 0, output
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def venv_python():
    """A virtual environment of the python3 on PATH with Debian's pytest importable."""
    path_python = os.environ.get("LQS_PATH_PYTHON") or shutil.which("python3")
    if not path_python or os.path.realpath(path_python) == os.path.realpath(DEBIAN_PYTHON):
        missing_client.pytest_module("no python3 on PATH besides Debian's")
    tmp = tempfile.mkdtemp(prefix="lqs-plugin-venv-")
    try:
        python = make_venv(path_python, tmp)
        site = subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, stdout=subprocess.PIPE, timeout=60).stdout.decode().strip()
        links = os.path.join(tmp, "debian-pytest")
        os.mkdir(links)
        for name in PYTEST_PACKAGES:
            source = os.path.join(DEBIAN_DIST_PACKAGES, name)
            if os.path.exists(source):
                os.symlink(source, os.path.join(links, name))
        # A .pth line is appended to sys.path: the venv's own packages come first.
        with open(os.path.join(site, "debian-pytest.pth"), "w") as f:
            f.write(links + "\n")
        probe = subprocess.run(
            [python, "-c", "import boto3, botocore, pytest, lqs; "
                           "print(botocore.__version__, pytest.__file__, boto3.__file__)"],
            env=child_env("json", ""), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            timeout=60)
        text = probe.stdout.decode(errors="replace")
        if probe.returncode != 0:
            missing_client.pytest_module("the venv cannot import boto3, pytest and lqs: " + text)
        version, pytest_file, boto3_file = text.split()
        assert pytest_file.startswith(links), text
        assert not boto3_file.startswith(DEBIAN_DIST_PACKAGES), text
        if tuple(int(p) for p in version.split(".")[:2]) < (1, 31):
            missing_client.pytest_module("the python3 on PATH has botocore %s, not >= 1.31"
                                         % version)
        yield python
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_json_protocol_from_a_virtual_environment(venv_python):
    run_all_ways(venv_python, "json")
