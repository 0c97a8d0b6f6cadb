"""Regenerate data/ns3-dumbbell.csv: every appendix scenario in ns-3, in its own subprocess.

    python -m venv /opt/ns3venv && /opt/ns3venv/bin/pip install ns3==3.44.post0
    .venv/bin/python tools/ns3/run.py --ns3-python /opt/ns3venv/bin/python

ns-3 never enters tcplab's environment: this driver (tcplab's Python) reads the grid from
:mod:`tcplab.chapters.ns3.grid`, runs ``tools/ns3/dumbbell.py`` under the ns-3 environment's
Python, one subprocess per scenario (its seeds in turn: importing ns-3 takes longer than a
run) in a fresh empty working directory (ns-3's bindings search the working directory for
libraries; a fatal ns-3 error ends only that subprocess, and its seeds are then retried one
subprocess each), keeps
each result as one JSON line in ``--progress`` (an interrupted run resumes where it stopped),
and at the end writes the table and its provenance (ns-3 version, the script's hash, the
parameters, the command) to data/ atomically. The runs already in data/ns3-dumbbell.csv count
as done when the metadata's script hash is the script's now (so a scenario added to the grid
runs alone; ``--fresh`` runs everything again), and the new metadata lists the earlier runs
they came from. ``--only`` limits the run to scenarios whose
key contains the given text (e.g. ``--only sack``), for trying things; the table is only
written when every run of the grid is done, unless ``--write-partial`` asks for the scenarios
done so far (the metadata then lists the missing ones).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from tcplab import cache
from tcplab.chapters.ns3.grid import MATCHED, SCENARIOS, SEEDS, scenario_key

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "dumbbell.py"
NAME = "ns3-dumbbell"
DROP = ("per_flow_mbps", "simulator")


def key_of(params: dict) -> str:
    return json.dumps([*scenario_key(params), params["seed"]])


def run_batch(python: str, batch: list[dict], timeout: float) -> list[dict]:
    """Run ``batch`` (the seeds of one scenario) in one ns-3 process, in a fresh empty
    working directory; if ns-3 dies, run each of them alone, so one fatal error costs one
    run (an error then names it)."""
    with tempfile.TemporaryDirectory(prefix="ns3-run-") as cwd:
        done = subprocess.run(
            [python, str(SCRIPT), json.dumps(batch)],
            cwd=cwd, capture_output=True, text=True, timeout=timeout * len(batch),
        )  # fmt: skip
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode == 0 and len(rows) == len(batch):
        return rows
    if len(batch) > 1:
        return [row for params in batch for row in run_batch(python, [params], timeout)]
    tail = "\n".join(done.stderr.splitlines()[-5:])
    raise RuntimeError(f"ns-3 failed (exit {done.returncode}) on {batch[0]}:\n{tail}")


def shipped_runs() -> tuple[dict[str, dict], dict | None]:
    """The runs in data/ns3-dumbbell.csv, keyed as the progress file's, if the script that
    made them is the one here now (else none), and their metadata."""
    found = cache.load(cache.Entry(NAME))
    if found is None:
        return {}, None
    table, meta = found
    if meta.get("script_sha256") != hashlib.sha256(SCRIPT.read_bytes()).hexdigest():
        return {}, None
    runs = {}
    for record in table.to_dict("records"):
        row = {k: (None if isinstance(v, float) and v != v else v) for k, v in record.items()}
        row["per_flow_mbps"] = json.loads(row["per_flow_mbps"])
        if row.get("min_rto_ms") is None:
            row["min_rto_ms"] = MATCHED["min_rto_ms"]
        runs[key_of(row)] = row
    return runs, meta


def ns3_version(python: str) -> str:
    done = subprocess.run(
        [python, "-m", "pip", "show", "ns3"], capture_output=True, text=True, timeout=120
    )
    for line in done.stdout.splitlines():
        if line.startswith("Version:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns3-python", required=True, help="python of the ns-3 environment")
    parser.add_argument("--progress", default=str(Path(tempfile.gettempdir()) / f"{NAME}.jsonl"))
    parser.add_argument("--only", default=None)
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--fresh", action="store_true", help="ignore the runs in data/")
    parser.add_argument(
        "--write-partial", action="store_true",
        help="write the table from the scenarios done so far (metadata lists the missing ones)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    progress = Path(args.progress)
    done, earlier = ({}, None) if args.fresh else shipped_runs()
    if progress.exists():
        for line in progress.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                done[key_of(row)] = row
    batches = [
        [s.params(seed) for seed in SEEDS if key_of(s.params(seed)) not in done]
        for s in SCENARIOS
        if args.only is None or args.only in json.dumps(s.params(SEEDS[0]))
    ]
    batches = [batch for batch in batches if batch]
    if args.write_partial:
        batches = []
    with progress.open("a") as out:
        for batch in tqdm(batches, desc="ns-3 scenarios", unit="scenario"):
            for row in run_batch(args.ns3_python, batch, args.timeout):
                out.write(json.dumps(row) + "\n")
                out.flush()
                done[key_of(row)] = row
    complete = [s for s in SCENARIOS if all(key_of(s.params(seed)) in done for seed in SEEDS)]
    missing = [s for s in SCENARIOS if s not in complete]
    if missing and not args.write_partial:
        print(f"{len(missing)} scenarios still missing; the table is not written")
        return 0
    wanted = {key_of(s.params(seed)) for s in complete for seed in SEEDS}
    rows = [done[k] for k in sorted(wanted)]
    table = pd.DataFrame([{k: v for k, v in r.items() if k not in DROP} for r in rows])
    table["per_flow_mbps"] = [json.dumps(r["per_flow_mbps"]) for r in rows]
    meta = {
        "name": NAME,
        "simulator": "ns-3",
        "ns3_version": ns3_version(args.ns3_python),
        "ns3_install": "pip install ns3==3.44.post0 (a separate environment)",
        "script": "tools/ns3/dumbbell.py",
        "script_sha256": hashlib.sha256(SCRIPT.read_bytes()).hexdigest(),
        "driver": "tools/ns3/run.py",
        "command": " ".join(["tools/ns3/run.py", *(argv or sys.argv[1:])]),
        "matched": MATCHED,
        "seeds": list(SEEDS),
        "scenarios": len(complete),
        "missing": [list(scenario_key(s)) for s in missing],
        "rows": len(table),
        "made": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "machine": f"{platform.machine()}, {platform.python_version()} driver",
        "ns3_wall_s_total": float(table["wall_s"].sum()),
    }
    if earlier is not None:
        previous = earlier.get("earlier_runs", [])
        here = {k: earlier.get(k) for k in ("made", "command", "rows", "ns3_version", "machine")}
        meta["earlier_runs"] = [*previous, here]
    cache.store(cache.Entry(NAME), table, meta)
    print(f"wrote {NAME}.csv ({len(table)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
