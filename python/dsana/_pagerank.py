"""dsana.pagerank: networkx.pagerank's semantics, computed by dsana's
PageRank app on an in-memory graph (no file, no subprocess)."""
import numbers

import numpy as np

from . import _dsana
from ._runtime import number, run, runtime_args

try:
    import networkx as _nx

    _Base = _nx.PowerIterationFailedConvergence
except ImportError:  # pragma: no cover
    _nx = None

    class _Base(RuntimeError):
        def __init__(self, num_iterations, *args, **kw):
            super().__init__(f"power iteration failed to converge within {num_iterations} iterations")


class PowerIterationFailedConvergence(_Base):
    """The ranks did not converge within max_iter iterations (networkx's
    exception when networkx is installed)."""


def _edges_from_networkx(G, weight):
    nodes = list(G)
    index = {v: i for i, v in enumerate(nodes)}
    m = G.number_of_edges()
    src = np.empty(m, dtype=np.uint32)
    dst = np.empty(m, dtype=np.uint32)
    w = np.empty(m, dtype=np.float64)
    data = G.edges(data=weight, default=1) if weight is not None else ((u, v, 1) for u, v in G.edges())
    for k, (u, v, x) in enumerate(data):
        src[k], dst[k], w[k] = index[u], index[v], x
    if not G.is_directed():  # each edge both ways, a self loop once (networkx's matrix)
        loop = src == dst
        src, dst = np.concatenate([src, dst[~loop]]), np.concatenate([dst, src[~loop]])
        w = np.concatenate([w, w[~loop]])
    return nodes, src, dst, w


def _source_from_arrays(G, weight):
    """A graph source from a scipy.sparse matrix (A[u, v]: edge u -> v) or
    (src, dst[, weights]) arrays; returns (n, source, weighted)."""
    try:
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover
        sp = None
    if sp is not None and sp.issparse(G):
        if G.ndim != 2 or G.shape[0] != G.shape[1]:
            raise ValueError(f"dsana pagerank: the adjacency matrix must be square, not {G.shape}")
        A = G.tocsc()  # no copy when G is CSC already
        if not A.has_canonical_format:
            A = A.copy()
            A.sum_duplicates()
        n = A.shape[0]
        w = np.asarray(A.data, dtype=np.float64) if weight is not None else None
        if w is not None and np.any(w == 0):  # a zero entry is no edge (networkx's matrix)
            A = A.copy()
            A.eliminate_zeros()
            w = np.asarray(A.data, dtype=np.float64)
        indptr = np.asarray(A.indptr, dtype=np.uint64)
        indices = np.asarray(A.indices, dtype=np.uint32)
        weighted = w is not None and not np.all(w == 1)
        _check_weights(w)
        return n, _dsana.graph_csc(n, indptr, indices, w if weighted else None), weighted
    if not isinstance(G, (tuple, list)) or len(G) not in (2, 3):
        raise TypeError("pagerank: G must be a networkx graph, a scipy.sparse matrix or (src, dst[, weights]) arrays")
    src = np.asarray(G[0])
    dst = np.asarray(G[1])
    if src.ndim != 1 or dst.shape != src.shape:
        raise ValueError(f"dsana pagerank: src and dst must be 1-D arrays of one length, not {src.shape} and {dst.shape}")
    if src.size and (src.dtype.kind not in "iu" or dst.dtype.kind not in "iu"):
        raise TypeError("pagerank: src and dst must be integer vertex ids")
    if src.size and (src.min() < 0 or dst.min() < 0):
        raise ValueError("dsana pagerank: negative vertex id")
    n = int(max(src.max(), dst.max())) + 1 if src.size else 0
    w = np.asarray(G[2], dtype=np.float64) if len(G) == 3 and weight is not None else None
    if w is not None and w.shape != src.shape:
        raise ValueError(f"dsana pagerank: {w.shape[0]} weights for {src.shape[0]} edges")
    return (n, *_graph_from_edges(n, src, dst, w))


def _check_weights(w):
    if w is not None and w.size and not np.all(w >= 0):
        k = int(np.flatnonzero(~(w >= 0))[0])
        raise ValueError(f"dsana pagerank: edge {k}: weight {w[k]!r} (want >= 0, finite)")


def _graph_from_edges(n, src, dst, w):
    _check_weights(w)
    if w is not None:
        keep = w != 0  # a zero weight is no edge (networkx's matrix)
        src, dst, w = src[keep], dst[keep], w[keep]
    weighted = w is not None and not np.all(w == 1)
    return _dsana.graph_edges(
        max(n, 1), np.ascontiguousarray(src, np.uint32), np.ascontiguousarray(dst, np.uint32), w if weighted else None
    ), weighted


def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, weight="weight",
             workers=None, servers=None, mode=None, scenario=None, threads=None, verbose=False):
    """PageRank as networkx.pagerank computes it (same alpha, personalization,
    weight, tol and max_iter semantics: the dangling mass follows the
    personalization; stop when the L1 change is below N * tol; raise
    PowerIterationFailedConvergence after max_iter iterations).

    G: a networkx graph (returns a dict keyed by node), a scipy.sparse
    matrix whose entry (u, v) is the edge u -> v, or (src, dst[, weights])
    integer arrays (both return a numpy array indexed by vertex).
    personalization: a dict keyed by node (networkx graphs) or an array of
    N weights. workers, servers, mode ("dsana" or "bsp"), scenario (a JSON
    file), threads: the runtime's options; the ranks do not depend on them.
    verbose: print as `dsana pagerank` does (a row an iteration and the
    summary on stdout, a live progress line on a terminal's stderr).
    """
    if not isinstance(alpha, numbers.Real) or not isinstance(tol, numbers.Real):
        raise TypeError("pagerank: alpha and tol must be numbers")
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral):
        raise TypeError("pagerank: max_iter must be an integer")
    nodes = None
    if _nx is not None and isinstance(G, _nx.Graph):
        nodes, src, dst, w = _edges_from_networkx(G, weight)
        n = len(nodes)
        graph, weighted = _graph_from_edges(n, src, dst, w if weight is not None else None) if n else (None, False)
    else:
        n, graph, weighted = _source_from_arrays(G, weight)
    if n == 0 or graph is None:
        raise ValueError("dsana pagerank: G: empty graph (no edges)")
    argv = ["pagerank", graph.name, "--damping", number(alpha), "--max-iter", str(int(max_iter)),
            "--tol", number(float(tol) * n), "--top", "0", "\0quiet"]
    argv += runtime_args(workers, servers, mode, scenario, threads)
    if weighted:
        argv.append("--weighted")
    pers = None
    if personalization is not None:
        if nodes is not None and isinstance(personalization, dict):
            p = np.array([personalization.get(v, 0) for v in nodes], dtype=np.float64)
        else:
            p = np.ascontiguousarray(personalization, dtype=np.float64)
        if p.shape != (n,):
            raise ValueError(f"dsana pagerank: personalization: {p.size} weights for {n} vertices")
        if p.sum() == 0 and np.all(p >= 0):
            raise ZeroDivisionError("dsana pagerank: personalization weights sum to 0")
        pers = _dsana.vector(p)
        argv += ["--personalization", pers.name]
    if not graph.name:
        raise RuntimeError("dsana pagerank: the graph was not registered")
    names = {graph.name: "G"}
    if pers is not None:
        names[pers.name] = "personalization"
    values, iters, converged, _ = run(argv, names, quiet_not_converged=True, verbose=verbose)
    if not converged and tol > 0:
        raise PowerIterationFailedConvergence(max_iter)
    ranks = values[:, 0]
    if nodes is None:
        return ranks
    return dict(zip(nodes, map(float, ranks)))
