"""অনুশীলন আর quiz-এর উত্তর, চালিয়ে যাচাই করা।"""

from __future__ import annotations

import torch
from torch import nn

from ..counting import count_params, mlp_param_count, own_param_table


def exercise1_classifier() -> dict:
    """অনুশীলন ১: গ্রাহক-শ্রেণির Sequential 20 → 64 → 32 → 3 (মাঝে ReLU, Dropout(0.2))।

    ফেরত: ``per_layer`` (১৩৪৪, ২০৮০, ৯৯), ``total`` (৩৫২৩), ``bytes`` (১৪,০৯২),
    ``kib`` (≈ ১৩.৮), ``keys`` (0.weight … 5.bias)।"""
    net = nn.Sequential(
        nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.2),
        nn.Linear(64, 32), nn.ReLU(),
        nn.Linear(32, 3),
    )
    total = count_params(net)
    return {
        "per_layer": [(name, n) for name, _, n in own_param_table(net)],
        "total": total,
        "by_hand": mlp_param_count((20, 64, 32, 3)),
        "bytes": total * 4,
        "kib": total * 4 / 1024,
        "keys": list(net.state_dict()),
    }


class Riddle(nn.Module):
    """অনুশীলন ৩-এর ধাঁধা: আগে একটি Sequential (parameter-হীন স্তর দিয়ে শুরু), তারপর dict-এ
    একটি Linear, তারপর root-এর নিজের Parameter আর buffer, শেষে আরেকটি Linear।"""

    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Dropout(0.1), nn.Linear(3, 4), nn.ReLU())
        self.spare = {"rain": nn.Linear(4, 4)}          # dict: খাতার বাইরে
        self.shift = nn.Parameter(torch.zeros(1))
        self.register_buffer("scale", torch.ones(3))
        self.out = nn.Linear(4, 1)


def exercise3_guess() -> dict:
    """অনুশীলন ৩: ``keys`` (root-এর নিজের আগে, তারপর সন্তানেরা নিবন্ধনের ক্রমে) আর ``n_params``।"""
    riddle = Riddle()
    return {"keys": list(riddle.state_dict()), "n_params": count_params(riddle)}


class TwoHead(nn.Module):
    """অনুশীলন ৪: ভাগ করা body, ModuleDict-এ দুটি head; forward একটি dict ফেরত দেয়।"""

    def __init__(self):
        super().__init__()
        # ভাগ করা body: দুই head-ই এর output পড়ে
        self.body = nn.Sequential(nn.Linear(3, 16), nn.ReLU())
        # নাম দিয়ে বাছা head: "time" মিনিট দেয়, "late" দুই শ্রেণির score
        self.heads = nn.ModuleDict()
        self.heads["time"] = nn.Linear(16, 1)
        self.heads["late"] = nn.Linear(16, 2)

    def forward(self, x):
        shared = self.body(x)
        return {name: head(shared) for name, head in self.heads.items()}


def exercise4_two_heads(seed: int = 0) -> dict:
    """অনুশীলন ৪: ``per_layer`` (স্তর ধরে নিজের parameter), ``total``, পাঁচ সারির
    শূন্য input-এ দুই head-এর ``out_shapes``, আর ``keys``।"""
    torch.manual_seed(seed)
    model = TwoHead()
    with torch.no_grad():
        out = model(torch.zeros(5, 3))
    return {
        "per_layer": own_param_table(model),
        "total": count_params(model),
        "out_shapes": {k: tuple(v.shape) for k, v in out.items()},
        "keys": list(model.state_dict()),
    }


def quiz_numbers() -> dict:
    """Quiz-এর দুটি গোনা: nn.Linear(128, 10) → weight (10, 128), ১২৯০; 10 → 5 → 2 → ৬৭।"""
    lin = nn.Linear(128, 10)
    return {
        "linear_128_10_shape": tuple(lin.weight.shape),
        "linear_128_10_params": count_params(lin),
        "mlp_10_5_2": mlp_param_count((10, 5, 2)),
    }


def exercises_demo() -> dict:
    return {
        "ex1": exercise1_classifier(),
        "ex3": exercise3_guess(),
        "ex4": exercise4_two_heads(),
        "quiz": quiz_numbers(),
    }


def format_exercises(r: dict) -> str:
    e1, e3, e4, q = r["ex1"], r["ex3"], r["ex4"], r["quiz"]
    lines = ["অনুশীলন ১:"]
    lines += [f"  {name}: {n}" for name, n in e1["per_layer"]]
    lines.append(f"  মোট {e1['total']} | {e1['bytes']:,} byte ≈ {e1['kib']:.1f} KiB")
    lines.append(f"  keys: {e1['keys']}")
    lines.append("অনুশীলন ৩:")
    lines.append(f"  {e3['keys']}")
    lines.append(f"  {e3['n_params']}")
    lines.append("অনুশীলন ৪:")
    lines += [f"  {name:12s} {kind:7s} {n:5d}" for name, kind, n in e4["per_layer"]]
    lines.append(f"  মোট {e4['total']} | output {e4['out_shapes']}")
    lines.append("Quiz:")
    lines.append(
        f"  nn.Linear(128, 10): weight {q['linear_128_10_shape']}, parameter {q['linear_128_10_params']}"
    )
    lines.append(f"  10 → 5 → 2: {q['mlp_10_5_2']}")
    return "\n".join(lines)
