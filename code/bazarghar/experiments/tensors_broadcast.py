"""পর্ব ০৭ · broadcasting, indexing আর NumPy-তে মিলিয়ে দেখা, সঙ্গে পর্বের অনুশীলনীর উত্তর।"""

from __future__ import annotations

import warnings

import numpy as np
import torch
from torch import nn

from ..data import make_orders, make_orders_np
from .tensors import error_text, shares_storage

__all__ = ["RULE_BASE", "RULE_PER_KM", "LATE_MINUTES", "TRIPS_SEED", "old_rule", "van_trips",
           "broadcast_demo", "format_broadcast", "indexing_demo", "format_indexing",
           "numpy_check_demo", "format_numpy_check", "exercises07_demo", "format_exercises07"]

#: দোকানের পুরোনো হিসাব: RULE_BASE মিনিট, আর প্রতি km-এ RULE_PER_KM মিনিট
RULE_BASE, RULE_PER_KM = 20, 3
#: এর বেশি মিনিট লাগলে অর্ডারটি "দেরির"
LATE_MINUTES = 60
#: অংশ ৬-এর সপ্তাহের ট্রিপ-টেবিলের seed
TRIPS_SEED = 3


def old_rule(X: torch.Tensor, keep_dim: bool = False) -> torch.Tensor:
    """পুরোনো নিয়মের অনুমান। ``keep_dim=True``: দূরত্বের কলাম ``X[:, :1]`` দিয়ে নেওয়া, আকার (N, 1)।"""
    km = X[:, :1] if keep_dim else X[:, 0]
    return RULE_BASE + RULE_PER_KM * km


def van_trips(seed: int = TRIPS_SEED) -> torch.Tensor:
    """সাত দিন × চারটি ভ্যান: প্রতিদিন প্রতিটি ভ্যানের মোট চলার মিনিট (২০ থেকে ৮৯)।"""
    return torch.randint(20, 90, (7, 4), generator=torch.Generator().manual_seed(seed))


def broadcast_demo() -> dict:
    X, y = make_orders()
    mu, sd = X.mean(dim=0), X.std(dim=0)
    Z = (X - mu) / sd
    trips = van_trips()
    share = trips / trips.sum(dim=1, keepdim=True)
    good, bad = old_rule(X), old_rule(X, keep_dim=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loss_bad = nn.MSELoss()(bad, y).item()
    return {
        "shapes": {"(400, 3) + (3,)": tuple(torch.broadcast_shapes((400, 3), (3,))),
                   "(400, 1) + (1, 3)": tuple(torch.broadcast_shapes((400, 1), (1, 3))),
                   "(2, 1, 3) + (4, 1)": tuple(torch.broadcast_shapes((2, 1, 3), (4, 1)))},
        "mu": [round(v, 3) for v in mu.tolist()], "sd": [round(v, 3) for v in sd.tolist()],
        "z_mean_small": Z.mean(dim=0).abs().max().item() < 1e-6,
        "z_std": [round(v, 4) for v in Z.std(dim=0).tolist()],
        "row_error": error_text(lambda: trips / trips.sum(dim=1)),
        "share_rows_one": torch.allclose(share.sum(dim=1), torch.ones(7)),
        "good_shape": tuple(good.shape), "bad_shape": tuple(bad.shape),
        "diff_shape": tuple((bad - y).shape),
        "mse_good": ((good - y) ** 2).mean().item(), "mse_bad": ((bad - y) ** 2).mean().item(),
        "loss_bad": loss_bad, "loss_fixed": nn.MSELoss()(bad.squeeze(1), y).item(),
        "warning": str(caught[0].message) if caught else None,
    }


def format_broadcast(r: dict) -> str:
    lines = [f"broadcast_shapes {k} → {v}" for k, v in r["shapes"].items()]
    lines += [
        f"গড় {r['mu']} | std {r['sd']}",
        f"standardize-এর পরে: গড় ~০? {r['z_mean_small']} | std {r['z_std']}",
        f"(7, 4) / (7,): {r['row_error']}",
        f"keepdim=True দিয়ে: প্রতি দিনের ভাগের যোগফল ১? {r['share_rows_one']}",
        f"X[:, 0] থেকে অনুমান {r['good_shape']}: MSE {r['mse_good']:.2f}",
        f"X[:, :1] থেকে অনুমান {r['bad_shape']}: বিয়োগফল {r['diff_shape']}, MSE {r['mse_bad']:.2f}",
        f"MSELoss-এর সতর্কবার্তা: {r['warning']}",
        f"squeeze(1)-এর পরে MSELoss: {r['loss_fixed']:.2f}",
    ]
    return "\n".join(lines)


def indexing_demo() -> dict:
    X, y = make_orders()
    orders = X.clone()                    # X-কে অক্ষত রাখতে নিজের copy
    first = orders[:5]                    # slicing: view
    picked = orders[[0, 5, 9]]            # integer indexing: copy
    first[0, 0] = 0.0                     # view দিয়ে লেখা মূলে পৌঁছায়
    picked[1, 0] = 0.0                    # copy-তে লেখা মূলে পৌঁছায় না
    rainy = X[:, 2] == 1
    late = y > LATE_MINUTES
    capped = y.clone()
    back = capped.clamp_(max=LATE_MINUTES)
    return {
        "first_shares": shares_storage(first, orders), "picked_shares": shares_storage(picked, orders),
        "orders00": orders[0, 0].item(), "orders50": orders[5, 0].item(), "X50": X[5, 0].item(),
        "mask_dtype": str(rainy.dtype).removeprefix("torch."), "n": len(y),
        "rainy": int(rainy.sum()), "late": int(late.sum()), "late_rainy": int((late & rainy).sum()),
        "late_dry": int((late & ~rainy).sum()),
        "rain_mean": round(y[rainy].mean().item(), 1), "dry_mean": round(y[~rainy].mean().item(), 1),
        "rainy_rows_shares": shares_storage(X[rainy], X),
        "clamp_same": back is capped, "capped_max": capped.max().item(),
    }


def format_indexing(r: dict) -> str:
    return "\n".join([
        f"orders[:5] একই storage? {r['first_shares']} | orders[[0, 5, 9]] একই storage? {r['picked_shares']}",
        f"লেখার পরে: orders[0, 0] = {r['orders00']}, orders[5, 0] = {r['orders50']:.4f} (X-এ {r['X50']:.4f})",
        f"mask-এর dtype {r['mask_dtype']}; বৃষ্টি {r['rainy']}/{r['n']}, দেরি (> {LATE_MINUTES} মিনিট) {r['late']}",
        f"দেরি: বৃষ্টিতে {r['late_rainy']}, শুকনোয় {r['late_dry']} | গড় মিনিট: বৃষ্টি {r['rain_mean']}, "
        f"শুকনো {r['dry_mean']}",
        f"X[rainy] একই storage? {r['rainy_rows_shares']}",
        f"clamp_ একই tensor ফেরত দেয়? {r['clamp_same']}; সবচেয়ে বড় মান এখন {r['capped_max']}",
    ])


def numpy_check_demo() -> dict:
    """পর্বের তিনটি ফল NumPy-তে আবার: standardize, দুই MSE, আর বৃষ্টি-দেরির গোনা।"""
    X, y = make_orders()
    X_np, y_np = make_orders_np()
    Z = (X - X.mean(dim=0)) / X.std(dim=0)
    Z_np = (X_np - X_np.mean(axis=0)) / X_np.std(axis=0, ddof=1)   # torch.std-এর মতো n − 1
    mse_np = [float(((RULE_BASE + RULE_PER_KM * km - y_np) ** 2).mean())
              for km in (X_np[:, 0], X_np[:, :1])]
    mse_torch = [((old_rule(X, keep) - y) ** 2).mean().item() for keep in (False, True)]
    rainy_np, late_np = X_np[:, 2] == 1, y_np > LATE_MINUTES
    return {
        "z_close": bool(np.allclose(Z.numpy(), Z_np, atol=1e-5)),
        "z_max_diff": float(np.abs(Z.numpy() - Z_np).max()),
        "mse_np": mse_np, "mse_torch": mse_torch,
        "mse_close": bool(np.allclose(mse_np, mse_torch, rtol=1e-5)),
        "bad_shape_np": (RULE_BASE + RULE_PER_KM * X_np[:, :1] - y_np).shape,
        "counts_np": (int(rainy_np.sum()), int(late_np.sum()), int((late_np & rainy_np).sum())),
        "counts_torch": (int((X[:, 2] == 1).sum()), int((y > LATE_MINUTES).sum()),
                         int(((y > LATE_MINUTES) & (X[:, 2] == 1)).sum())),
    }


def format_numpy_check(r: dict) -> str:
    return "\n".join([
        f"standardize: NumPy আর torch allclose? {r['z_close']}",
        f"MSE (X[:, 0], X[:, :1]): NumPy {[round(v, 2) for v in r['mse_np']]}, "
        f"torch {[round(v, 2) for v in r['mse_torch']]}, allclose? {r['mse_close']}",
        f"NumPy-তেও X[:, :1] − y-এর আকার {r['bad_shape_np']}",
        f"বৃষ্টি, দেরি, বৃষ্টিতে দেরি: NumPy {r['counts_np']}, torch {r['counts_torch']}",
    ])


def exercises07_demo() -> dict:
    """অনুশীলনীর উত্তর: (১) আকার অনুমান, (২) stride-এর হিসাব, (৩) বৃষ্টিতে দেরির হার।"""
    X, y = make_orders()
    shapes = {
        "X[:, None, :]": tuple(X[:, None, :].shape),
        "X[:, :1] * X[:1, :]": tuple((X[:, :1] * X[:1, :]).shape),
        "X.sum(dim=1, keepdim=True)": tuple(X.sum(dim=1, keepdim=True).shape),
        "y[:, None] - y[None, :]": tuple((y[:, None] - y[None, :]).shape),
    }
    a = torch.arange(20).reshape(4, 5)
    part = a[1:, ::2]
    strides = {"a": a.stride(), "a.T": a.T.stride(), "part_shape": tuple(part.shape),
               "part_stride": part.stride(), "part_offset": part.storage_offset(),
               "part_contiguous": part.is_contiguous(), "a23": a.storage_offset() + 2 * a.stride(0) + 3 * a.stride(1)}
    rainy, late = X[:, 2] == 1, y > LATE_MINUTES
    rate_rain = (late & rainy).sum().item() / rainy.sum().item()
    rate_dry = (late & ~rainy).sum().item() / (~rainy).sum().item()
    X_np, y_np = make_orders_np()
    r_np, l_np = X_np[:, 2] == 1, y_np > LATE_MINUTES
    rates_np = ((l_np & r_np).sum() / r_np.sum(), (l_np & ~r_np).sum() / (~r_np).sum())
    return {"shapes": shapes, "strides": strides, "rate_rain": rate_rain, "rate_dry": rate_dry,
            "rates_np_equal": (float(rates_np[0]), float(rates_np[1])) == (rate_rain, rate_dry)}


def format_exercises07(r: dict) -> str:
    lines = [f"{k:28s} → {v}" for k, v in r["shapes"].items()]
    s = r["strides"]
    lines += [f"a {s['a']}, a.T {s['a.T']}; a[1:, ::2]: shape {s['part_shape']}, stride {s['part_stride']}, "
              f"offset {s['part_offset']}, contiguous {s['part_contiguous']}; a[2, 3] = storage[{s['a23']}]",
              f"দেরির হার: বৃষ্টিতে {r['rate_rain']:.3f}, শুকনোয় {r['rate_dry']:.3f}; "
              f"NumPy-তেও হুবহু? {r['rates_np_equal']}"]
    return "\n".join(lines)
