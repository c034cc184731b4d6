"""dsana: a parameter-server runtime for iterative machine learning, from Python.

Every call runs a real dsana job in this process (a scheduler, servers and
workers as threads, the GIL released while it runs); results are the bits
the `dsana` command gives for the same data and options, for any number of
workers or servers and either mode. See docs/python.md.
"""
from ._dsana import version as __version__
from ._pagerank import pagerank, PowerIterationFailedConvergence

__all__ = ["pagerank", "PowerIterationFailedConvergence", "__version__"]

try:  # the estimators need scikit-learn
    from ._estimators import LogisticRegression, KMeans, MLPClassifier  # noqa: F401

    __all__ += ["LogisticRegression", "KMeans", "MLPClassifier"]
except ImportError as _e:  # pragma: no cover - a system without python3-sklearn
    if "sklearn" not in str(_e) and "_estimators" not in str(_e):
        raise
