"""dsana.pagerank against networkx.pagerank (1e-10 on the real graphs of
/work/shared/data/graphs, weighted, personalised, with dangling vertices),
against the dsana command line (the same digits), across workers, servers
and modes (the same bits), and its refusals (the CLI's one-line messages)."""
import glob
import os
import signal
import subprocess
import sys
import textwrap

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import dsana

GRAPHS = sorted(glob.glob(os.environ.get("DSANA_GRAPHS", "/work/shared/data/graphs") + "/*.txt.gz"))


def close(a, b, tol=1e-10):
    assert a.keys() == b.keys()
    worst = max(abs(a[k] - b[k]) for k in a)
    assert worst <= tol, worst


def random_digraph(n=300, p=0.02, seed=1, weighted=False):
    G = nx.gnp_random_graph(n, p, seed=seed, directed=True)
    rng = np.random.default_rng(seed)
    if weighted:
        for u, v in G.edges():
            G[u][v]["weight"] = float(rng.uniform(0.1, 5.0))
    return G


@pytest.mark.parametrize("path", GRAPHS or [None], ids=lambda p: os.path.basename(p) if p else "none")
def test_real_graph_matches_networkx(path):
    if path is None:
        pytest.skip("no real graphs in /work/shared/data/graphs (set DSANA_GRAPHS)")
    G = nx.read_edgelist(path, create_using=nx.DiGraph, nodetype=int)
    close(dsana.pagerank(G), nx.pagerank(G))


def test_verbose_prints_a_row_an_iteration(capfd):
    G = random_digraph(n=200)
    ranks = dsana.pagerank(G, verbose=True)
    out, _ = capfd.readouterr()
    rows = [line for line in out.splitlines() if line.split() and line.split()[0].isdigit()]
    assert "iterations:" in out and len(rows) >= 2, out
    assert ranks == dsana.pagerank(G)
    assert capfd.readouterr() == ("", "")


def test_dangling_vertices_match_networkx():
    G = random_digraph(n=400, p=0.004, seed=3)
    assert sum(1 for v in G if G.out_degree(v) == 0) > 20
    close(dsana.pagerank(G, tol=1e-12), nx.pagerank(G, tol=1e-12))


def test_weighted_matches_networkx():
    G = random_digraph(weighted=True)
    G.add_edge(0, 1, weight=0.0)  # a zero weight is no edge in networkx's matrix
    close(dsana.pagerank(G), nx.pagerank(G))
    close(dsana.pagerank(G, weight=None), nx.pagerank(G, weight=None))


def test_personalised_matches_networkx():
    G = random_digraph(n=300, p=0.01, seed=5, weighted=True)
    pers = {v: float(v % 7) for v in G}  # zeros too; the dangling mass follows it
    close(dsana.pagerank(G, alpha=0.9, personalization=pers), nx.pagerank(G, alpha=0.9, personalization=pers))


def test_undirected_and_multigraph_match_networkx():
    U = nx.gnp_random_graph(200, 0.03, seed=7)
    U.add_edge(3, 3)
    close(dsana.pagerank(U), nx.pagerank(U))
    M = nx.MultiDiGraph(random_digraph(n=100, p=0.05, seed=8))
    M.add_edges_from([(1, 2), (1, 2), (5, 5)])
    close(dsana.pagerank(M), nx.pagerank(M))


def test_sparse_matrix_and_arrays_give_the_networkx_ranks():
    G = random_digraph(weighted=True)
    nodes = list(G)
    want = np.array([nx.pagerank(G)[v] for v in nodes])
    A = nx.to_scipy_sparse_array(G, nodelist=nodes, format="csc")
    got = dsana.pagerank(A)
    assert isinstance(got, np.ndarray) and np.max(np.abs(got - want)) < 1e-10
    coo = A.tocoo()
    got2 = dsana.pagerank((coo.row, coo.col, coo.data))
    assert np.array_equal(got, got2)
    assert np.array_equal(got, dsana.pagerank(sp.csr_matrix(A)))


def test_same_bits_for_any_workers_servers_and_mode():
    G = random_digraph(n=500, p=0.01, seed=11, weighted=True)
    base = dsana.pagerank(G, workers=1, servers=1, tol=1e-12)
    for kw in ({"workers": 3, "servers": 2}, {"workers": 2, "mode": "bsp"}, {"workers": 4, "servers": 3}):
        assert dsana.pagerank(G, tol=1e-12, **kw) == base, kw


def test_same_digits_as_the_command_line(tmp_path):
    cli = os.environ.get("DSANA_CLI")
    if not cli or not os.path.exists(cli):
        pytest.skip("DSANA_CLI (the dsana binary) not set")
    G = random_digraph(n=300, p=0.02, seed=13)
    edges = tmp_path / "g.txt"
    with open(edges, "w") as f:
        f.write(f"# dsana graph: dense ids 0..{len(G) - 1}\n")
        f.writelines(f"{u}\t{v}\n" for u, v in G.edges())
    out = tmp_path / "r.txt"
    tol = repr(1e-9 * len(G))
    subprocess.run([cli, "pagerank", str(edges), "--tol", tol, "--out", str(out), "--quiet", "--workers", "2"],
                   check=True)
    got = dsana.pagerank(G, tol=1e-9)
    mine = "".join(f"{v}\t{got[v]:.12g}\n" for v in sorted(G))
    assert mine == out.read_text()


def test_refusals_are_one_line_errors():
    G = random_digraph()
    with pytest.raises(ValueError, match="empty graph"):
        dsana.pagerank(nx.DiGraph())
    with pytest.raises(ValueError, match="empty graph"):
        dsana.pagerank(nx.empty_graph(5, create_using=nx.DiGraph))
    H = G.copy()
    H.add_edge(0, 1, weight=-2.0)
    with pytest.raises(ValueError, match="weight -2"):
        dsana.pagerank(H)
    with pytest.raises(ValueError, match=r"^dsana pagerank: --workers 0: invalid value"):
        dsana.pagerank(G, workers=0)
    with pytest.raises(ValueError, match="--mode"):
        dsana.pagerank(G, mode="fast")
    with pytest.raises(ValueError, match="--damping 1.5: invalid value"):
        dsana.pagerank(G, alpha=1.5)
    with pytest.raises(TypeError):
        dsana.pagerank(G, unknown_option=1)
    with pytest.raises(TypeError):
        dsana.pagerank("not a graph")
    with pytest.raises(OSError, match="nope.json"):
        dsana.pagerank(G, scenario="/nonexistent/nope.json")
    with pytest.raises(dsana.PowerIterationFailedConvergence):
        dsana.pagerank(G, max_iter=2, tol=1e-15)
    assert issubclass(dsana.PowerIterationFailedConvergence, nx.PowerIterationFailedConvergence)


CHILD = textwrap.dedent("""
    import os, sys, time, numpy as np, dsana
    def threads():
        return len(os.listdir("/proc/self/task"))
    rng = np.random.default_rng(1)
    n, m = 200000, 4000000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    before = threads()
    print("start", flush=True)
    t = time.monotonic()
    try:
        dsana.pagerank((src, dst), tol=0, max_iter=100000, workers=2)
        print("finished")
    except KeyboardInterrupt:
        time.sleep(0.2)
        print("interrupted", round(time.monotonic() - t, 1), threads() - before, flush=True)
""")


def test_ctrl_c_raises_keyboard_interrupt_and_stops_every_role():
    env = dict(os.environ)
    p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True, env=env)
    assert p.stdout.readline().strip() == "start"
    import time

    time.sleep(3.0)  # the graph is built and the job running
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 0, out
    words = out.split()
    assert words[0] == "interrupted", out
    assert int(words[2]) <= 0, f"role threads left running: {out}"
