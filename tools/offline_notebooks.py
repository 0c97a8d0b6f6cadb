"""Write the site's notebooks folder (tcplab.offline.write_notebooks: every chapter as a
notebook that installs the book, the wheel it installs, both in a zip) into the folder given,
as every book build does into _build/html/notebooks; tools/notebook-check replays one.

Usage: python tools/offline_notebooks.py FOLDER [--site URL] [--student]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml

from tcplab.offline import write_notebooks

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    parser.add_argument(
        "--site",
        default=(config.get("html") or {}).get("baseurl", ""),
        help="the book's address, where the notebooks fetch the wheel (default: html.baseurl)",
    )
    parser.add_argument("--student", action="store_true", help="without the solutions")
    args = parser.parse_args(argv)
    repository = config["repository"]["url"]
    for path in write_notebooks(
        ROOT, args.folder, repository, site=args.site, solutions=not args.student
    ):
        print(path)


if __name__ == "__main__":
    main()
