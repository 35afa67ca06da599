#!/usr/bin/python3
"""Plots lqs_bench --json output (bench/results/latest.json) into PNGs.

    /usr/bin/python3 bench/plot.py bench/results/latest.json docs/

writes
    perf-backlog.png     receive+delete throughput and p50/p99 against the
                         backlog (lqs and SQLite), log-scale backlog
    perf-latency.png     p50/p99 per workload (lqs, ceiling, SQLite)
    perf-ratios.png      lqs/ceiling and lqs/SQLite per workload, with the
                         targets' lines (0.5, 2)
    perf-tombstones.png  lifecycles/s and process CPU per lifecycle by tenth

Needs matplotlib (Debian: apt-get install -y python3-matplotlib).
"""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        return json.load(f)


def subtitle(doc):
    m = doc.get("machine", {})
    return "%s mode, %s cores, load at start %s" % (
        doc.get("config", {}).get("mode", "?"),
        m.get("cores", "?"),
        (m.get("loadavg_at_start", "?") or "?").split(" ")[0],
    )


def save(fig, out, name):
    """Lays out fig, writes it as out/name and closes it; returns the path."""
    fig.tight_layout()
    path = os.path.join(out, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def label_workloads(ax, rows):
    """One y tick per row, labelled with its workload, first row on top."""
    ax.set_yticks(list(range(len(rows))))
    ax.set_yticklabels([r["workload"] for r in rows], fontsize=8)
    ax.invert_yaxis()


def plot_backlog(doc, out):
    rows = [r for r in doc.get("backlog", []) if "lqs" in r]
    if not rows:
        return None
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    for system, style in (("lqs", "o-"), ("sqlite", "s--")):
        pts = [(r["backlog"], r[system]) for r in rows if system in r]
        if not pts:
            continue
        xs = [p[0] for p in pts]
        a.plot(xs, [p[1]["ops_per_sec"] for p in pts], style, label=system)
        b.plot(xs, [p[1]["p50_us"] for p in pts], style, label=system + " p50")
        b.plot(xs, [p[1]["p99_us"] for p in pts], style, alpha=0.55, label=system + " p99")
    for ax in (a, b):
        ax.set_xscale("log")
        ax.set_xlabel("messages waiting (backlog)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    a.set_ylabel("receive(1)+delete(1) per second")
    a.set_ylim(bottom=0)
    b.set_ylabel("receive+delete latency (us)")
    b.set_yscale("log")
    fig.suptitle("Throughput and latency against backlog (" + subtitle(doc) + ")")
    return save(fig, out, "perf-backlog.png")


def plot_latency(doc, out):
    rows = [r for r in doc.get("results", []) if r.get("p50_us") is not None]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(rows) + 1.5))
    for key, label, marker, color in (
        ("", "lqs", "o", "C0"),
        ("ceiling_", "ceiling", "^", "C2"),
        ("sqlite_", "sqlite", "s", "C3"),
    ):
        p50 = [r.get(key + "p50_us") for r in rows]
        p99 = [r.get(key + "p99_us") for r in rows]
        ys = [i for i, v in enumerate(p50) if v]
        ax.scatter([p50[i] for i in ys], ys, marker=marker, color=color, label=label + " p50")
        ys = [i for i, v in enumerate(p99) if v]
        ax.scatter([p99[i] for i in ys], ys, marker=marker, facecolors="none", edgecolors=color,
                   label=label + " p99")
    label_workloads(ax, rows)
    ax.set_xscale("log")
    ax.set_xlabel("latency per call (send) or per round (receive+delete; life: send+receive+delete), us")
    ax.grid(True, axis="x", which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=3, loc="lower right")
    ax.set_title("Latency percentiles (" + subtitle(doc) + ")")
    return save(fig, out, "perf-latency.png")


def plot_ratios(doc, out):
    rows = [r for r in doc.get("results", []) if r.get("ratio") is not None]
    if not rows:
        return None
    y = list(range(len(rows)))
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 0.32 * len(rows) + 1.5), sharey=True)
    a.barh(y, [r["ratio"] for r in rows], color="C0")
    a.axvline(0.5, color="k", ls="--", lw=1)
    a.axvline(1.0, color="grey", ls=":", lw=1)
    a.set_xlabel("lqs / raw RocksDB ceiling (target 0.5 for life b10)")
    b.barh(y, [r.get("sqlite_ratio") or 0 for r in rows], color="C3")
    b.axvline(2.0, color="k", ls="--", lw=1)
    b.axvline(1.0, color="grey", ls=":", lw=1)
    b.set_xlabel("lqs / SQLite (target 2; FIFO rows: no SQLite model)")
    label_workloads(a, rows)
    for ax in (a, b):
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle("Throughput ratios within one run (" + subtitle(doc) + ")")
    return save(fig, out, "perf-ratios.png")


def plot_tombstones(doc, out):
    t = doc.get("tombstones") or {}
    if not t:
        return None
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for system, x in t.items():
        tenths = list(range(1, len(x["tenths_per_sec"]) + 1))
        a.plot(tenths, x["tenths_per_sec"], "o-", label=system)
        if x.get("tenths_cpu_us_per_lifecycle"):
            b.plot(tenths, x["tenths_cpu_us_per_lifecycle"], "o-", label=system)
    a.set_ylabel("lifecycles/s (wall clock)")
    b.set_ylabel("process CPU us per lifecycle")
    for ax in (a, b):
        ax.set_xlabel("tenth of the run")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.suptitle("Tombstones: one queue, send/receive/delete (" + subtitle(doc) + ")")
    return save(fig, out, "perf-tombstones.png")


def main(argv):
    src = argv[1] if len(argv) > 1 else "bench/results/latest.json"
    out = argv[2] if len(argv) > 2 else "docs"
    os.makedirs(out, exist_ok=True)
    doc = load(src)
    for fn in (plot_backlog, plot_latency, plot_ratios, plot_tombstones):
        path = fn(doc, out)
        if path:
            print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
