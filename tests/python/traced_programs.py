"""Realistic NumPy functions, written as practitioners write them (no shapelab in sight), with
the symbolic arguments they are traced with and sizes to run them at: the corpus of
tests/python/test_trace.py. `exact` says every output is computed by exact operations (gathers,
integer arithmetic, comparisons): compared bitwise with NumPy; the others within 1e-12 relative."""
import numpy as np


def softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=axis, keepdims=True)

def attention(q, k, v):
    d = q.shape[-1]
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(d)
    return softmax(scores) @ v

def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta

def cross_entropy(logits, y):
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    n = logits.shape[0]
    return -logp[np.arange(n), y].mean()

def kmeans_step(x, c):
    d2 = ((x[:, None, :] - c[None, :, :]) ** 2).sum(axis=-1)
    assign = d2.argmin(axis=1)
    onehot = (assign[:, None] == np.arange(c.shape[0])[None, :]).astype(x.dtype)
    counts = onehot.sum(axis=0)
    return (onehot.T @ x) / np.maximum(counts, 1)[:, None], assign

def kalman_step(x, P, F, Q, H, R, z):
    x = F @ x
    P = F @ P @ F.T + Q
    S = H @ P @ H.T + R
    K = P @ H.T @ np.linalg.inv(S)
    x = x + K @ (z - H @ x)
    P = (np.eye(P.shape[0]) - K @ H) @ P
    return x, P

def multihead(x, h):
    b, t, d = x.shape
    q = x.reshape(b, t, h, d // h).transpose(0, 2, 1, 3)
    s = q @ q.swapaxes(-1, -2)
    o = softmax(s) @ q
    return o.transpose(0, 2, 1, 3).reshape(b, t, d)

def positional_encoding(t, d):
    pe = np.zeros((t, d))
    pos = np.arange(t)[:, None]
    div = np.exp(np.arange(0, d, 2) * (-np.log(10000.0) / d))
    pe[:, 0::2] = np.sin(pos * div)
    pe[:, 1::2] = np.cos(pos * div)
    return pe

def frames(s, w, hop):
    n = s.shape[0]
    count = (n - w) // hop + 1
    idx = np.arange(count)[:, None] * hop + np.arange(w)[None, :]
    return s[idx]

def standardize(x):
    x = x.copy()
    x -= x.mean(axis=0)
    x /= x.std(axis=0) + 1e-8
    return x

def masked_mean(x, mask):
    x = np.where(mask, x, 0.0)
    return x.sum(axis=1) / np.maximum(mask.sum(axis=1), 1)


def patches(img, p):
    b, hh, ww, c = img.shape
    x = img.reshape(b, hh // p, p, ww // p, p, c).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(b, (hh // p) * (ww // p), p * p * c)


def one_hot_counts(y, k):
    onehot = np.zeros((y.shape[0], k), dtype=np.int64)
    onehot[np.arange(y.shape[0]), y] = 1
    return onehot, onehot.sum(axis=0)


def pairwise_sq_dists(a, b):
    aa = (a * a).sum(axis=1)[:, None]
    bb = (b * b).sum(axis=1)[None, :]
    return aa + bb - 2.0 * a @ b.T


def rmsnorm(x, w):
    return x / np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + 1e-6) * w


def top_rows(x, k):
    order = np.argsort(-x.sum(axis=1), kind="stable")
    return x[order[:k]]


def running_stats(x):
    c = np.cumsum(x, axis=0)
    counts = np.arange(1, x.shape[0] + 1)[:, None]
    return c / counts, np.diff(x, axis=0)


from shapelab import array as A, size as S  # noqa: E402

# (function, arguments, assumptions, points: sizes to run at, ints: bound of integer inputs, exact)
CORPUS = [
    (softmax, [A(("n", "m"))], [], [dict(n=3, m=4), dict(n=1, m=1), dict(n=2, m=0)], {}, False),
    (attention, [A(("b", "t", "d")), A(("b", "s", "d")), A(("b", "s", "e"))], ["d >= 1"],
     [dict(b=2, t=3, s=4, d=5, e=2), dict(b=1, t=1, s=1, d=1, e=1)], {}, False),
    (layer_norm, [A(("n", "d")), A(("d",)), A(("d",))], [], [dict(n=3, d=4), dict(n=0, d=2)], {}, False),
    (cross_entropy, [A(("n", "c")), A(("n",), "int64")], ["n >= 1", "c >= 1"], [dict(n=4, c=3), dict(n=1, c=1)],
     {"y": "c"}, False),
    (kmeans_step, [A(("n", "d")), A(("k", "d"))], [], [dict(n=5, d=2, k=3), dict(n=1, d=1, k=1), dict(n=2, d=2, k=0)],
     {}, False),
    (kalman_step, [A(("s",)), A(("s", "s")), A(("s", "s")), A(("s", "s")), A(("o", "s")), A(("o", "o")), A(("o",))],
     [], [dict(s=3, o=2), dict(s=1, o=1)], {}, False),
    (multihead, [A(("b", "t", "d")), S("h")], [], [dict(b=2, t=3, d=4, h=2), dict(b=1, t=2, d=6, h=3),
                                                  dict(b=1, t=2, d=5, h=2), dict(b=1, t=1, d=4, h=0)], {}, False),
    (positional_encoding, [S("t"), S("d")], [], [dict(t=3, d=4), dict(t=2, d=1), dict(t=2, d=3)], {}, False),
    (frames, [A(("n",)), S("w"), S("hop")], [], [dict(n=7, w=3, hop=2), dict(n=2, w=3, hop=2), dict(n=1, w=5, hop=1),
                                                dict(n=4, w=2, hop=0)], {}, True),
    (standardize, [A(("n", "d"))], [], [dict(n=4, d=3), dict(n=1, d=2)], {}, False),
    (masked_mean, [A(("n", "m")), A(("n", "m"), "bool")], [], [dict(n=3, m=4), dict(n=2, m=0)], {}, False),
    (patches, [A(("b", "hh", "ww", "c")), S("p")], [], [dict(b=1, hh=4, ww=6, c=2, p=2), dict(b=2, hh=3, ww=3, c=1, p=3),
                                                      dict(b=1, hh=4, ww=5, c=1, p=2)], {}, True),
    (one_hot_counts, [A(("n",), "int64"), S("k")], [], [dict(n=5, k=3), dict(n=0, k=2)], {"y": "k"}, True),
    (pairwise_sq_dists, [A(("n", "d")), A(("m", "d"))], [], [dict(n=3, m=2, d=4), dict(n=0, m=1, d=2)], {}, False),
    (rmsnorm, [A(("n", "d")), A(("d",))], [], [dict(n=2, d=3)], {}, False),
    (top_rows, [A(("n", "d")), S("k")], [], [dict(n=5, d=2, k=3), dict(n=2, d=2, k=4)], {}, True),
    (running_stats, [A(("n", "d"))], [], [dict(n=4, d=2), dict(n=0, d=3)], {}, False),
]
