"""Write every notebook chapter as a Colab notebook (tcplab.launch.colab_notebook) into the
folder given: `make colab` writes _build/colab/chapters/NAME.ipynb, the layout the pages'
Colab links expect on the repository's notebooks branch (tools/publish-colab). Where the book
was built (_build/jupyter_execute), their text prints the numbers that build glued; without
a build, each shows as ⟨name⟩, with a note saying so."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import yaml

from tcplab.launch import colab_notebook, notebook_chapters, runtime_pins
from tcplab.offline import glued_values
from tcplab.plain_myst import Rendering

ROOT = Path(__file__).resolve().parents[1]


def main(target: str) -> None:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    repository = config["repository"]["url"]
    site = (config.get("html") or {}).get("baseurl", "")  # where the notebooks fetch the wheel
    pins = runtime_pins(ROOT / "requirements.txt")
    out = Path(target) / "chapters"
    out.mkdir(parents=True, exist_ok=True)
    executed = ROOT / "_build" / "jupyter_execute"
    for chapter in notebook_chapters(ROOT):
        path = out / f"{chapter.stem}.ipynb"
        rendering = Rendering(glue=glued_values(executed, chapter)) if executed.is_dir() else None
        nbformat.write(colab_notebook(chapter, repository, pins, site, rendering=rendering), path)
        print(path)


if __name__ == "__main__":
    main(sys.argv[1])
