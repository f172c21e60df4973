"""পর্ব ০৭ · dtype-এর পরীক্ষা: default, promotion, float16/bfloat16, integer overflow আর float-এর তুলনা।"""

from __future__ import annotations

import math

import torch
from torch import nn

from ..data import make_orders, make_orders_np
from .tensors import error_text

__all__ = ["KM_PER_MILE", "HALF_TYPES", "promotion_table", "precision_table", "running_total",
           "spacing", "dtype_demo", "format_dtype"]

#: এক মাইলে কত km (অংশ ৪-এর km → মাইল → km)
KM_PER_MILE = 1.609344
#: অংশ ৪-এর তিন float জাত
HALF_TYPES = (torch.float32, torch.float16, torch.bfloat16)


def promotion_table() -> list[tuple[str, str]]:
    """দুই জাত মিশলে ফলের জাত: প্রতিটি সারি আসল হিসাব চালিয়ে পাওয়া।"""
    items = torch.tensor([1, 3, 5])                  # int64
    km = torch.tensor([2.0, 8.5, 11.0])              # float32
    km64 = km.double()
    rows = [
        ("items + km", items + km), ("items + 2.5", items + 2.5), ("items / 2", items / 2),
        ("items // 2", items // 2), ("km + km64", km + km64), ("km + 2.5", km + 2.5),
        ("items + True", items + True),
    ]
    return [(name, str(value.dtype).removeprefix("torch.")) for name, value in rows]


def precision_table() -> list[dict]:
    """তিন float জাতের bit, eps (১-এর পরের সংখ্যাটি কত দূরে), সবচেয়ে বড় মান, আর ৭০০০০ রাখলে কী থাকে।"""
    rows = []
    for dtype in HALF_TYPES:
        info = torch.finfo(dtype)
        rows.append({"dtype": str(dtype).removeprefix("torch."), "bits": info.bits, "eps": info.eps,
                     "max": info.max, "70000": torch.tensor(70000.0).to(dtype).item()})
    return rows


def spacing(value: float, dtype: torch.dtype) -> float:
    """``value``-এর কাছে ``dtype``-এ পাশাপাশি দুটি সংখ্যার দূরত্ব।"""
    return torch.finfo(dtype).eps * 2.0 ** math.floor(math.log2(value))


def running_total(y: torch.Tensor, dtype: torch.dtype) -> float:
    """একটি একটি করে যোগ (যেমন loop-এ ``total += minutes``), যোগফলও ``dtype``-এ রাখা।"""
    total = torch.zeros((), dtype=dtype)
    for minutes in y.to(dtype):
        total = total + minutes
    return total.item()


def dtype_demo() -> dict:
    X, y = make_orders()
    X_np, _ = make_orders_np()
    km = X[:, 0]
    back = km / KM_PER_MILE * KM_PER_MILE
    exact = y.double().sum().item()
    totals = {str(d).removeprefix("torch."): running_total(y, d) for d in HALF_TYPES}
    return {
        "int": str(torch.tensor([1, 3, 5]).dtype), "float": str(torch.tensor([2.0, 8.5]).dtype),
        "default": str(torch.get_default_dtype()), "from_numpy": str(torch.from_numpy(X_np).dtype),
        "linear_error": error_text(lambda: nn.Linear(3, 1)(torch.from_numpy(X_np))),
        "promotion": promotion_table(), "precision": precision_table(),
        "exact_total": exact, "totals": totals,
        "sum_half": y.half().sum().item(), "sum_bf16": y.bfloat16().sum().item(),
        "gap_half": spacing(exact, torch.float16), "gap_bf16": spacing(exact, torch.bfloat16),
        "int8": (torch.tensor([120], dtype=torch.int8) + 10).item(),
        "uint8": (torch.tensor([250], dtype=torch.uint8) + 10).item(),
        "km_equal": int((back == km).sum()), "km_n": len(km), "km_close": torch.allclose(back, km),
        "km_max_diff": (back - km).abs().max().item(),
        "to_self": km.to(torch.float32) is km, "long": torch.tensor([2.7, -2.7]).long().tolist(),
    }


def format_dtype(r: dict) -> str:
    lines = [f"default: পূর্ণসংখ্যা {r['int']}, দশমিক {r['float']} (get_default_dtype {r['default']}); "
             f"from_numpy → {r['from_numpy']}",
             f"float64 ডেটা float32 Linear-এ: {r['linear_error']}"]
    lines += [f"{name:13s} → {dtype}" for name, dtype in r["promotion"]]
    for p in r["precision"]:
        lines.append(f"{p['dtype']:9s} {p['bits']:2d} bit, eps {p['eps']:.3g}, max {p['max']:.4g}, 70000 → {p['70000']}")
    t = r["totals"]
    lines.append(f"৪০০ অর্ডারের মোট মিনিট: ঠিক {r['exact_total']:.2f} | এক এক করে যোগ: float32 {t['float32']:.2f}, "
                 f"float16 {t['float16']}, bfloat16 {t['bfloat16']}")
    lines.append(f".sum(): float16 {r['sum_half']}, bfloat16 {r['sum_bf16']}")
    lines.append(f"int8 120 + 10 → {r['int8']} | uint8 250 + 10 → {r['uint8']}")
    lines.append(f"km → মাইল → km: {r['km_equal']}/{r['km_n']} হুবহু, allclose {r['km_close']}")
    return "\n".join(lines)
