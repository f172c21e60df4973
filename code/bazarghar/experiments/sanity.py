"""পর্ব ১০ · পরীক্ষা ১২: training-এর আগে আর চলাকালে সস্তা পরীক্ষা — এক batch মুখস্থ, gradient clipping, NaN ধরা।"""

from __future__ import annotations

import torch

from ..loop import loss_fn, make_loader, make_loop_model, split_orders

#: যে অর্ডারের দূরত্ব হারিয়ে গেছে (NaN)
MISSING_ROW = 3


def _f64_model(split):
    """Dropout ছাড়া, float64: ছাপা সংখ্যা যেকোনো CPU-তে এক।"""
    model = make_loop_model(split, p_drop=0.0).double()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(p.round(decimals=4))
    return model


def sanity_demo(steps: int = 500) -> dict:
    split = split_orders()
    xb, yb = next(iter(make_loader(split.X_train, split.y_train)))
    xb, yb = xb.double(), yb.double()
    # ১. এক batch মুখস্থ: loop ঠিক থাকলে loss প্রায় শূন্যে নামা উচিত
    model = _f64_model(split)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    first = loss_fn(model(xb), yb).item()
    for _ in range(steps):
        loss = loss_fn(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    overfit = loss_fn(model(xb), yb).item()
    # ২. gradient clipping: প্রথম ধাপের gradient-এর মাপ, আর clip-এর পরে
    model = _f64_model(split)
    loss_fn(model(xb), yb).backward()
    norm_before = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0).item()
    norm_after = torch.linalg.vector_norm(
        torch.cat([p.grad.flatten() for p in model.parameters()])).item()
    # ৩. একটি অর্ডারে দূরত্ব হারানো (NaN): একটি ধাপেই সব weight NaN, তাই step-এর আগে ধরা
    bad = xb.clone()
    bad[MISSING_ROW, 0] = float("nan")
    model = _f64_model(split)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    loss = loss_fn(model(bad), yb)
    finite = bool(torch.isfinite(loss))
    rows = torch.isnan(bad).any(1).nonzero().flatten().tolist()
    opt.zero_grad()
    loss.backward()
    opt.step()                       # ইচ্ছা করে: না ধরলে কী হয়
    nan_params = sum(int(torch.isnan(p).any()) for p in model.parameters())
    n_tensors = len(list(model.parameters()))
    return {"first": first, "overfit": overfit, "steps": steps, "norm_before": norm_before,
            "norm_after": norm_after, "finite": finite, "bad_loss": loss.item(), "rows": rows,
            "nan_params": nan_params, "n_tensors": n_tensors}


def format_sanity(r: dict) -> str:
    return "\n".join([
        f"এক batch, {r['steps']} ধাপ: loss {r['first']:.1f} → {r['overfit']:.4f}",
        f"প্রথম ধাপের gradient-এর মাপ {r['norm_before']:.1f}; clip_grad_norm_(max_norm=1) পরে {r['norm_after']:.4f}",
        f"একটি অর্ডারে NaN: loss {r['bad_loss']}, isfinite {r['finite']}, গলদ সারি {r['rows']}",
        f"তবু step() চালালে NaN-ভরা parameter-tensor: {r['nan_params']}/{r['n_tensors']}",
    ])
