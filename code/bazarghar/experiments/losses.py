"""পর্ব ১০ · পরীক্ষা ১০: loss function বাছাই — MSE, MAE, Huber, আর দেরি/সময়মতো-তে CrossEntropy।"""

from __future__ import annotations

import torch
from torch import nn

from ..loop import Split


def late_labels(split: Split) -> tuple:
    """training অংশের মাঝের মান (median)-এর বেশি মিনিট = দেরি (১), না হলে সময়মতো (০)।
    ফেরত ``(cut, t_train, t_val)``।"""
    cut = split.y_train.median()
    return cut, (split.y_train > cut).long(), (split.y_val > cut).long()


def late_setup(split: Split, seed: int = 0):
    """দেরি/সময়মতো-র classifier (৩ → ১৬ → ২) আর standardize করা input, সব float64।
    শুরুর weight চার দশমিকে round: float32-এর ``uniform_`` CPU-ভেদে শেষ bit-এ আলাদা হতে
    পারে, round করলে সেই তফাত মুছে যায় (পর্ব ০৯-এর training-এর মতো)।
    ফেরত ``(clf, X_train, X_val, t_train, t_val)``।"""
    X_train, X_val = split.X_train.double(), split.X_val.double()
    mean, std = X_train.mean(0), X_train.std(0)
    torch.manual_seed(seed)
    clf = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 2)).double()
    with torch.no_grad():
        for p in clf.parameters():
            p.copy_(p.round(decimals=4))
    _, t_train, t_val = late_labels(split)
    return clf, (X_train - mean) / std, (X_val - mean) / std, t_train, t_val
