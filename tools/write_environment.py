"""Write environment.yml from requirements.txt, so conda users get exactly the same pins."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = """\
# Conda users' and Binder's environment: `conda env create -f environment.yml && conda
# activate tcplab`, then `./postBuild` (it runs `pip install -e .`; Binder runs it itself).
# Generated from requirements.txt by `make pins`; do not edit by hand.
name: tcplab
channels:
  - conda-forge
dependencies:
  - python=3.11
  - nodejs>=18
  - pip
  - pip:
"""


def main() -> None:
    pins = [
        line.strip()
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    text = HEADER + "".join(f"      - {pin}\n" for pin in pins)
    (ROOT / "environment.yml").write_text(text)


if __name__ == "__main__":
    main()
