"""One package per chapter of the book, named like the chapter.

A chapter package holds the chapter's own code: ``experiments.py`` (the figures' sweeps:
a frozen parameter dataclass with the paper's values as defaults and a ``quick()`` variant,
-> a tidy DataFrame), ``claims.py`` (paper-vs-book rows and the numbers the prose quotes),
``charts.py`` (altair builders), ``panel.py`` (the live ipywidgets panel, if any) and any
module only this chapter needs. Its ``__init__.py`` declares the experiments
(``EXPERIMENTS``, read by :mod:`tcplab.registry`) and imports nothing else, so listing the
experiments loads no model. A new chapter starts as a copy of one of these packages.
"""
