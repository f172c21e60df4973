"""পরীক্ষা ২: nn.Module-এর __setattr__ কী নিবন্ধন করে আর কী করে না।"""

from __future__ import annotations

import torch
from torch import nn


class Tiny(nn.Module):
    """প্রতিটি ধরনের একটি করে attribute: submodule, Parameter, buffer,
    list-এ রাখা Linear, আর সাধারণ tensor।"""

    def __init__(self):
        super().__init__()  # তিনটি খালি খাতা: _parameters, _buffers, _modules
        self.fc = nn.Linear(2, 1)  # Module → _modules
        self.scale = nn.Parameter(torch.ones(1))  # Parameter → _parameters
        self.register_buffer("mu", torch.zeros(2))  # buffer → _buffers
        self.extra = [nn.Linear(2, 2)]  # list → সাধারণ attribute, অদৃশ্য
        self.mu2 = torch.zeros(2)  # সাধারণ tensor → অদৃশ্য

    def forward(self, x):
        return self.fc((x - self.mu) * self.scale)


class Forgot(nn.Module):
    """super().__init__() ডাকতে ভুলে যাওয়া model।"""

    def __init__(self):  # noqa: D401 — ইচ্ছা করে super().__init__() নেই
        self.fc = nn.Linear(2, 1)


def registry_demo() -> dict:
    """ফেরত dict: ``modules``, ``parameters``, ``buffers`` (তিন খাতার key),
    ``state_keys``, ``extra_in_dict``, ``mu2_in_dict``, ``dtypes_after_double``
    (mu, mu2, extra[0].weight), ``forgot_error`` (type, বার্তা)।"""
    tiny = Tiny()
    result = {
        "modules": list(tiny._modules),
        "parameters": list(tiny._parameters),
        "buffers": list(tiny._buffers),
        "state_keys": list(tiny.state_dict()),
        "extra_in_dict": "extra" in tiny.__dict__,
        "mu2_in_dict": "mu2" in tiny.__dict__,
    }
    tiny.double()
    result["dtypes_after_double"] = (tiny.mu.dtype, tiny.mu2.dtype, tiny.extra[0].weight.dtype)
    try:
        Forgot()
    except AttributeError as err:
        result["forgot_error"] = (type(err).__name__, str(err))
    else:  # pragma: no cover — PyTorch-এর আচরণ বদলালে
        result["forgot_error"] = None
    return result


def persistent_buffer_demo() -> dict:
    """``persistent=False`` buffer: named_buffers()-এ আসে, state_dict-এ আসে না।"""
    m = nn.Module()
    m.register_buffer("kept", torch.zeros(3))
    m.register_buffer("scratch", torch.ones(3), persistent=False)
    return {
        "named_buffers": [name for name, _ in m.named_buffers()],
        "state_keys": list(m.state_dict()),
    }


def format_registry(r: dict) -> str:
    mu, mu2, extra = r["dtypes_after_double"]
    lines = [
        f"_modules   : {r['modules']}",
        f"_parameters: {r['parameters']}",
        f"_buffers   : {r['buffers']}",
        f"state_dict : {r['state_keys']}",
        f"'extra' in __dict__: {r['extra_in_dict']} | 'mu2': {r['mu2_in_dict']}",
        f"double() পরে: {mu} {mu2} {extra}",
    ]
    if r["forgot_error"]:
        lines.append("{}: {}".format(*r["forgot_error"]))
    return "\n".join(lines)
