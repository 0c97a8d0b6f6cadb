"""One-time migration (run once, at ec0aec1, then removed): bind every shipped table to its
metadata and record its quick canary, without changing any table.

Run in a checkout of ec0aec1 (the code that made every table in data/) with
lib/tcplab/frames.py added (a new module no experiment imports, so no fingerprint moves):

    PYTHONPATH=lib nice python tools/stamp_once.py

It stops, changing nothing, unless data/ is as committed (git status) and every registered
table is fresh by fingerprint (the code here made it). Then it records, in each
data/*.meta.json, ``table_sha256`` where it is missing (the sha256 of the committed bytes)
and, for every registered experiment, ``quick_sha256`` (:func:`tcplab.frames.digest` of its
quick table at the table's seed, computed now, never from a cache), ``quick_reads`` (the
fields of the quick parameters that run read), ``quick_params`` and ``quick_wall_s``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from tcplab import cache, frames, registry

DATA = Path(cache.DATA_DIR)


def tracking(params: Any) -> tuple[Any, set[str]]:
    names = {f.name for f in dataclasses.fields(params)}
    reads: set[str] = set()

    def __getattribute__(self: Any, attribute: str) -> Any:  # noqa: N807
        if attribute in names:
            reads.add(attribute)
        return object.__getattribute__(self, attribute)

    kind = type(params)
    tracked = object.__new__(type(kind.__name__, (kind,), {"__getattribute__": __getattribute__}))
    for name in names:
        object.__setattr__(tracked, name, object.__getattribute__(params, name))
    return tracked, reads


def quick(name: str) -> dict[str, Any]:
    os.environ.pop("TCPLAB_QUICK_CACHE", None)
    experiment = registry.REGISTRY[name]
    params = experiment.parameters("quick")
    started = time.perf_counter()
    tracked, reads = tracking(params)
    try:
        table = experiment.function()(tracked, 0)
        read = sorted(reads)
    except Exception:
        table = experiment.function()(params, 0)
        read = ["*"]
    return {
        "quick_sha256": frames.digest(table),
        "quick_reads": read,
        "quick_params": cache.jsonable(params),
        "quick_wall_s": round(time.perf_counter() - started, 3),
    }


def main() -> int:
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", str(DATA)], capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    if dirty:
        print(f"data/ is not as committed:\n{dirty}", file=sys.stderr)
        return 1
    names = sorted(registry.REGISTRY)
    not_fresh = []
    for name in names:
        experiment = registry.REGISTRY[name]
        _, meta = cache.read(cache.Entry(name))
        same = (meta["params"], meta["seed"], meta["scale"]) == (
            cache.jsonable(experiment.parameters("full")),
            0,
            "full",
        )
        if not (same and cache.is_fresh(meta, experiment.modules())):
            not_fresh.append(name)
    if not_fresh:
        print(f"not fresh by fingerprint, nothing stamped: {not_fresh}", file=sys.stderr)
        return 1
    with ProcessPoolExecutor(2) as pool:
        canaries = dict(zip(names, pool.map(quick, names), strict=True))
    for path in sorted(DATA.glob("*.meta.json")):
        name = path.name[: -len(".meta.json")]
        meta = json.loads(path.read_text(encoding="utf-8"))
        data = (DATA / f"{name}.csv").read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if meta.setdefault("table_sha256", digest) != digest:
            print(f"{name}: recorded table_sha256 is not its table's", file=sys.stderr)
            return 1
        meta.update(canaries.get(name, {}))
        temporary = path.with_name(path.name + ".stamp.tmp")
        temporary.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(temporary, path)
        stamped = canaries.get(name, {}).get("quick_sha256", "")[:12] or "table digest only"
        print(f"{name}: {stamped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
