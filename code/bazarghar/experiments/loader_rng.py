"""পর্ব ১০ · পরীক্ষা ১৫: DataLoader-এর এলোমেলোতা কোথা থেকে আসে।

এক, ``generator`` না দিলে loader প্রতিবার ``iter()``-এ global RNG থেকে সংখ্যা টানে (shuffle
বন্ধ থাকলেও: worker-দের seed-এর ভিত্তি), তাই পরের Dropout-এর mask বদলে যায়।
দুই, ``num_workers > 0``: প্রতিটি worker আলাদা process। PyTorch প্রতিটি worker-এর torch,
``random`` আর NumPy-র global RNG আলাদা seed দেয় (ভিত্তি আসে loader-এর generator থেকে), কিন্তু
dataset-এর নিজের RNG object (যেমন ``np.random.default_rng``) প্রতিটি worker-এ হুবহু কপি হয়;
``worker_init_fn``-এ তাকে worker-এর নিজের seed দিতে হয়।
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset, get_worker_info

from ..loop import split_orders

__all__ = ["JitterOrders", "seed_worker", "dropout_mask_after", "loader_rng_demo",
           "format_loader_rng"]


class JitterOrders(Dataset):
    """প্রতিটি অর্ডারের দূরত্বে একটু এলোমেলো নড়চড় (augmentation): দুটি উৎস থেকে — NumPy-র
    global RNG আর dataset-এর নিজের ``default_rng``।"""

    def __init__(self, X: torch.Tensor, seed: int = 0):
        self.X = X
        self.rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        return len(self.X)

    def __getitem__(self, i):
        return torch.tensor([i, np.random.randint(1000), int(self.rng.integers(1000))])


def seed_worker(worker_id: int) -> None:
    """প্রতিটি worker-এ dataset-এর নিজের RNG নতুন করে: PyTorch-এর দেওয়া worker-seed থেকে।"""
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)


def dropout_mask_after(loader: DataLoader | None) -> list:
    """seed 1, তারপর (থাকলে) loader-এর প্রথম batch, তারপর একটি Dropout-এর mask।"""
    torch.manual_seed(1)
    if loader is not None:
        next(iter(loader))
    return (nn.Dropout(0.5)(torch.ones(12)) == 0).int().tolist()


def _draws(loader: DataLoader) -> list:
    """প্রতিটি batch-এর প্রথম অর্ডার: (index, NumPy-র global থেকে, dataset-এর rng থেকে)।"""
    return [batch[0].tolist() for batch in loader]


def loader_rng_demo(init=seed_worker) -> dict:
    """``init``: worker_init_fn (পর্বের cell নিজের লেখা ``seed_worker`` দেয়)।"""
    split = split_orders()
    data = TensorDataset(split.X_train, split.y_train)
    plain = dropout_mask_after(None)
    masks = {
        "shuffle, generator ছাড়া": dropout_mask_after(DataLoader(data, 32, shuffle=True)),
        "shuffle বন্ধ, generator ছাড়া": dropout_mask_after(DataLoader(data, 32)),
        "shuffle, নিজের generator": dropout_mask_after(
            DataLoader(data, 32, shuffle=True, generator=torch.Generator().manual_seed(0))),
    }
    X = split.X_train[:8]

    def workers(init, seed=0):
        return _draws(DataLoader(JitterOrders(X), batch_size=2, num_workers=2,
                                 generator=torch.Generator().manual_seed(seed),
                                 worker_init_fn=init))

    without, with_init = workers(None), workers(init)
    return {
        "mask_same": {name: mask == plain for name, mask in masks.items()},
        "without": without,
        "with_init": with_init,
        # batch ০ যায় worker ০-এ, batch ১ worker ১-এ: দুজনের dataset-rng-এর প্রথম সংখ্যা
        "copied_rng": without[0][2] == without[1][2],
        "numpy_differs": without[0][1] != without[1][1],
        "init_differs": with_init[0][2] != with_init[1][2],
        "repeatable": workers(init) == with_init,
        "other_seed_differs": workers(init, seed=1) != with_init,
    }


def format_loader_rng(r: dict) -> str:
    m = list(r["mask_same"].values())
    column = lambda rows, k: " ".join(f"{row[k]:3d}" for row in rows)  # noqa: E731
    return "\n".join([
        "loader-এর প্রথম batch-এর পরে Dropout-এর mask আগের মতো?",
        f"  generator ছাড়া: {m[0]} (shuffle বন্ধেও {m[1]}) | নিজের generator: {m[2]}",
        "২ worker; batch ০, ২ → worker ০; batch ১, ৩ → worker ১",
        f"  {column(r['without'], 1)}   np.random",
        f"  {column(r['without'], 2)}   dataset.rng, init ছাড়া",
        f"  {column(r['with_init'], 2)}   dataset.rng, seed_worker দিয়ে",
        f"আবার চালালে একই: {r['repeatable']} | generator-এর অন্য seed-এ অন্য: "
        f"{r['other_seed_differs']}",
    ])
