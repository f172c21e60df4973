"""পর্ব ১০ · পরীক্ষা ৩: epoch আর mini-batch, DataLoader দিয়ে।"""

from __future__ import annotations

import math

import torch
from torch.utils.data import DataLoader

from ..loop import BATCH_SIZE, make_loader, split_orders


def minibatch_demo(epochs: int = 30, odd_batch: int = 48) -> dict:
    split = split_orders()
    loader = make_loader(split.X_train, split.y_train)
    xb, yb = next(iter(loader))
    r: dict = {
        "n_train": len(split.X_train),
        "n_val": len(split.X_val),
        "batch_size": BATCH_SIZE,
        "steps": len(loader),
        "xb_shape": tuple(xb.shape),
        "yb_shape": tuple(yb.shape),
        "epochs": epochs,
    }
    r["updates"] = r["steps"] * epochs
    r["odd_batch"] = odd_batch
    r["odd_sizes"] = [len(b) for b in DataLoader(range(r["n_train"]), batch_size=odd_batch)]
    r["odd_sizes_drop"] = [len(b) for b in DataLoader(range(r["n_train"]), batch_size=odd_batch,
                                                     drop_last=True)]
    r["ceil_check"] = math.ceil(r["n_train"] / odd_batch)
    # ক্রম: একই seed-এর loader-এ দুটি epoch, আর নতুন করে বানানো একই seed-এর loader
    order = DataLoader(range(r["n_train"]), batch_size=BATCH_SIZE, shuffle=True,
                       generator=torch.Generator().manual_seed(0))
    r["epoch1_first"] = next(iter(order))[:6].tolist()
    r["epoch2_first"] = next(iter(order))[:6].tolist()
    again = DataLoader(range(r["n_train"]), batch_size=BATCH_SIZE, shuffle=True,
                       generator=torch.Generator().manual_seed(0))
    r["again_first"] = next(iter(again))[:6].tolist()
    covered = sorted(int(i) for batch in order for i in batch)
    r["covers_all_once"] = covered == list(range(r["n_train"]))
    return r


def format_minibatch(r: dict) -> str:
    return "\n".join([
        f"training {r['n_train']} | validation {r['n_val']}",
        f"batch_size {r['batch_size']}: প্রতি epoch-এ {r['steps']} ধাপ; "
        f"xb {r['xb_shape']}, yb {r['yb_shape']}",
        f"batch_size {r['odd_batch']}: batch-এর মাপ {r['odd_sizes']}",
        f"drop_last=True: {r['odd_sizes_drop']}",
        f"epoch ১-এর প্রথম ছয়টি index: {r['epoch1_first']}",
        f"epoch ২-এর প্রথম ছয়টি index: {r['epoch2_first']}",
        f"একই seed-এ নতুন loader:      {r['again_first']}",
        f"এক epoch-এ প্রতিটি উদাহরণ ঠিক একবার? {r['covers_all_once']}",
        f"{r['epochs']} epoch × {r['steps']} ধাপ = {r['updates']}টি weight বদল",
    ])
