"""পরীক্ষা ৩: একই stack, স্তর রাখার পাত্র বদলে: Python-এর list বনাম nn.ModuleList।"""

from __future__ import annotations

import torch
from torch import nn


class LayerStack(nn.Module):
    """চওড়ার তালিকা থেকে Linear-এর stack; স্তরগুলো কোন পাত্রে থাকবে তা ``holder`` ঠিক করে।

    ``holder=list`` হলে পাত্রটি Module নয়, তাই ``__setattr__`` তাকে খাতায় তোলে না;
    ``holder=nn.ModuleList`` হলে একই স্তরগুলো খাতায় ওঠে। বাকি সব কোড এক।"""

    def __init__(self, widths, holder=list):
        super().__init__()
        self.holder = holder.__name__ if holder is list else f"nn.{holder.__name__}"
        self.layers = holder(nn.Linear(w_in, w_out) for w_in, w_out in zip(widths, widths[1:]))

    def forward(self, x):
        *inner, last = self.layers          # শেষ স্তরের আগে প্রতিটির পরে ReLU
        for layer in inner:
            x = torch.relu(layer(x))
        return last(x)


def list_trap_demo(sizes=(3, 16, 8, 1), seed: int = 0) -> list[dict]:
    """দুই পাত্রে একই stack। প্রতিটির জন্য dict: ``holder``, ``out_shape``, ``n_params``,
    ``n_keys``, ``optimizer_error`` (None হলে optimizer তৈরি হয়েছে)।"""
    torch.manual_seed(seed)
    rows = []
    for holder in (list, nn.ModuleList):
        stack = LayerStack(list(sizes), holder=holder)
        with torch.no_grad():
            out_shape = tuple(stack(torch.zeros(4, sizes[0])).shape)
        try:
            torch.optim.SGD(stack.parameters(), lr=0.1)
            err = None
        except ValueError as e:
            err = str(e)
        rows.append({
            "holder": stack.holder,
            "out_shape": out_shape,
            "n_params": sum(p.numel() for p in stack.parameters()),
            "n_keys": len(stack.state_dict()),
            "optimizer_error": err,
        })
    return rows


def format_list_trap(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        lines.append(f"holder={r['holder']}: output {r['out_shape']} · "
                     f"গোনা {r['n_params']} · key {r['n_keys']}")
        verdict = f"ValueError ({r['optimizer_error']})" if r["optimizer_error"] else "তৈরি হলো"
        lines.append(f"    SGD(...) → {verdict}")
    return "\n".join(lines)
