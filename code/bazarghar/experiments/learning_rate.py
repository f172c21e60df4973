"""পর্ব ১০ · পরীক্ষা ৫: একই model, তিনটি learning rate।"""

from __future__ import annotations

import torch

from ..loop import fit, make_loader, make_loop_model, split_orders

#: খুব ছোট, ঠিকঠাক, খুব বড় (SGD, momentum 0.9)
SWEEP_LRS = (1e-5, 1e-3, 1e-2)


def lr_sweep_demo(lrs=SWEEP_LRS, epochs: int = 30, momentum: float = 0.9) -> dict:
    """প্রতিটি lr-এ একই শুরু (model seed 0, loader seed 0, Dropout seed 1)। ফেরত lr → History।"""
    runs, pred_std, dead = {}, {}, {}
    split = split_orders()
    for lr in lrs:
        model = make_loop_model(split)
        loader = make_loader(split.X_train, split.y_train)
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
        torch.manual_seed(1)
        runs[lr] = fit(model, opt, loader, split, epochs)
        with torch.no_grad():  # fit-এর শেষে model eval mode-এ
            pred_std[lr] = model(split.X_val).std().item()
            # দ্বিতীয় hidden স্তরের (ReLU-এর পরে) কোন unit কোনো অর্ডারেই শূন্যের ওপরে ওঠে না
            hidden = model.hidden(((split.X_val - model.x_mean) / model.x_std))
            dead[lr] = int((hidden.amax(0) <= 0).sum())
    return {"runs": runs, "epochs": epochs, "momentum": momentum, "pred_std": pred_std,
            "dead_units": dead, "y_val_var": split.y_val.var(unbiased=False).item(),
            "y_val_std": split.y_val.std().item(), "n_hidden": model.head.in_features}


def format_lr_sweep(r: dict) -> str:
    lines = ["lr        epoch ১০-এ val   শেষ train   শেষ val   prediction-এর std   মৃত unit"]
    for lr, h in r["runs"].items():
        lines.append(f"{lr:<8g}  {h.val[9]:12.4g}   {h.train[-1]:9.4g}   {h.val[-1]:7.4g}   "
                     f"{r['pred_std'][lr]:17.3g}   {r['dead_units'][lr]:2d}/{r['n_hidden']}")
    lines.append(f"validation-এর আসল সময়ের std: {r['y_val_std']:.3g}, variance: {r['y_val_var']:.4g}")
    return "\n".join(lines)
