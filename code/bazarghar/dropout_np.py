"""nn.Dropout-এর NumPy প্রতিচ্ছবি: inverted dropout, নিজের training flag-সহ।

Training-এ প্রতিটি মান সম্ভাবনা p-তে শূন্য হয়, আর টিকে থাকা মান 1/(1 − p) দিয়ে গুণ হয়,
যাতে গড় অপরিবর্তিত থাকে; eval-এ input হুবহু ফেরত।
"""

from __future__ import annotations

import numpy as np

__all__ = ["NumpyDropout", "dropout_stats_experiment", "format_dropout_stats"]


class NumpyDropout:
    """``NumpyDropout(p, rng)``: ``rng`` একটি ``np.random.Generator``।"""

    def __init__(self, p: float, rng: np.random.Generator):
        if not 0.0 <= p < 1.0:
            raise ValueError("p অবশ্যই 0 ≤ p < 1")
        self.p = p
        self.rng = rng
        self.training = True

    def train(self, mode: bool = True) -> "NumpyDropout":
        self.training = bool(mode)
        return self

    def eval(self) -> "NumpyDropout":
        return self.train(False)

    def __call__(self, h):
        h = np.asarray(h)
        if self.training and self.p > 0:
            survive = self.rng.random(h.shape) >= self.p
            return h * survive / (1.0 - self.p)
        return h


def dropout_stats_experiment(seed: int = 42, n_rows: int = 10_000, width: int = 16) -> dict:
    """পর্বের NumPy পরীক্ষা, একই ক্রমে rng ডাকা:

    1. p = 0.5, ones(8)-এ train mode-এ দুবার, তারপর eval-এ একবার
    2. (10000, 16) আকারের 2.0-ভরা array-তে p = 0.1, তারপর p = 0.5: শূন্যের অনুপাত আর গড়
    3. scale (1/(1 − p)) ছাড়া p = 0.5-এর mask: গড় প্রায় অর্ধেক

    seed 42-এ ফল: দুটি mask [2,0,2,2,0,2,2,2] ও [0,0,0,2,2,2,0,0]; p=0.1 → 0.099, 2.0018;
    p=0.5 → 0.501, 1.9956; scale ছাড়া 0.9952।
    """
    rng = np.random.default_rng(seed)
    drop = NumpyDropout(0.5, rng)
    ones = np.ones(8)
    first = drop.train()(ones)
    second = drop(ones)
    evaluated = drop.eval()(ones)

    big = np.full((n_rows, width), 2.0)
    drop.train()
    stats = {}
    for rate in (0.1, 0.5):
        drop.p = rate
        dropped = drop(big)
        stats[rate] = {"zero_frac": float(np.mean(dropped == 0)), "mean": float(dropped.mean())}
    unscaled = big * (rng.random(big.shape) >= 0.5)
    return {
        "train_1": first.tolist(),
        "train_2": second.tolist(),
        "eval": evaluated.tolist(),
        "stats": stats,
        "unscaled_mean": float(unscaled.mean()),
        "true_mean": 2.0,
        "shape": (n_rows, width),
    }


def format_dropout_stats(result: dict) -> str:
    """পরীক্ষার ফল ছাপার রূপে।"""
    lines = [
        f"train: {np.array(result['train_1'])}",
        f"train: {np.array(result['train_2'])}",
        f"eval : {np.array(result['eval'])}",
    ]
    for p, s in result["stats"].items():
        lines.append(f"p = {p}: শূন্যের ভাগ {s['zero_frac']:.3f}, গড় {s['mean']:.4f}")
    lines.append(f"scale ছাড়া (p = 0.5): গড় {result['unscaled_mean']:.4f}")
    return "\n".join(lines)
