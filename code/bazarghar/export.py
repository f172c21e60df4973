"""state_dict → JSON, আর সেই JSON থেকে শুধু NumPy দিয়ে একই forward।

NumPy-র forward eval mode-এর হিসাব করে, তাই Dropout সেখানে অনুপস্থিত (eval-এ সে input ছোঁয় না)।
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import numpy as np
import torch

__all__ = [
    "state_to_lists",
    "export_state_json",
    "load_params_json",
    "param_shapes",
    "np_linear",
    "numpy_forward",
    "torch_predict",
    "diff_report",
]


def state_to_lists(model) -> dict:
    """state_dict-এর প্রতিটি tensor Python list-এ (JSON-এ লেখার উপযোগী), key-এর ক্রম অপরিবর্তিত।"""
    return {k: v.detach().cpu().tolist() for k, v in model.state_dict().items()}


def export_state_json(model, path) -> int:
    """state_dict JSON ফাইলে লেখে (কমা আর কোলনের পরে ফাঁকা নেই)। ফেরত দেয় ফাইলের byte।"""
    text = json.dumps(state_to_lists(model), separators=(",", ":"))
    Path(path).write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))


def load_params_json(source) -> dict:
    """JSON ফাইলের পথ, JSON string, বা আগেই পড়া dict — যেকোনোটি থেকে {key: list}।"""
    if isinstance(source, dict):
        return source
    if isinstance(source, (str, os.PathLike)) and Path(source).exists():
        return json.loads(Path(source).read_text(encoding="utf-8"))
    if isinstance(source, str):
        return json.loads(source)
    raise TypeError("পথ, JSON string বা dict চাই")


def param_shapes(params_json) -> list[tuple[str, tuple]]:
    """প্রতিটি key আর তার আকার, ফাইলের ক্রমে।"""
    raw = load_params_json(params_json)
    return [(k, np.shape(v)) for k, v in raw.items()]


def np_linear(x, W, b):
    """nn.Linear-এর হিসাব: y = x Wᵀ + b (W-এর আকার (out, in))।"""
    return x @ W.T + b


def numpy_forward(params_json, X, dtype=np.float64):
    """DeliveryMLP-এর eval-mode forward, শুধু NumPy দিয়ে, ``dtype``-এর হিসাবে।

    ``params_json``: :func:`export_state_json`-এর ফাইল (বা তার dict)। ফেরত আকার (N,)।
    """
    raw = load_params_json(params_json)
    sd = {k: np.asarray(v, dtype=dtype) for k, v in raw.items()}
    z = (np.asarray(X).astype(dtype) - sd["x_mean"]) / sd["x_std"]
    h = np.maximum(np_linear(z, sd["hidden.0.weight"], sd["hidden.0.bias"]), 0)
    h = np.maximum(np_linear(h, sd["hidden.3.weight"], sd["hidden.3.bias"]), 0)
    return np_linear(h, sd["head.weight"], sd["head.bias"])[:, 0]


def torch_predict(model, X, dtype=torch.float32) -> np.ndarray:
    """eval mode আর no_grad-এ PyTorch-এর prediction, numpy array হিসেবে।

    float64 চাইলে model-এর একটি কপি ``.double()`` করা হয়; আসল model বদলায় না।
    """
    if dtype in (np.float64, "float64"):
        dtype = torch.float64
    if dtype in (np.float32, "float32"):
        dtype = torch.float32
    net = copy.deepcopy(model).to(dtype) if dtype != torch.float32 else model
    was_training = model.training
    net.eval()
    with torch.no_grad():
        out = net(torch.as_tensor(np.asarray(X), dtype=dtype)).numpy()
    model.train(was_training)
    return out


def diff_report(a, b) -> dict:
    """দুটি prediction-এর তুলনা: সর্বোচ্চ |a − b|, আর সেটি ``b``-এর dtype-এ কত ulp
    (শেষ bit-এর ধাপ, ``np.spacing``)। সারি ধরে ulp-ও ফেরত দেয়।"""
    a = np.asarray(a)
    b = np.asarray(b)
    diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
    step = np.spacing(np.abs(b)).astype(np.float64)
    ulps = diff / step
    return {
        "max_abs": float(diff.max()),
        "max_ulps": float(ulps.max()),
        "ulps": ulps.tolist(),
        "abs": diff.tolist(),
        "dtype": str(b.dtype),
    }
