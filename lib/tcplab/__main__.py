"""``python -m tcplab``: the ``tcplab`` command, for a kernel whose PATH lacks the venv's bin."""

from tcplab.cli import main

raise SystemExit(main())
