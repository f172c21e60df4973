"""পরীক্ষা ৩: layer সাধারণ Python list-এ রাখলে কী হয়, আর nn.ModuleList কী বদলায়।"""

from __future__ import annotations

import torch
from torch import nn


def _run_stack(layers, x):
    """স্তরগুলো ক্রমে চালায়, শেষটি ছাড়া প্রতিটির পরে ReLU।"""
    last = len(layers) - 1
    for i, layer in enumerate(layers):
        x = layer(x)
        if i < last:
            x = torch.relu(x)
    return x


class ListMLP(nn.Module):
    """ভুল: স্তরগুলো সাধারণ list-এ, তাই PyTorch ভেতরে তাকায় না।"""

    def __init__(self, sizes):
        super().__init__()
        pairs = zip(sizes[:-1], sizes[1:])
        self.layers = [nn.Linear(n_in, n_out) for n_in, n_out in pairs]

    def forward(self, x):
        return _run_stack(self.layers, x)


class FixedMLP(ListMLP):
    """ঠিক: একই list, nn.ModuleList-এ মোড়ানো; এখন সব নিবন্ধিত।"""

    def __init__(self, sizes):
        super().__init__(sizes)
        self.layers = nn.ModuleList(self.layers)


def list_trap_demo(sizes=(3, 16, 8, 1), seed: int = 0) -> list[dict]:
    """দুটি class পাশাপাশি। প্রতিটির জন্য dict: ``name``, ``out_shape``, ``n_params``,
    ``n_keys``, ``optimizer_error`` (None হলে optimizer তৈরি হয়েছে)।"""
    torch.manual_seed(seed)
    rows = []
    for cls in (ListMLP, FixedMLP):
        model = cls(list(sizes))
        with torch.no_grad():
            out_shape = tuple(model(torch.zeros(4, sizes[0])).shape)
        try:
            torch.optim.SGD(model.parameters(), lr=0.1)
            err = None
        except ValueError as e:
            err = str(e)
        rows.append(
            {
                "name": cls.__name__,
                "out_shape": out_shape,
                "n_params": sum(p.numel() for p in model.parameters()),
                "n_keys": len(model.state_dict()),
                "optimizer_error": err,
            }
        )
    return rows


def format_list_trap(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        lines.append(
            f"{r['name']}: forward {r['out_shape']}, parameter {r['n_params']}, "
            f"state_dict keys {r['n_keys']}"
        )
        if r["optimizer_error"]:
            lines.append(f"  ValueError: {r['optimizer_error']}")
        else:
            lines.append("  optimizer তৈরি হলো")
    return "\n".join(lines)
