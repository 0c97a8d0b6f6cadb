"""Write every notebook chapter as a Colab notebook (tcplab.launch.colab_notebook) into the
folder given: `make colab` writes _build/colab/chapters/NAME.ipynb, the layout the pages'
Colab links expect on the repository's notebooks branch (tools/publish-colab)."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import yaml

from tcplab.launch import colab_notebook, notebook_chapters, runtime_pins

ROOT = Path(__file__).resolve().parents[1]


def main(target: str) -> None:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    repository = config["repository"]["url"]
    site = (config.get("html") or {}).get("baseurl", "")  # where the notebooks fetch the wheel
    pins = runtime_pins(ROOT / "requirements.txt")
    out = Path(target) / "chapters"
    out.mkdir(parents=True, exist_ok=True)
    for chapter in notebook_chapters(ROOT):
        path = out / f"{chapter.stem}.ipynb"
        nbformat.write(colab_notebook(chapter, repository, pins, site=site), path)
        print(path)


if __name__ == "__main__":
    main(sys.argv[1])
