"""tcplab: the models behind an executable textbook on parallel TCP and AIMD congestion control.

Each module holds one idea: closed forms in :mod:`tcplab.theory`, the exact fluid model in
:mod:`tcplab.fluid`, loss policies in :mod:`tcplab.policies`, charts in :mod:`tcplab.charts`,
cached results in :mod:`tcplab.cache`, and the command line in :mod:`tcplab.cli`.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tcplab")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"

__all__ = ["__version__"]
