"""scikit-learn estimators over dsana's apps: LogisticRegression (logreg),
KMeans (kmeans) and MLPClassifier (mlp). fit() runs a dsana job on the
training data in memory (a C-contiguous float64 or float32 X, or a CSR
matrix with float64 data, is read in place; anything else is converted
once by sklearn's check_array, to float64); predict() and friends are numpy on the fitted
model. The models are the bits `dsana APP` writes for the same data.
Every estimator takes the runtime's options (workers, servers, mode,
scenario, threads) and verbose: a true value prints the fit's progress as
`dsana APP` does (a row an iteration, or an epoch for the MLP, and the
summary on stdout; a live progress line on a terminal's stderr)."""
import numbers
import os

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, ClusterMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _dsana
from ._runtime import number, run, runtime_args


def _source(X, y):
    """An in-memory dataset over X (CSR or dense, float64 or float32) and labels y."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    if sp.issparse(X):
        X = X.tocsr()
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        indptr = np.asarray(X.indptr, dtype=np.uint64)
        indices = X.indices.view(np.uint32) if X.indices.dtype == np.int32 else X.indices.astype(np.uint32)
        data = np.ascontiguousarray(X.data, dtype=np.float64)  # a float32 CSR's values: copied
        return _dsana.dataset_csr(X.shape[1], indptr, indices, data, y)
    return _dsana.dataset_dense(X.shape[0], X.shape[1], X, y)


def _cores():
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _fit_job(est, app, X, y, app_args, servers=None, want_iterations=False):
    """servers: the count when est.servers is None (None: the CLI's default);
    want_iterations: also every iteration's metrics (runtime.run)."""
    src = _source(X, y)
    argv = [app, src.name, "\0quiet"] + app_args
    servers = est.servers if est.servers is not None else servers
    argv += runtime_args(est.workers, servers, est.mode, est.scenario, est.threads)
    try:
        return run(argv, {src.name: "X"}, warning_class=ConvergenceWarning, verbose=est.verbose,
                   want_iterations=want_iterations)
    except ValueError as e:
        if "not finite" in str(e):  # the words sklearn's callers look for
            raise ValueError(f"{e} (NaN or inf in X)") from None
        if "1 distinct label" in str(e):
            raise ValueError(f"{e} (one class)") from None
        raise


# X's types read in place (a dense float32 X as the dataset's float values,
# as the CLI reads IDX files; the apps compute what they compute from it);
# anything else becomes the first
_DTYPES = (np.float64, np.float32)


class _DsanaEstimator(BaseEstimator):
    def _check_X(self, X, reset):
        return self._validate_data(X, accept_sparse="csr", dtype=_DTYPES, order="C", reset=reset,
                                   force_all_finite=not reset)


class _DsanaClassifier(_DsanaEstimator, ClassifierMixin):
    def _check_Xy(self, X, y):
        X, y = self._validate_data(X, y, accept_sparse="csr", dtype=_DTYPES, order="C",
                                   force_all_finite=False, y_numeric=False)
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        return X, y_enc.astype(np.float64)

    def predict(self, X):
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


def _softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    return z


class LogisticRegression(_DsanaClassifier):
    """L2-regularised logistic regression (softmax for more than two
    classes) fitted by dsana's logreg app: L-BFGS over the parameter
    servers, scikit-learn's objective with C = 1/--l2 and an unpenalised
    intercept. tol: stop when the gradient's 2-norm is below it."""

    def __init__(self, C=1.0, tol=1e-4, max_iter=100, workers=None, servers=None, mode=None, scenario=None,
                 threads=None, verbose=0):
        self.C = C
        self.tol = tol
        self.max_iter = max_iter
        self.workers = workers
        self.servers = servers
        self.mode = mode
        self.scenario = scenario
        self.threads = threads
        self.verbose = verbose

    def fit(self, X, y):
        X, y_enc = self._check_Xy(X, y)
        if not isinstance(self.C, numbers.Real) or not self.C > 0:
            raise ValueError(f"C must be a number > 0, got {self.C!r}")
        args = ["--l2", number(1.0 / self.C), "--tol", number(self.tol), "--max-iter", str(self.max_iter)]
        values, iters, _, _ = _fit_job(self, "logreg", X, y_enc, args)
        F = X.shape[1]
        self.coef_ = np.ascontiguousarray(values[:F].T)
        self.intercept_ = values[F].copy()
        self.n_iter_ = np.array([iters], dtype=np.int32)
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict_proba(self, X):
        scores = self.decision_function(X)
        if scores.ndim == 1:
            p = 1.0 / (1.0 + np.exp(-scores))
            return np.column_stack([1.0 - p, p])
        return _softmax(scores)

    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))


class MLPClassifier(_DsanaClassifier):
    """A multilayer perceptron (ReLU or tanh hidden layers, a softmax
    output of one unit per class, two for two classes) trained by dsana's
    mlp app: mini-batch SGD with momentum over the parameter servers,
    bit-identical for any worker or server count. max_iter counts epochs
    (as scikit-learn's sgd solver does); alpha is the L2 penalty.
    loss_curve_: each epoch's mean batch loss (L2 term included), as
    scikit-learn's; best_loss_ its least, loss_ its last; t_ the training
    samples seen (max_iter epochs of every row). The tasks compute in float32
    (apps/mlp/mlp.h); the parameters and their updates are float64."""

    def __init__(self, hidden_layer_sizes=(256,), activation="relu", alpha=1e-4, batch_size=256,
                 learning_rate="cosine", learning_rate_init=0.1, max_iter=10, momentum=0.9,
                 nesterovs_momentum=True, random_state=None, workers=None, servers=None, mode=None, scenario=None,
                 threads=None, verbose=0):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.alpha = alpha
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.learning_rate_init = learning_rate_init
        self.max_iter = max_iter
        self.momentum = momentum
        self.nesterovs_momentum = nesterovs_momentum
        self.random_state = random_state
        self.workers = workers
        self.servers = servers
        self.mode = mode
        self.scenario = scenario
        self.threads = threads
        self.verbose = verbose

    def fit(self, X, y):
        X, y_enc = self._check_Xy(X, y)
        hidden = self.hidden_layer_sizes
        hidden = [hidden] if isinstance(hidden, numbers.Integral) else list(hidden)
        seed = check_random_state(self.random_state).randint(0, 2**31) if not isinstance(
            self.random_state, numbers.Integral) else self.random_state
        args = ["--hidden", ",".join(str(h) for h in hidden), "--activation", str(self.activation),
                "--l2", number(self.alpha), "--batch", str(self.batch_size), "--lr-schedule", str(self.learning_rate),
                "--lr", number(self.learning_rate_init), "--epochs", str(self.max_iter),
                "--momentum", number(self.momentum), "--seed", str(seed)]
        # no evaluation of every row after the last step: the same model,
        # and scikit-learn's fit does not score the training set either
        args += ["--nesterov", "on" if self.nesterovs_momentum else "off", "--final-eval", "off"]
        # servers=None: a server per core (at most 4): every step ends with
        # the servers' sum and update over every parameter, which S servers
        # split S ways (on 2 cores, 2.9 against 3.9 ms a step of Fashion-MNIST)
        values, iters, _, _, per_iter = _fit_job(self, "mlp", X, y_enc, args, servers=min(_cores(), 4),
                                                 want_iterations=True)
        # scikit-learn's loss_curve_: each epoch's mean loss over its batches
        # (cross-entropy plus the L2 term), which the app reports at each
        # epoch's end
        self.loss_curve_ = [it["epoch_loss"] for it in per_iter if it.get("epoch_loss") is not None]
        self.best_loss_ = min(self.loss_curve_) if self.loss_curve_ else None
        self.loss_ = self.loss_curve_[-1] if self.loss_curve_ else None
        widths = [X.shape[1]] + hidden + [len(self.classes_)]
        flat, at = values[:, 0], 0
        self.coefs_, self.intercepts_ = [], []
        for a, b in zip(widths[:-1], widths[1:]):
            self.coefs_.append(flat[at:at + a * b].reshape(a, b).copy())
            at += a * b
            self.intercepts_.append(flat[at:at + b].copy())
            at += b
        self.n_layers_ = len(widths)
        self.n_outputs_ = widths[-1]
        self.out_activation_ = "softmax"
        self.n_iter_ = self.max_iter
        self.t_ = self.max_iter * X.shape[0]  # scikit-learn's: training samples seen (every row an epoch)
        return self

    def predict_proba(self, X):
        check_is_fitted(self)
        h = self._check_X(X, reset=False)
        for i, (W, b) in enumerate(zip(self.coefs_, self.intercepts_)):
            h = np.asarray(h @ W) + b
            if i + 1 < len(self.coefs_):
                h = np.maximum(h, 0) if self.activation == "relu" else np.tanh(h)
        return _softmax(h)


class KMeans(_DsanaEstimator, ClusterMixin, TransformerMixin):
    """k-means (Lloyd's iterations from k-means++ or random rows) by dsana's
    kmeans app. tol: stop when the objective changes by at most tol,
    relative (scikit-learn's tol bounds the centres' shift instead).
    n_init runs keep the one of least inertia."""

    def __init__(self, n_clusters=8, init="k-means++", n_init=1, max_iter=300, tol=1e-4, random_state=None,
                 workers=None, servers=None, mode=None, scenario=None, threads=None, verbose=0):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.workers = workers
        self.servers = servers
        self.mode = mode
        self.scenario = scenario
        self.threads = threads
        self.verbose = verbose

    def fit(self, X, y=None):
        X = self._check_X(X, reset=True)
        inits = {"k-means++": "kmeans++", "random": "random"}
        if not isinstance(self.init, str) or self.init not in inits:
            raise ValueError(f"init must be 'k-means++' or 'random', got {self.init!r}")
        if isinstance(self.n_init, bool) or not isinstance(self.n_init, numbers.Integral) or self.n_init < 1:
            raise ValueError(f"n_init must be an integer >= 1, got {self.n_init!r}")
        rng = check_random_state(self.random_state)
        best = None
        for _ in range(self.n_init):
            seed = self.random_state if isinstance(self.random_state, numbers.Integral) and self.n_init == 1 \
                else rng.randint(0, 2**31)
            args = ["--k", str(self.n_clusters), "--init", inits[self.init], "--seed", str(seed),
                    "--max-iter", str(self.max_iter), "--tol", number(self.tol)]
            values, iters, _, _ = _fit_job(self, "kmeans", X, np.zeros(X.shape[0]), args)
            centers = values.reshape(self.n_clusters, X.shape[1])
            labels, inertia = self._assign(X, centers)
            if best is None or inertia < best[2]:
                best = (centers, labels, inertia, iters)
        self.cluster_centers_, self.labels_, self.inertia_, self.n_iter_ = best
        return self

    @staticmethod
    def _sq_distances(X, centers):
        xx = np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X) else np.einsum("ij,ij->i", X, X)
        d = xx[:, None] - 2.0 * np.asarray(X @ centers.T) + np.einsum("ij,ij->i", centers, centers)[None, :]
        return np.maximum(d, 0.0)

    def _assign(self, X, centers):
        d = self._sq_distances(X, centers)
        labels = np.argmin(d, axis=1)
        return labels, float(d[np.arange(d.shape[0]), labels].sum())

    def predict(self, X):
        check_is_fitted(self)
        return self._assign(self._check_X(X, reset=False), self.cluster_centers_)[0]

    def transform(self, X):
        check_is_fitted(self)
        return np.sqrt(self._sq_distances(self._check_X(X, reset=False), self.cluster_centers_))

    def score(self, X, y=None):
        check_is_fitted(self)
        return -self._assign(self._check_X(X, reset=False), self.cluster_centers_)[1]
