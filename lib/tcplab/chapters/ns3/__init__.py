"""Appendix: the packet model checked against ns-3 (issue 14).

The chapter's experiments, declared for :mod:`tcplab.registry`; this file imports no model.
"""

EXPERIMENTS: tuple = ()
