"""পর্ব ১০ · পরীক্ষা ২: zero_grad ভুলে গেলে gradient জমতে থাকে।"""

from __future__ import annotations

import torch

from ..loop import evaluate, loss_fn, make_loader, make_loop_model, split_orders


def accumulate_demo(repeats: int = 3) -> dict:
    """একই batch-এ (eval mode, তাই প্রতিবার একই gradient) ``repeats`` বার backward,
    মাঝে zero_grad নেই: ``head.bias.grad`` প্রতিবার কত হয়।"""
    split = split_orders()
    model = make_loop_model(split)
    xb, yb = next(iter(make_loader(split.X_train, split.y_train)))
    model.eval()
    grads = []
    for _ in range(repeats):
        loss_fn(model(xb), yb).backward()
        grads.append(model.head.bias.grad.item())
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    opt.zero_grad()
    return {"grads": grads, "ratios": [g / grads[0] for g in grads],
            "after_zero_grad": model.head.bias.grad}


def forgotten_zero_grad_run(forget: bool, epochs: int = 3, lr: float = 1e-3,
                            momentum: float = 0.9) -> dict:
    """মূল training-এর প্রথম ``epochs``টি epoch; ``forget=True`` হলে zero_grad বাদ।
    ফেরত: প্রতি ধাপের loss আর ``head.bias.grad``, আর শেষে validation loss।"""
    split = split_orders()
    model = make_loop_model(split)
    loader = make_loader(split.X_train, split.y_train)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    torch.manual_seed(1)
    losses, grads = [], []
    for _ in range(epochs):
        model.train()
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            if not forget:
                opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            grads.append(model.head.bias.grad.item())
    return {"losses": losses, "grads": grads, "val": evaluate(model, split.X_val, split.y_val)}


#: যে ধাপগুলো ছাপা হয়
SHOWN_STEPS = (1, 2, 5, 10, 20, 30)


def zero_grad_demo(epochs: int = 3) -> dict:
    r = accumulate_demo()
    r["with_zero_grad"] = forgotten_zero_grad_run(False, epochs)
    r["without_zero_grad"] = forgotten_zero_grad_run(True, epochs)
    r["epochs"] = epochs
    return r


def format_accumulate(r: dict) -> str:
    lines = [f"backward #{i + 1}: head.bias.grad = {g:9.3f}  (প্রথমটির {q:.3f} গুণ)"
             for i, (g, q) in enumerate(zip(r["grads"], r["ratios"]))]
    lines.append(f"zero_grad-এর পরে: {r['after_zero_grad']}")
    return "\n".join(lines)


def format_forgotten(r: dict) -> str:
    a, b = r["with_zero_grad"], r["without_zero_grad"]
    lines = ["        zero_grad সহ          zero_grad ছাড়া",
             "ধাপ     loss    bias.grad     loss    bias.grad"]
    for s in SHOWN_STEPS:
        if s <= len(a["losses"]):
            i = s - 1
            lines.append(f"{s:3d} {a['losses'][i]:8.4g} {a['grads'][i]:10.4g}  "
                         f"{b['losses'][i]:9.4g} {b['grads'][i]:10.4g}")
    lines.append(f"{r['epochs']} epoch পরে validation loss: {a['val']:.4g} বনাম {b['val']:.4g}")
    return "\n".join(lines)


def format_zero_grad(r: dict) -> str:
    return format_accumulate(r) + "\n\n" + format_forgotten(r)
