"""Runs lqsd.service's ExecStart as the unit would, without systemd.

Reads the installed unit file, takes its User=, Group=, EnvironmentFile=
and ExecStart=, expands $VARIABLES from the environment file the way
systemd does for an unquoted $VAR (split on whitespace), and execs the
command as that user and group (setpriv). Used by tests/package/deb_test.sh,
where CI has no systemd.

    python3 run_unit.py /lib/systemd/system/lqsd.service [EXTRA_ARG...]

EXTRA_ARGs are appended to the command line (the test adds a port).
"""

import os
import pwd
import re
import shlex
import sys


def read_unit(path):
    service = {}
    section = None
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith(("#", ";")):
                continue
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1]
                continue
            if section == "Service" and "=" in line:
                key, value = line.split("=", 1)
                service[key.strip()] = value.strip()
    return service


def read_environment_file(spec):
    optional = spec.startswith("-")
    path = spec[1:] if optional else spec
    env = {}
    if not os.path.exists(path):
        if optional:
            return env
        raise SystemExit(f"EnvironmentFile {path} is missing")
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith(("#", ";")) or "=" not in line:
                continue
            key, value = line.split("=", 1)
            env[key.strip()] = " ".join(shlex.split(value))
    return env


def expand(exec_start, env):
    words = []
    for word in shlex.split(exec_start):
        whole = re.fullmatch(r"\$(\w+)", word)
        if whole:  # $VAR: its value split on whitespace, as systemd does
            words.extend(env.get(whole.group(1), "").split())
        else:
            words.append(re.sub(r"\$\{(\w+)\}", lambda m: env.get(m.group(1), ""), word))
    return words


def main():
    unit = read_unit(sys.argv[1])
    env = {}
    if "EnvironmentFile" in unit:
        env = read_environment_file(unit["EnvironmentFile"])
    command = expand(unit["ExecStart"], env) + sys.argv[2:]
    user = unit.get("User", "root")
    group = unit.get("Group", user)
    pw = pwd.getpwnam(user)
    print("run_unit: as %s:%s: %s" % (user, group, " ".join(command)), flush=True)
    os.execvp("setpriv", ["setpriv", "--reuid", user, "--regid", group, "--init-groups",
                          "env", "HOME=" + pw.pw_dir] + command)


if __name__ == "__main__":
    main()
