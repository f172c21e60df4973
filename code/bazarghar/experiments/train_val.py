"""পর্ব ১০ · পরীক্ষা ৪: পুরো loop — training আর validation loss, mode আর no_grad।"""

from __future__ import annotations

import torch

from ..loop import History, evaluate, fit, loss_fn, make_loader, make_loop_model, split_orders

#: পর্বের মূল training: SGD, momentum 0.9, lr 1e-3, ৩০ epoch
MAIN_LR, MAIN_MOMENTUM, MAIN_EPOCHS = 1e-3, 0.9, 30
#: ছাপার epoch
REPORT_EPOCHS = (1, 2, 5, 10, 20, 30)


def train_val_demo(epochs: int = MAIN_EPOCHS, lr: float = MAIN_LR,
                   momentum: float = MAIN_MOMENTUM) -> dict:
    """ফেরত: ``history`` (train/val), ``train_eval`` (প্রতি epoch-এর শেষে training অংশ
    eval mode-এ), ``model``, ``split``।"""
    split = split_orders()
    model = make_loop_model(split)
    loader = make_loader(split.X_train, split.y_train)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    torch.manual_seed(1)  # Dropout-এর mask
    train_eval: list = []

    def measure_train_part(epoch: int, history: History) -> None:
        train_eval.append(evaluate(model, split.X_train, split.y_train))

    history = fit(model, opt, loader, split, epochs, after_epoch=measure_train_part)
    best = min(range(epochs), key=lambda i: history.val[i])
    return {"history": history, "train_eval": train_eval, "model": model, "split": split,
            "epochs": epochs, "lr": lr, "momentum": momentum, "best_epoch": best + 1,
            "best_val": history.val[best]}


def validation_modes_demo(model, split) -> dict:
    """একই validation অংশ চার ভাবে: ঠিক পথে দুবার, train mode-এ দুবার; আর no_grad-এর প্রভাব।"""
    r: dict = {"right": [evaluate(model, split.X_val, split.y_val) for _ in range(2)]}
    torch.manual_seed(2)
    model.train()
    with torch.no_grad():
        r["train_mode"] = [loss_fn(model(split.X_val), split.y_val).item() for _ in range(2)]
    model.eval()
    out = loss_fn(model(split.X_val), split.y_val)
    r["graph_without_no_grad"] = out.requires_grad
    r["grad_fn"] = type(out.grad_fn).__name__
    with torch.no_grad():
        r["graph_with_no_grad"] = loss_fn(model(split.X_val), split.y_val).requires_grad
    return r


def format_train_val(r: dict) -> str:
    h = r["history"]
    lines = ["epoch   train (train mode)   train (eval mode)   validation"]
    for e in REPORT_EPOCHS:
        if e <= len(h.train):
            lines.append(f"{e:5d}   {h.train[e - 1]:18.4g}   {r['train_eval'][e - 1]:17.4g}   {h.val[e - 1]:10.4g}")
    lines.append(f"সবচেয়ে কম validation loss: epoch {r['best_epoch']}, {r['best_val']:.4g}")
    return "\n".join(lines)


def format_validation_modes(v: dict) -> str:
    return "\n".join([
        f"eval + no_grad, দুবার: {v['right'][0]:.4g}, {v['right'][1]:.4g}",
        f"train mode-এ, দুবার:   {v['train_mode'][0]:.4g}, {v['train_mode'][1]:.4g}",
        f"no_grad ছাড়া: requires_grad = {v['graph_without_no_grad']} ({v['grad_fn']})",
        f"torch.no_grad() দিয়ে: requires_grad = {v['graph_with_no_grad']}",
    ])
