"""Runs a test file's test_* functions without pytest, for the pyenv interpreter (which
has no pytest): `python3 test_x.py [name ...]` ends with
`sys.exit(script_runner.run(globals(), sys.argv[1:]))`. The conftest fixtures a test
takes (tmp_path, clock, db) are made by hand, as conftest.py makes them."""

import inspect
import os
import pathlib
import sys
import tempfile
import time
import traceback

import lqs


def run(namespace, argv):
    """Runs every test_* function of `namespace` (or those named in argv); returns the
    process exit status (1 when any failed)."""
    names = argv or sorted(n for n in namespace if n.startswith("test_"))
    failed = 0
    for name in names:
        fn = namespace[name]
        with tempfile.TemporaryDirectory() as tmp:
            clock = lqs.ManualClock()
            db = None
            args = {}
            for p in inspect.signature(fn).parameters:
                if p == "tmp_path":
                    args[p] = pathlib.Path(tmp)
                elif p == "clock":
                    args[p] = clock
                elif p == "db":
                    db = lqs.open(os.path.join(tmp, "db"), clock=clock,
                                  background_maintenance=False)
                    args[p] = db
            t0 = time.monotonic()
            try:
                fn(**args)
                print(f"ok      {name} ({time.monotonic() - t0:.2f}s)")
            except Exception:
                failed += 1
                print(f"FAILED  {name}")
                traceback.print_exc()
            finally:
                if db is not None:
                    db.close()
    print(f"{len(names) - failed} passed, {failed} failed "
          f"(Python {sys.version.split()[0]}, {sys.executable})")
    return 1 if failed else 0
