"""ছোট, নির্ধারিত (deterministic) training: full batch, Adam, কয়েকশো ধাপ।

পুরো training loop-এর বিস্তার পর্ব ১০-এ; এখানে শুধু একটি শেখানো model পাওয়ার জন্য।
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from .data import DATA_SEED, make_orders
from .model import build_model

__all__ = ["TrainHistory", "train_model", "train_delivery_model", "mse"]


@dataclass
class TrainHistory:
    """প্রতি epoch-এর training loss (train mode, Dropout চালু) আর শেষের মাপ।"""

    losses: list = field(default_factory=list)
    final_train_mse: float = float("nan")  # eval mode-এ, পুরো ডেটায়
    epochs: int = 0
    lr: float = 0.0


def mse(model, X, y, train_mode: bool = False) -> float:
    """পুরো ডেটায় mean squared error। ``train_mode=True`` দিলে Dropout চালু রেখে মাপে
    (ভুল অভ্যাসের ফল দেখাতে); শেষে model আগের mode-এ ফেরত যায়।"""
    was_training = model.training
    model.train(train_mode)
    with torch.no_grad():
        value = ((model(X) - y) ** 2).mean().item()
    model.train(was_training)
    return value


def train_model(model, X, y, epochs: int = 800, lr: float = 0.02, seed: int = 0) -> TrainHistory:
    """Full-batch Adam। ``seed`` শুধু Dropout-এর mask-এর জন্য। শেষে model eval mode-এ।"""
    torch.manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    history = TrainHistory(epochs=epochs, lr=lr)
    model.train()
    for _ in range(epochs):
        opt.zero_grad()
        loss = ((model(X) - y) ** 2).mean()
        loss.backward()
        opt.step()
        history.losses.append(loss.item())
    model.eval()
    history.final_train_mse = mse(model, X, y)
    return history


def train_delivery_model(seed: int = DATA_SEED, epochs: int = 800, lr: float = 0.02):
    """ডেটা + model + training এক ডাকে। ফেরত দেয় ``(model, history, X, y)``, model eval mode-এ।"""
    X, y = make_orders(seed=seed)
    model = build_model(seed=seed)
    history = train_model(model, X, y, epochs=epochs, lr=lr, seed=seed)
    return model, history, X, y
