"""পর্ব ১০-এর অনুশীলনীর উত্তর, চালিয়ে পাওয়া।"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.utils.data import DataLoader

from ..checkpoint import optimizer_state_numel
from ..counting import count_params, sequential_mlp
from ..loop import loss_fn, make_loader, make_loop_model, split_orders


def exercise_adam_memory() -> dict:
    """পর্ব ০৯-এর গ্রাহক-শ্রেণির model (২০ → ৬৪ → ৩২ → ৩)-এ Adam-এর এক ধাপ: state-এ কত সংখ্যা,
    float32-এ parameter + gradient + Adam মিলে কত byte।"""
    torch.manual_seed(0)
    model = sequential_mlp((20, 64, 32, 3))  # Dropout-এ parameter নেই, তাই বাদ দিলেও একই হিসাব
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, target = torch.randn(16, 20), torch.randint(0, 3, (16,))
    nn.functional.cross_entropy(model(x), target).backward()
    opt.step()
    n = count_params(model)
    state = optimizer_state_numel(opt)
    grads = sum(p.grad.numel() for p in model.parameters())
    moments = state["exp_avg"] + state["exp_avg_sq"]
    return {"params": n, "state": state, "grads": grads, "moments": moments,
            "n_tensors": len(list(model.parameters())),
            "bytes": 4 * (n + grads + moments), "ratio": (n + grads + moments) / n}


def exercise_steps(n: int = 1000, batch_size: int = 64, epochs: int = 25) -> dict:
    """``n``টি উদাহরণ, ``batch_size``, ``epochs``: কয়টি ধাপ, drop_last দিলে কয়টি।"""
    keep = len(DataLoader(range(n), batch_size=batch_size))
    drop = len(DataLoader(range(n), batch_size=batch_size, drop_last=True))
    return {"n": n, "batch_size": batch_size, "epochs": epochs, "steps": keep, "steps_drop": drop,
            "last": n - (keep - 1) * batch_size, "updates": keep * epochs,
            "updates_drop": drop * epochs, "ceil": math.ceil(n / batch_size)}


def exercise_accumulation(micro: int = 4) -> dict:
    """৩২-এর এক batch বনাম ৮-এর চারটি micro-batch, প্রতিটির loss ``micro`` দিয়ে ভাগ করে
    backward, মাঝে zero_grad নেই। eval mode, তাই Dropout নেই।"""
    split = split_orders()
    model = make_loop_model(split)
    model.eval()
    xb, yb = next(iter(make_loader(split.X_train, split.y_train)))
    loss_fn(model(xb), yb).backward()
    full = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    for xs, ys in zip(xb.chunk(micro), yb.chunk(micro)):
        (loss_fn(model(xs), ys) / micro).backward()
    accumulated = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    for xs, ys in zip(xb.chunk(micro), yb.chunk(micro)):
        loss_fn(model(xs), ys).backward()  # ভাগ না করলে
    unscaled = [p.grad.clone() for p in model.parameters()]
    close = all(torch.allclose(a, b, rtol=1e-4, atol=1e-3) for a, b in zip(full, accumulated))
    ratio = (unscaled[-1] / full[-1]).item()
    return {"micro": micro, "micro_size": len(xb) // micro, "close": close,
            "unscaled_ratio": ratio, "bias_full": full[-1].item(),
            "bias_accumulated": accumulated[-1].item()}


def exercises10_demo() -> dict:
    return {"adam": exercise_adam_memory(), "steps": exercise_steps(),
            "accumulation": exercise_accumulation()}


def format_exercises10(r: dict) -> str:
    a, s, g = r["adam"], r["steps"], r["accumulation"]
    return "\n".join([
        "— অনুশীলনী ১: Adam-এর memory —",
        f"parameter {a['params']} | gradient {a['grads']} | Adam-এর state {a['state']}",
        f"float32-এ মোট {a['bytes']:,} byte = parameter-এর {a['ratio']:.0f} গুণ (step বাদে)",
        "— অনুশীলনী ২: ধাপ গোনা —",
        f"{s['n']}টি উদাহরণ, batch {s['batch_size']}: {s['steps']} ধাপ (শেষটিতে {s['last']}টি); "
        f"drop_last: {s['steps_drop']}",
        f"{s['epochs']} epoch: {s['updates']} বনাম {s['updates_drop']}টি weight বদল",
        "— অনুশীলনী ৩: gradient জমিয়ে বড় batch —",
        f"{g['micro']}টি micro-batch × {g['micro_size']}, loss/{g['micro']}: এক batch-এর সঙ্গে allclose? {g['close']}",
        f"ভাগ না করলে head.bias.grad এক batch-এর {g['unscaled_ratio']:.3f} গুণ",
    ])
