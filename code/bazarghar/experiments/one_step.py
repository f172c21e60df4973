"""পর্ব ১০ · পরীক্ষা ১: training loop-এর একটি ধাপ, পাঁচটি লাইনে।"""

from __future__ import annotations

import torch

from ..loop import loss_fn, make_loader, make_loop_model, split_orders


def one_step_setup(lr: float = 1e-3, momentum: float = 0.9):
    """ডেটা ভাগ, model (seed 0), SGD আর প্রথম mini-batch। ফেরত ``(split, model, opt, xb, yb)``।"""
    split = split_orders()
    model = make_loop_model(split)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    xb, yb = next(iter(make_loader(split.X_train, split.y_train)))
    return split, model, opt, xb, yb


def one_step_demo(lr: float = 1e-3, momentum: float = 0.9) -> dict:
    """একটি ধাপ চালিয়ে প্রতিটি লাইনের পরের অবস্থা ফেরত দেয়। Dropout-এর mask-এর জন্য
    ধাপের ঠিক আগে ``torch.manual_seed(1)``।"""
    split, model, opt, xb, yb = one_step_setup(lr, momentum)
    r: dict = {"xb_shape": tuple(xb.shape), "yb_shape": tuple(yb.shape), "lr": lr}
    model.eval()
    with torch.no_grad():
        r["batch_loss_before"] = loss_fn(model(xb), yb).item()
    torch.manual_seed(1)
    model.train()
    pred = model(xb)
    loss = loss_fn(pred, yb)
    r["pred_shape"] = tuple(pred.shape)
    r["loss"] = loss.item()
    opt.zero_grad()
    r["grad_before_backward"] = model.head.bias.grad
    loss.backward()
    r["bias_before"] = model.head.bias.item()
    r["bias_grad"] = model.head.bias.grad.item()
    r["n_grads"] = sum(p.grad is not None for p in model.parameters())
    opt.step()
    r["bias_after"] = model.head.bias.item()
    model.eval()
    with torch.no_grad():
        r["batch_loss_after"] = loss_fn(model(xb), yb).item()
    return r


def format_one_step(r: dict) -> str:
    return "\n".join([
        f"mini-batch: xb {r['xb_shape']}, yb {r['yb_shape']} → pred {r['pred_shape']}",
        f"loss (train mode): {r['loss']:.1f}",
        f"zero_grad-এর পরে head.bias.grad = {r['grad_before_backward']}",
        f"backward-এর পরে .grad পেল {r['n_grads']}টি parameter; head.bias.grad = {r['bias_grad']:.2f}",
        f"step: head.bias {r['bias_before']:.4f} → {r['bias_after']:.4f}",
        f"একই batch, eval mode-এ loss: {r['batch_loss_before']:.1f} → {r['batch_loss_after']:.1f}",
    ])
