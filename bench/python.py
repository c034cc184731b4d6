"""python.py - dsana's scikit-learn estimators against scikit-learn's own on
Fashion-MNIST (bench/python.sh runs it): accuracy on the test set (inertia
for k-means) and fit time, with the ratios. Pixels / 255 as float64 (as
scikit-learn's users pass them), and for the MLP again as float32
("mlp32": scikit-learn's MLP then computes in float32, as dsana's does).
RUNS (default 3) fits of each, dsana's and scikit-learn's alternated: the
median times (each run's on the next line) and their ratio; MODELS
(e.g. "mlp kmeans"; default all three) picks the pairs; this host's
speed moves by tens of percent between minutes, scikit-learn's MLP fit
from 10.8 to 18 s, so one pair says little."""
import gzip
import os
import sys
import time

import numpy as np

import dsana

DIR = os.environ.get("FASHION_MNIST", "/usr/share/datasets/fashion-mnist")


def idx(name):
    with gzip.open(os.path.join(DIR, name)) as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * dims).reshape(shape[0], -1)


def timed(model, *args):
    t = time.perf_counter()
    model.fit(*args)
    return time.perf_counter() - t


def fits(model, args, runs):
    """runs fits of fresh clones of model; the last fitted one and the times."""
    from sklearn.base import clone

    times = []
    for _ in range(runs):
        fitted = clone(model)
        times.append(timed(fitted, *args))
    return fitted, times


def main():
    from sklearn.cluster import KMeans
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier

    X = idx("train-images-idx3-ubyte.gz") / 255.0
    y = idx("train-labels-idx1-ubyte.gz").ravel()
    Xt = idx("t10k-images-idx3-ubyte.gz") / 255.0
    yt = idx("t10k-labels-idx1-ubyte.gz").ravel()
    X32, Xt32 = X.astype(np.float32), Xt.astype(np.float32)
    epochs = int(os.environ.get("EPOCHS", "10"))
    pairs = [
        ("logreg", dsana.LogisticRegression(max_iter=100), LogisticRegression(max_iter=100)),
        ("mlp", dsana.MLPClassifier(hidden_layer_sizes=(256,), max_iter=epochs, random_state=1),
         MLPClassifier(hidden_layer_sizes=(256,), max_iter=epochs, random_state=1)),
        ("kmeans", dsana.KMeans(10, n_init=1, random_state=1), KMeans(10, n_init=1, random_state=1)),
        # the MLP on float32 pixels: scikit-learn then computes in float32
        # too, as dsana's tasks always do (apps/mlp/mlp.h): the same
        # precision on both sides
        ("mlp32", dsana.MLPClassifier(hidden_layer_sizes=(256,), max_iter=epochs, random_state=1),
         MLPClassifier(hidden_layer_sizes=(256,), max_iter=epochs, random_state=1)),
    ]
    only = os.environ.get("MODELS", "").split()
    pairs = [p for p in pairs if not only or p[0] in only]
    runs = int(os.environ.get("RUNS", "3"))
    print(f"{'model':8} {'dsana':>10} {'sklearn':>10} {'ratio':>7} {'dsana s':>9} {'sklearn s':>10} {'speed-up':>9}"
          f" {'time ratio':>10}   ({runs} runs each, alternated; median times)")
    for name, ours, theirs in pairs:
        import warnings

        args = {"kmeans": (X,), "mlp32": (X32, y)}.get(name, (X, y))
        t_ours, t_theirs = [], []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(runs):  # alternated, so that a slow phase of the host falls on both
                ours_fit, t = fits(ours, args, 1)
                t_ours += t
                theirs_fit, t = fits(theirs, args, 1)
                t_theirs += t
        if name == "kmeans":
            a, b = -ours_fit.score(Xt), -theirs_fit.score(Xt)  # the test inertia
        else:
            Xs = Xt32 if name == "mlp32" else Xt
            a, b = ours_fit.score(Xs, yt), theirs_fit.score(Xs, yt)
        mo, mt = float(np.median(t_ours)), float(np.median(t_theirs))
        print(f"{name:8} {a:10.4f} {b:10.4f} {a / b:7.3f} {mo:9.2f} {mt:10.2f} {mt / mo:9.2f} {mo / mt:10.3f}")
        print(f"{'':8} runs: dsana {' '.join(f'{t:.2f}' for t in t_ours)} s, "
              f"scikit-learn {' '.join(f'{t:.2f}' for t in t_theirs)} s")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
