"""tcplab: the models behind an executable textbook on parallel TCP and AIMD congestion control.

Shared models and infrastructure below, one package per chapter above: closed forms in
:mod:`tcplab.theory`, the exact fluid model in :mod:`tcplab.fluid` (loss policies in
:mod:`tcplab.policies`), the packet model in :mod:`tcplab.packet`, each chapter's experiments,
claims, charts and panel in :mod:`tcplab.chapters`, the house style of charts and panels in
:mod:`tcplab.charts` and :mod:`tcplab.widgets`, the experiments by name in
:mod:`tcplab.registry`, cached results in :mod:`tcplab.cache`, the command line in
:mod:`tcplab.cli` (each chapter's subcommand in its package's ``command.py``, declared in
:mod:`tcplab.commands`).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tcplab")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"

__all__ = ["__version__"]
