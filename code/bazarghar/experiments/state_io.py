"""পরীক্ষা ৫: state_dict সেভ/load, strict, নাম আর আকারের অমিল, আর torch.load-এর weights_only।"""

from __future__ import annotations

import inspect
import pickle
import re
from pathlib import Path

import torch
from torch import nn

from ..data import DEMO_ORDER
from ..model import DeliveryMLP

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_KEY_MARKERS = ("Weights only load failed", "(1) In PyTorch", "WeightsUnpickler error")


class Renamed(DeliveryMLP):
    """DeliveryMLP-ই, শুধু শেষ স্তরের attribute-এর নাম ``out`` (আগে ছিল ``head``)।"""

    def __init__(self, x_mean=None, x_std=None, p_drop: float = 0.1):
        super().__init__(x_mean, x_std, p_drop)
        self.out = self.head
        del self.head

    def forward(self, x):
        h = self.hidden((x - self.x_mean) / self.x_std)
        return self.out(h).squeeze(-1)


def key_error_lines(err: BaseException, max_len: int = 160) -> list[str]:
    """weights_only-এর দীর্ঘ বার্তা থেকে ANSI রং-চিহ্ন মুছে তিনটি মূল লাইন; দীর্ঘ লাইন “…”-এ ছাঁটা।"""
    text = _ANSI.sub("", str(err))
    picked = []
    for line in text.splitlines():
        line = line.strip()
        if any(marker in line for marker in _KEY_MARKERS):
            # Cut at a space, never inside a word.
            picked.append(line if len(line) <= max_len else line[: max_len - 1].rsplit(" ", 1)[0] + " …")
    return picked


def state_io_demo(state_path, workdir=None) -> dict:
    """``state_path``: শেখানো model-এর ``torch.save(model.state_dict(), ...)`` ফাইল।
    ``workdir``: পুরো model সেভের জায়গা (না দিলে state_path-এর ফোল্ডার)।

    ফেরত dict: ``sd_type``, ``keys``, ``weights_only_default``, ``load_result``,
    ``prediction``, ``renamed_error``, ``renamed_lenient`` (strict=False-এর ফল),
    ``out_weight_changed`` (strict=False-এর পরে out বদলেছে কি না),
    ``size_error``, ``size_error_lenient`` (strict=False-এও error), ``unpickling_lines``,
    ``unpickling_type``, ``whole_type``।
    """
    state_path = Path(state_path)
    workdir = Path(workdir) if workdir is not None else state_path.parent
    r: dict = {}

    sd = torch.load(state_path)  # default আর্গুমেন্টে
    r["sd_type"] = type(sd).__name__
    r["keys"] = list(sd.keys())
    r["weights_only_default"] = inspect.signature(torch.load).parameters["weights_only"].default

    fresh = DeliveryMLP(torch.zeros(3), torch.ones(3))
    r["load_result"] = repr(fresh.load_state_dict(sd))  # strict=True default
    fresh.eval()
    with torch.no_grad():
        r["prediction"] = round(fresh(torch.tensor([DEMO_ORDER])).item(), 4)

    renamed = Renamed(torch.zeros(3), torch.ones(3))
    before = renamed.out.weight.detach().clone()
    try:
        renamed.load_state_dict(sd)
        r["renamed_error"] = None
    except RuntimeError as e:
        r["renamed_error"] = str(e)
    r["renamed_lenient"] = repr(renamed.load_state_dict(sd, strict=False))
    r["out_weight_changed"] = not torch.equal(before, renamed.out.weight)

    wider = DeliveryMLP(torch.zeros(3), torch.ones(3))
    wider.head = nn.Linear(8, 2)
    try:
        wider.load_state_dict(sd)
        r["size_error"] = None
    except RuntimeError as e:
        r["size_error"] = str(e).splitlines()[-1].strip()
    try:
        wider.load_state_dict(sd, strict=False)
        r["size_error_lenient"] = None
    except RuntimeError as e:
        r["size_error_lenient"] = str(e).splitlines()[-1].strip()

    whole_path = workdir / "whole_model.pt"
    torch.save(fresh, whole_path)  # পুরো object, pickle দিয়ে
    try:
        torch.load(whole_path)
        r["unpickling_lines"], r["unpickling_type"] = [], None
    except pickle.UnpicklingError as e:
        r["unpickling_lines"] = key_error_lines(e)
        r["unpickling_type"] = type(e).__name__
    whole = torch.load(whole_path, weights_only=False)  # শুধু নিজের বিশ্বস্ত ফাইলে
    r["whole_type"] = type(whole).__name__
    return r


def format_state_io(r: dict) -> str:
    lines = [
        f"{r['sd_type']} | keys: {r['keys']}",
        f"torch.load-এর signature-এ weights_only-এর default: {r['weights_only_default']}",
        r["load_result"],
        f"prediction: {r['prediction']}",
    ]
    if r["renamed_error"]:
        lines.append("RuntimeError: " + r["renamed_error"])
    lines.append("strict=False: " + r["renamed_lenient"])
    if r["size_error"]:
        lines.append("RuntimeError: " + r["size_error"])
    if r["size_error_lenient"]:
        lines.append("strict=False-এও RuntimeError: " + r["size_error_lenient"])
    for line in r["unpickling_lines"]:
        lines.append("  " + line)
    lines.append("নিজের ফাইল, weights_only=False দিয়ে খোলা → " + r["whole_type"])
    return "\n".join(lines)
