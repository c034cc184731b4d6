#!/usr/bin/env bash
# python.sh [BUILD] - dsana's Python estimators next to scikit-learn's on
# Fashion-MNIST (60000 x 784): LogisticRegression, MLPClassifier(256,) and
# KMeans(10), and the MLPs again on float32 pixels (mlp32); test accuracy
# (k-means: test inertia) and fit time, with
# ratios (bench/python.py). Needs dataset-fashion-mnist, python3-sklearn and
# libopenblas0-pthread (scikit-learn on OpenBLAS); --install installs them.
# Times a shared machine: run it alone. EPOCHS (default 10) for the MLPs;
# RUNS (default 3) fits of each, dsana's and scikit-learn's alternated: the
# median times, their ratio (dsana / scikit-learn), each run's on a line.
# MODELS="mlp" (or "logreg kmeans", ...) runs only those pairs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = "--install" ]; then
  apt-get install -y -qq --no-install-recommends dataset-fashion-mnist python3-sklearn libopenblas0-pthread
  shift
fi
build=${1:-$here/../build}
[ -e "$build/python/dsana/__init__.py" ] || { echo "python.sh: no $build/python/dsana (build with -DDSANA_PYTHON=ON)" >&2; exit 2; }
[ -e /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] || { echo "python.sh: install dataset-fashion-mnist" >&2; exit 2; }
PYTHONPATH="$build/python" exec /usr/bin/python3 "$here/python.py"
