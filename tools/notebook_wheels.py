"""The site's copies of the packages a downloaded chapter installs (its set-up cell's pins,
tcplab.launch.RUNTIME_PACKAGES, and what they need), for the machines a Jupyter kernel most
often runs on: Linux on x86-64 (Colab, Binder, JupyterHub), CPython 3.11 and 3.12. With them a
notebook downloaded from the site runs where the site is the only host it reaches; elsewhere
its set-up cell installs the same pins from PyPI.

    python tools/notebook_wheels.py lock    # resolve, then write requirements-notebook-wheels.txt
    python tools/notebook_wheels.py fetch DIR    # download what it lists, hashes checked

``lock`` (run after a pin changes; it needs PyPI) resolves the pins' closure for each target
under requirements.txt's constraints and writes every file's sha256; ``fetch`` (``make site``
runs it once, into .notebook-wheels-cache) downloads exactly those files, with
``--require-hashes``, and tcplab.offline.write_wheelhouse puts them on the site.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tcplab.launch import RUNTIME_PACKAGES, runtime_pins

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements-notebook-wheels.txt"
#: (Python version, interpreter tag) of each target; the platform is Linux x86-64
TARGETS = (("3.11", "cp311"), ("3.12", "cp312"))
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")
_WHEEL = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)-")


def _download(args: list[str], folder: Path, version: str) -> None:
    platforms = [f"--platform={p}" for p in PLATFORMS]
    command = [
        sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
        "--only-binary", ":all:", *platforms, "--python-version", version,
        "--implementation", "cp", "-d", str(folder), *args,
    ]  # fmt: skip
    subprocess.run(command, check=True, timeout=900)


def lock() -> Path:
    """Resolve the pins' closure for every target and write :data:`LOCK`."""
    pins = runtime_pins(ROOT / "requirements.txt")
    wanted = [f"{name}=={pins[name]}" for name in RUNTIME_PACKAGES]
    files: dict[str, dict[str, str]] = {}  # "name==version" -> {file: sha256}
    with tempfile.TemporaryDirectory(prefix="tcplab-wheels-") as scratch:
        for version, _ in TARGETS:
            folder = Path(scratch) / version
            _download([*wanted, "-c", str(ROOT / "requirements.txt")], folder, version)
            for wheel in sorted(folder.glob("*.whl")):
                found = _WHEEL.match(wheel.name)
                assert found, wheel.name
                key = f"{found['name'].lower().replace('_', '-')}=={found['version']}"
                digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
                files.setdefault(key, {})[wheel.name] = digest
    lines = [
        "# The site's copies of a downloaded chapter's packages (tools/notebook_wheels.py lock:",
        "# do not edit), for Linux x86-64, CPython "
        + " and ".join(v for v, _ in TARGETS)
        + "; every file's sha256.",
    ]
    for key in sorted(files):
        hashes = " ".join(f"--hash=sha256:{d}" for d in sorted(set(files[key].values())))
        lines.append(f"{key} {hashes}")
    LOCK.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return LOCK


def fetch(folder: Path) -> list[Path]:
    """Download every file :data:`LOCK` lists into ``folder``, hashes checked."""
    for version, _ in TARGETS:
        _download(["--no-deps", "--require-hashes", "-r", str(LOCK)], folder, version)
    return sorted(folder.glob("*.whl"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("lock", help="resolve the pins for every target; write the lock file")
    fetch_cmd = sub.add_parser("fetch", help="download the locked files")
    fetch_cmd.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    if args.command == "lock":
        print(lock())
        return 0
    wheels = fetch(args.folder)
    size = sum(w.stat().st_size for w in wheels)
    print(f"{len(wheels)} wheels, {size / 1e6:.0f} MB, in {args.folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
