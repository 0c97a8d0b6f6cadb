"""Show that a regenerated golden net holds the same numbers as an older one, renames applied.

    python tools/golden_renames.py OLD_REV

For every file under tests/golden/ that differs from OLD_REV, apply the renames below to the
old version and compare: a table's CSV text must then be identical to the byte, a CLI case's
JSON equal (same keys, same numbers exactly). Exits 1, naming the file, if anything else moved.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the renames of issue 17 (one name per quantity, N connections is ``flows`` everywhere, as
#: the CLI of every chapter names it): table columns, JSON keys, CLI flags
COLUMNS = {"n": "flows"}
KEYS = {"n": "flows"}
FLAGS = {"--n": "--flows"}


def _old(rev: str, path: Path) -> str:
    relative = path.relative_to(ROOT).as_posix()
    return subprocess.run(
        ["git", "show", f"{rev}:{relative}"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout


def _rename_header(text: str) -> str:
    header, _, body = text.partition("\n")
    names = [COLUMNS.get(name, name) for name in header.split(",")]
    return ",".join(names) + "\n" + body


def _rename_json(value: object) -> object:
    if isinstance(value, dict):
        return {KEYS.get(k, k): _rename_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename_json(v) for v in value]
    if isinstance(value, str):
        return FLAGS.get(value, value)
    return value


def main(rev: str) -> int:
    changed = subprocess.run(
        ["git", "diff", "--name-only", rev, "--", "tests/golden"],
        capture_output=True, text=True, check=True, cwd=ROOT,
    ).stdout.split()  # fmt: skip
    moved = []
    for name in changed:
        path = ROOT / name
        old, new = _old(rev, path), path.read_text()
        if path.suffix == ".csv":
            same = _rename_header(old) == new
            print(f"{name}: {'identical' if same else 'DIFFERENT'} after renaming the header")
        else:
            before, after = _rename_json(json.loads(old)), json.loads(new)
            same = before == after
            cases = sum(1 for k in after if before.get(k) == after[k])
            print(f"{name}: {cases} of {len(after)} cases equal after the renames")
        if not same:
            moved.append(name)
    if moved:
        print(f"moved beyond the renames: {moved}", file=sys.stderr)
        return 1
    print(f"{len(changed)} golden files differ from {rev} only by {COLUMNS | KEYS | FLAGS}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "HEAD"))
