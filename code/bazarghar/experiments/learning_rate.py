"""পর্ব ১০ · পরীক্ষা ৫: একই model, তিনটি learning rate।"""

from __future__ import annotations

import torch

from ..loop import fit, make_loader, make_loop_model, split_orders

#: খুব ছোট, ঠিকঠাক, খুব বড় (SGD, momentum 0.9)
SWEEP_LRS = (1e-5, 1e-3, 1e-2)


def lr_sweep_demo(lrs=SWEEP_LRS, epochs: int = 30, momentum: float = 0.9) -> dict:
    """প্রতিটি lr-এ একই শুরু (model seed 0, loader seed 0, Dropout seed 1)। ফেরত lr → History।"""
    runs = {}
    split = split_orders()
    for lr in lrs:
        model = make_loop_model(split)
        loader = make_loader(split.X_train, split.y_train)
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
        torch.manual_seed(1)
        runs[lr] = fit(model, opt, loader, split, epochs)
    return {"runs": runs, "epochs": epochs, "momentum": momentum}


def format_lr_sweep(r: dict) -> str:
    lines = ["lr        epoch ১-এর train   সর্বোচ্চ train   শেষ train   শেষ validation"]
    for lr, h in r["runs"].items():
        lines.append(f"{lr:<8g}  {h.train[0]:16.4g}   {max(h.train):14.4g}   {h.train[-1]:9.4g}   {h.val[-1]:14.4g}")
    return "\n".join(lines)
