"""python.py - dsana's scikit-learn estimators against scikit-learn's own on
Fashion-MNIST (bench/python.sh runs it): accuracy on the test set (inertia
for k-means) and fit time, with the ratios. Pixels / 255 as float64."""
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


def main():
    from sklearn.cluster import KMeans
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier

    X = idx("train-images-idx3-ubyte.gz") / 255.0
    y = idx("train-labels-idx1-ubyte.gz").ravel()
    Xt = idx("t10k-images-idx3-ubyte.gz") / 255.0
    yt = idx("t10k-labels-idx1-ubyte.gz").ravel()
    epochs = int(os.environ.get("EPOCHS", "10"))
    pairs = [
        ("logreg", dsana.LogisticRegression(max_iter=100), LogisticRegression(max_iter=100)),
        ("mlp", dsana.MLPClassifier(hidden_layer_sizes=(256,), max_iter=epochs, random_state=1),
         MLPClassifier(hidden_layer_sizes=(256,), max_iter=epochs, random_state=1)),
        ("kmeans", dsana.KMeans(10, n_init=1, random_state=1), KMeans(10, n_init=1, random_state=1)),
    ]
    print(f"{'model':8} {'dsana':>10} {'sklearn':>10} {'ratio':>7} {'dsana s':>9} {'sklearn s':>10} {'speed-up':>9}")
    for name, ours, theirs in pairs:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_ours = timed(ours, X, y) if name != "kmeans" else timed(ours, X)
            t_theirs = timed(theirs, X, y) if name != "kmeans" else timed(theirs, X)
        if name == "kmeans":
            a, b = ours.score(Xt), theirs.score(Xt)  # minus the test inertia
            a, b = -a, -b
        else:
            a, b = ours.score(Xt, yt), theirs.score(Xt, yt)
        print(f"{name:8} {a:10.4f} {b:10.4f} {a / b:7.3f} {t_ours:9.2f} {t_theirs:10.2f} {t_theirs / t_ours:9.2f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
