"""Closed forms, one module per paper or topic; the simulations are checked against them.

:mod:`~tcplab.theory.altman` (the sawtooth, Theorem 1 and its boundary bound),
:mod:`~tcplab.theory.parallel` (parallel AIMD: ALL, MultTCP, unequal connections),
:mod:`~tcplab.theory.moments` (second moments, largest-rate, beatdown) and
:mod:`~tcplab.theory.loss` (Mathis et al., Padhye et al.). A new paper gets its own module
(morris, bmc, lu). This package imports nothing, so a model's fingerprint holds only the
closed forms it uses.
"""
