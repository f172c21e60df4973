"""পর্ব ১০-এর training loop: ডেটা ভাগ, DataLoader, এক ধাপ, এক epoch, validation, fit।

প্রতিটি function ছোট আর আলাদা, যাতে পর্বের cell আর student script একই ধাপ ডাকে।
সব এলোমেলোতা seed দিয়ে বাঁধা: model-এর শুরু ``torch.manual_seed``, shuffle-এর ক্রম
DataLoader-এর নিজের ``torch.Generator``, আর Dropout-এর mask global RNG থেকে।
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from .data import DATA_SEED, make_orders
from .model import DeliveryMLP

__all__ = [
    "N_TRAIN",
    "loss_fn",
    "BATCH_SIZE",
    "Split",
    "History",
    "split_orders",
    "make_loop_model",
    "make_loader",
    "train_step",
    "train_epoch",
    "evaluate",
    "fit",
]

#: ৪০০টি অর্ডারের প্রথম ৩২০টি training, বাকি ৮০টি validation
N_TRAIN = 320
#: mini-batch-এর মাপ
BATCH_SIZE = 32

loss_fn = nn.MSELoss()


@dataclass
class Split:
    """training আর validation অংশ (float32 tensor)।"""

    X_train: torch.Tensor
    y_train: torch.Tensor
    X_val: torch.Tensor
    y_val: torch.Tensor


@dataclass
class History:
    """প্রতি epoch-এ দুটি সংখ্যা: training loss (train mode-এ batch-গুলোর গড়) আর
    validation loss (eval mode, no_grad)।"""

    train: list = field(default_factory=list)
    val: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"train": list(self.train), "val": list(self.val)}


def split_orders(n: int = 400, n_train: int = N_TRAIN, seed: int = DATA_SEED) -> Split:
    """``make_orders``-এর ডেটা (আগে থেকেই এলোমেলো ক্রমে) প্রথম ``n_train``টি আর বাকিগুলোয় ভাগ।"""
    X, y = make_orders(n=n, seed=seed)
    return Split(X[:n_train], y[:n_train], X[n_train:], y[n_train:])


def make_loop_model(split: Split, seed: int = 0, p_drop: float = 0.1) -> DeliveryMLP:
    """পর্ব ০৯-এর DeliveryMLP; buffer-এর গড় আর std শুধু training অংশ থেকে।"""
    torch.manual_seed(seed)
    return DeliveryMLP(split.X_train.mean(0), split.X_train.std(0), p_drop=p_drop)


def make_loader(X: torch.Tensor, y: torch.Tensor, batch_size: int = BATCH_SIZE,
                seed: int = 0, shuffle: bool = True) -> DataLoader:
    """প্রতি epoch-এ নতুন ক্রমে mini-batch দেয়; ক্রম আসে loader-এর নিজের generator থেকে
    (``loader.generator``), তাই checkpoint-এ তার অবস্থা আলাদা করে রাখা যায়।"""
    generator = torch.Generator().manual_seed(seed)
    return DataLoader(TensorDataset(X, y), batch_size=batch_size, shuffle=shuffle,
                      generator=generator)


def train_step(model: nn.Module, opt: torch.optim.Optimizer, xb: torch.Tensor,
               yb: torch.Tensor) -> torch.Tensor:
    """এক ধাপ: forward → loss → zero_grad → backward → step। ফেরত দেয় loss (graph ছাড়া)।"""
    pred = model(xb)
    loss = loss_fn(pred, yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.detach()


def train_epoch(model: nn.Module, opt: torch.optim.Optimizer, loader: DataLoader) -> float:
    """একটি epoch: প্রথমে train mode, তারপর প্রতিটি mini-batch-এ এক ধাপ।
    ফেরত: উদাহরণ-প্রতি গড় loss (শেষ batch ছোট হলে তার ওজনও কম)।"""
    model.train()
    total, count = 0.0, 0
    for xb, yb in loader:
        loss = train_step(model, opt, xb, yb)
        total += loss.item() * len(xb)
        count += len(xb)
    return total / count


def evaluate(model: nn.Module, X: torch.Tensor, y: torch.Tensor) -> float:
    """validation: eval mode (Dropout বন্ধ) আর no_grad (graph নেই)। model eval mode-এই থাকে;
    পরের epoch নিজেই ``train()`` ডাকে।"""
    model.eval()
    with torch.no_grad():
        return loss_fn(model(X), y).item()


def fit(model: nn.Module, opt: torch.optim.Optimizer, loader: DataLoader, split: Split,
        epochs: int, history: History | None = None,
        after_epoch: Callable[[int, History], None] | None = None) -> History:
    """``epochs`` বার: train_epoch, তারপর evaluate। ``history`` দিলে তার পেছনে যোগ হয়
    (checkpoint থেকে আবার শুরুর জন্য)। ``after_epoch(epoch, history)`` প্রতি epoch-এর শেষে।"""
    history = history if history is not None else History()
    for _ in range(epochs):
        history.train.append(train_epoch(model, opt, loader))
        history.val.append(evaluate(model, split.X_val, split.y_val))
        if after_epoch is not None:
            after_epoch(len(history.train), history)
    return history
