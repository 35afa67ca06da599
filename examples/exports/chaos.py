#!/usr/bin/env python3
"""Chaos for the export service (export_service.py): shows that its records and queues stay
consistent when workers die and messages are delivered twice.

    python3 examples/exports/chaos.py            # short (CI, about 30 s)
    python3 examples/exports/chaos.py --long     # 300 kill rounds (about 10 minutes)
    python3 examples/exports/chaos.py --seed 7   # replay a run

  kill    worker processes are SIGKILLed at random moments and at chosen points (right after
          a message was received, after the effect was computed and before the commit,
          after the commit); after each kill the database is checked: every request is
          ACCEPTED with its job in the queue, SUCCEEDED billed exactly once, or FAILED with
          its message in the dead-letter queue.
  twice   two workers hold the same message (the first one's visibility timeout ended while
          it was still working; or the job was enqueued twice): exactly one commit wins, the
          other gets TransactionConflict, the export is billed once.
  poison  a job with an unknown schema version is FAILED and dead-lettered at its first
          receive; a job that keeps failing transiently is retried with exponential backoff
          and then FAILED and dead-lettered.

Exits non-zero on any violation, after printing it.
"""

import argparse
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_service as svc  # noqa: E402  (also finds the lqs module)
from export_service import lqs  # noqa: E402

SERVICE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "export_service.py")
violations = []


def check(ok, what):
    if not ok:
        violations.append(what)
        print(f"VIOLATION: {what}", flush=True)
    return ok


def queue_counts(queue):
    a = queue.get_attributes("All")
    return sum(int(a[k]) for k in ("ApproximateNumberOfMessages",
                                   "ApproximateNumberOfMessagesNotVisible",
                                   "ApproximateNumberOfMessagesDelayed"))


def check_invariants(db, expected, where):
    """Every request: ACCEPTED with one job in the queue, SUCCEEDED billed once with its
    file, or FAILED with one message in the DLQ. Returns the states."""
    records = {k.decode(): json.loads(v) for k, v in db.scan(svc.RECORDS)}
    billing = {k.decode(): int(v) for k, v in db.scan(svc.BILLING)}
    states = {}
    for request_id, want in expected.items():
        rec = records.get(request_id)
        if not check(rec is not None, f"{where}: {request_id}: no record"):
            continue
        state = states[request_id] = rec["state"]
        if state == "SUCCEEDED":
            check(want == "SUCCEEDED", f"{where}: {request_id}: SUCCEEDED, expected {want}")
            check(billing.get(request_id) == 1,
                  f"{where}: {request_id}: billed {billing.get(request_id)} times")
            res = rec["result"]
            try:
                with open(res["path"], "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                digest = None
            check(digest == res["sha256"], f"{where}: {request_id}: export file differs")
        else:
            check(state in ("ACCEPTED", "FAILED"), f"{where}: {request_id}: state {state}")
            check(request_id not in billing, f"{where}: {request_id}: {state} but billed")
            if state == "FAILED":
                check(want == "FAILED", f"{where}: {request_id}: FAILED ({rec.get('error')}),"
                      f" expected {want}")
    check(set(records) == set(expected), f"{where}: unexpected records")
    n_accepted = sum(1 for s in states.values() if s == "ACCEPTED")
    n_failed = sum(1 for s in states.values() if s == "FAILED")
    jobs, dlq = queue_counts(db[svc.JOBS]), queue_counts(db[svc.DLQ])
    check(jobs == n_accepted, f"{where}: {n_accepted} ACCEPTED but {jobs} jobs queued")
    check(dlq == n_failed, f"{where}: {n_failed} FAILED but {dlq} messages in the DLQ")
    check(db.verify() == [], f"{where}: verify: {db.verify()}")
    return states


# ---- kill: worker processes SIGKILLed at random and chosen points --------------------------

def scenario_kill(tmp, rng, rounds, n_requests):
    path = os.path.join(tmp, "kill-db")
    out = os.path.join(tmp, "kill-out")
    max_receives = 1000  # kills count as receives: redrive only for jobs that failed
    expected = {}

    def accept_some(db, n):
        """New requests keep arriving between the rounds: most valid, some failing once or
        twice, some invalid, some with an unknown schema version."""
        for _ in range(n):
            kind = rng.choice(["ok"] * 6 + ["flaky", "invalid", "v2"])
            request = {"format": rng.choice(svc.FORMATS), "rows": rng.randrange(0, 300)}
            version = svc.SCHEMA_VERSION
            if kind == "flaky":
                request["simulate_transient_failures"] = rng.choice([1, 2])
            elif kind == "invalid":
                request["rows"] = -1
            elif kind == "v2":
                version = 2
            rid = svc.accept(db, request, request_id=f"req-{len(expected):04d}",
                             schema_version=version)
            expected[rid] = "FAILED" if kind in ("invalid", "v2") else "SUCCEEDED"

    with lqs.open(path) as db:
        svc.setup(db, visibility_timeout=1, max_receive_count=max_receives)
        accept_some(db, n_requests)
        check_invariants(db, expected, "after accept")

    cmd = [sys.executable, SERVICE, "work", "--db", path, "--out", out, "--until-empty",
           "--visibility-timeout", "1", "--max-receive-count", str(max_receives),
           "--backoff-base", "1"]
    kills = {"random": 0, "after_receive": 0, "after_effect": 0, "after_commit": 0}
    killed_before_commit = []  # request ids killed after their effect, before the commit
    finished = 0
    for r in range(rounds):
        # Every chosen point first, at the first message; then at random.
        fixed = ["after_effect", "after_receive", "after_commit", "random"]
        point = fixed[r] if r < len(fixed) else rng.choice(
            ["random", "random", "after_effect", "after_effect", "after_receive", "after_commit"])
        env = dict(os.environ)
        if point != "random":
            env["EXPORTS_CRASH_POINT"] = point
            env["EXPORTS_CRASH_AT"] = str(1 if r < len(fixed) else rng.randint(1, 4))
        proc = subprocess.Popen(cmd + ["--batch", str(rng.randint(1, 5))], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            if point == "random":
                proc.stdout.readline()  # "working on ...": started up
                time.sleep(rng.uniform(0.0, 0.6))
                proc.send_signal(signal.SIGKILL)
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
            check(False, f"round {r}: the worker hung")
        if proc.returncode == -signal.SIGKILL:
            kills[point] += 1
            for line in err.splitlines():
                if line.startswith("export worker: killed at after_effect: "):
                    job = json.loads(line.split(": ", 2)[2])
                    killed_before_commit.append((r, job["request_id"]))
        elif proc.returncode == 0:
            finished += 1  # it worked everything off before its crash point
        else:
            check(False, f"round {r}: worker exited {proc.returncode}: {err[-2000:]}")
        with lqs.open(path) as db:
            states = check_invariants(db, expected, f"round {r} ({point})")
            if killed_before_commit and killed_before_commit[-1][0] == r:
                rid = killed_before_commit[-1][1]
                check(states.get(rid) == "ACCEPTED",
                      f"round {r}: {rid} killed before its commit, yet {states.get(rid)}")
            accept_some(db, rng.randint(1, 4))

    # A last worker, never killed, finishes the work.
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    check(done.returncode == 0, f"final worker exited {done.returncode}: {done.stderr}")
    with lqs.open(path) as db:
        states = check_invariants(db, expected, "final")
        check(states == expected, "final: not every request reached its expected state")
        dead = []
        while True:
            msgs = db[svc.DLQ].receive(max_number_of_messages=10, visibility_timeout=60)
            if not msgs:
                break
            dead += [json.loads(m.body)["request_id"] for m in msgs]
        failed = sorted(k for k, v in expected.items() if v == "FAILED")
        check(sorted(dead) == failed, f"final: DLQ holds {sorted(dead)}, FAILED are {failed}")
    for _, rid in killed_before_commit:
        check(states.get(rid) == "SUCCEEDED" or expected[rid] == "FAILED",
              f"final: {rid}, killed before its commit, is {states.get(rid)}")
    check(kills["after_effect"] > 0, "no round killed a worker between effect and commit")
    print(f"kill: {len(expected)} requests, {rounds} rounds, kills {kills}, {finished} "
          f"workers finished before their crash point, "
          f"{len(killed_before_commit)} killed between effect and commit; "
          f"{sum(v == 'SUCCEEDED' for v in states.values())} SUCCEEDED, "
          f"{sum(v == 'FAILED' for v in states.values())} FAILED")


# ---- twice: two workers with the same message --------------------------------------------

def scenario_twice(tmp):
    clock = lqs.ManualClock()
    out = os.path.join(tmp, "twice-out")
    with lqs.open(os.path.join(tmp, "twice-db"), clock=clock) as db:
        svc.setup(db, visibility_timeout=10, max_receive_count=5)
        w1, w2 = svc.ExportService(db, out), svc.ExportService(db, out)
        expected = {}

        # 1. Worker 1 is still working when its visibility timeout ends; worker 2 receives
        #    the message again and commits first. Then again with worker 1 committing first.
        for order in ("w2 first", "w1 first"):
            rid = svc.accept(db, {"format": "csv", "rows": 10})
            expected[rid] = "SUCCEEDED"
            (m1,) = w1.receive()
            tx1 = db.transaction()
            check(w1.handle(m1, tx1) == "succeeded", f"twice/{order}: worker 1 handles")
            tx1.delete_message(m1)
            clock.advance_seconds(11)
            (m2,) = w2.receive()
            check(m2.message_id == m1.message_id and m2.receive_count == 2,
                  f"twice/{order}: worker 2 received the same message")
            tx2 = db.transaction()
            check(w2.handle(m2, tx2) == "succeeded", f"twice/{order}: worker 2 handles")
            tx2.delete_message(m2)
            first, second = (tx2, tx1) if order == "w2 first" else (tx1, tx2)
            outcomes = []
            for tx in (first, second):
                try:
                    tx.commit()
                    outcomes.append("commit")
                except lqs.TransactionConflict:
                    outcomes.append("conflict")
            want = ["commit", "conflict"] if order == "w2 first" else ["conflict", "commit"]
            check(outcomes == want, f"twice/{order}: outcomes {outcomes}, expected {want}")
            check_invariants(db, expected, f"twice/{order}")

        # 2. The same job enqueued twice (two messages), handled at the same time: the
        #    record both read was changed by the first commit, the second conflicts; its
        #    message comes back and is then deleted as a duplicate.
        rid = svc.accept(db, {"format": "jsonl", "rows": 4})
        expected[rid] = "SUCCEEDED"
        (original,) = w1.receive()
        with db.transaction() as tx:
            tx.send(svc.JOBS, original.body)
        (copy,) = w2.receive()
        results = []
        tx1, tx2 = db.transaction(), db.transaction()
        w1.handle(original, tx1)
        w2.handle(copy, tx2)
        for tx, m in ((tx1, original), (tx2, copy)):
            tx.delete_message(m)
            try:
                tx.commit()
                results.append("commit")
            except lqs.TransactionConflict:
                results.append("conflict")
        check(results == ["commit", "conflict"], f"twice/duplicate job: {results}")
        clock.advance_seconds(11)
        (again,) = w2.receive()
        check(w2.process(again) == "duplicate", "twice/duplicate job: the copy is deleted")
        check_invariants(db, expected, "twice/duplicate job")

    # 3. Real time and threads: worker A's first job outlives the 1 s visibility timeout;
    #    worker B, started once A holds that job, works the others and receives A's job
    #    again while A still works on it. B's commit wins, A's conflicts, billed once.
    holding = threading.Event()
    redelivered = []

    class Recording(svc.ExportService):
        def checkpoint(self, point, msg):
            if point == "after_commit" and msg.receive_count > 1:
                redelivered.append(msg.message_id)

    class SlowOnce(Recording):
        def checkpoint(self, point, msg):
            super().checkpoint(point, msg)
            if point == "after_effect" and not holding.is_set():
                self.held = msg.message_id
                holding.set()
                time.sleep(1.5)

    with lqs.open(os.path.join(tmp, "twice-threads-db")) as db:
        svc.setup(db, visibility_timeout=1, max_receive_count=100)
        expected = {svc.accept(db, {"format": "csv", "rows": i}): "SUCCEEDED" for i in range(4)}
        a, b = SlowOnce(db, out), Recording(db, out)

        def run_b():
            holding.wait(30)
            b.work(until_empty=True, max_messages=1)

        threads = [threading.Thread(target=a.work,
                                    kwargs={"until_empty": True, "max_messages": 1}),
                   threading.Thread(target=run_b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
            check(not t.is_alive(), "twice/threads: a worker did not finish")
        stats = {k: a.stats[k] + b.stats[k] for k in a.stats}
        check(a.stats["conflict"] >= 1 and getattr(a, "held", None) in redelivered,
              f"twice/threads: A held {getattr(a, 'held', None)}, B committed "
              f"redeliveries {redelivered}, A's stats {a.stats}")
        check(stats["succeeded"] == len(expected), f"twice/threads: stats {stats}")
        check_invariants(db, expected, "twice/threads")
    print(f"twice: one commit won each race, the other conflicted; threads: {stats}")


# ---- poison: unknown schema version, and transient failures to the end ---------------------

def scenario_poison(tmp):
    clock = lqs.ManualClock()
    with lqs.open(os.path.join(tmp, "poison-db"), clock=clock) as db:
        svc.setup(db, visibility_timeout=30, max_receive_count=3)
        w = svc.ExportService(db, os.path.join(tmp, "poison-out"), backoff_base_seconds=1)
        v2 = svc.accept(db, {"format": "csv", "rows": 1}, schema_version=2)
        (m,) = w.receive()
        check(w.process(m) == "failed", "poison/v2: FAILED at the first receive")
        check_invariants(db, {v2: "FAILED"}, "poison/v2")
        check(queue_counts(db[svc.JOBS]) == 0, "poison/v2: the job is still queued")
        (dead,) = db[svc.DLQ].receive(visibility_timeout=0)
        error = dead.message_attributes["ExportError"].value
        check("unknown schema version 2" in error and
              dead.message_attributes["ReceiveCount"].value == "1",
              f"poison/v2: DLQ message says {error!r}")

        # Always unavailable: retried after 1 s, then 2 s, then FAILED at the 3rd receive.
        flaky = svc.accept(db, {"format": "csv", "rows": 1, "simulate_transient_failures": 99})
        expected = {v2: "FAILED", flaky: "FAILED"}
        for attempt, backoff in ((1, 1), (2, 2)):
            (m,) = w.receive()
            check(m.receive_count == attempt and w.process(m) == "retried",
                  f"poison/transient: attempt {attempt} retried")
            check_invariants(db, {v2: "FAILED", flaky: "SUCCEEDED"}, "poison/transient")
            clock.advance_millis(backoff * 1000 - 100)
            check(w.receive() == [], f"poison/transient: visible before its {backoff} s")
            clock.advance_millis(100)
        (m,) = w.receive()
        check(m.receive_count == 3 and w.process(m) == "failed", "poison/transient: gave up")
        check_invariants(db, expected, "poison/transient")
    print("poison: unknown schema version dead-lettered at once; transient failures "
          "retried after 1 s and 2 s, then dead-lettered")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--long", action="store_true", help="many more kill rounds")
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    rounds, n_requests = (300, 40) if args.long else (16, 12)
    print(f"chaos: seed {seed} ({'long' if args.long else 'short'})", flush=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        scenario_poison(tmp)
        scenario_twice(tmp)
        scenario_kill(tmp, rng, rounds, n_requests)
    took = time.monotonic() - started
    if violations:
        print(f"chaos: FAILED, {len(violations)} violations (seed {seed}, {took:.0f} s)")
        return 1
    print(f"chaos: OK (seed {seed}, {took:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
