"""পরীক্ষা ৪: model শেখানো, state_dict সেভ আর JSON-এ লেখা, তারপর শুধু NumPy দিয়ে
একই forward চালিয়ে PyTorch-এর সঙ্গে মেলানো (float64 আর float32)।"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from ..data import DATA_SEED, SAMPLE_ORDERS
from ..export import diff_report, export_state_json, numpy_forward, param_shapes, torch_predict
from ..train import train_delivery_model


def train_export_demo(workdir, seed: int = DATA_SEED, trained=None) -> dict:
    """``workdir``-এ ``delivery_mlp.pt`` আর ``delivery_mlp.json`` লেখে।

    ``trained``: আগেই থাকা ``train_delivery_model()``-এর ফল দিলে আবার শেখানো হয় না।
    ফেরত dict: ``model``, ``history``, ``train_mse``, ``pt_path``, ``json_path``,
    ``json_bytes``, ``shapes``, ``orders``, ``torch32``, ``torch64``, ``numpy32``,
    ``numpy64``, ``diff64`` (NumPy বনাম PyTorch, float64), ``diff32`` (float32; ulp-সহ),
    ``diff_32_vs_64`` (NumPy-র float32 বনাম float64), ``diff64_printed`` (১২ দশমিকে ছাপা
    PyTorch-এর মানের সঙ্গে), ``all64``/``all32`` (৪০০টি অর্ডারেই তুলনা), ``all32_ulp_counts``
    (কতগুলো অর্ডারে ০, ১, ২, … ulp পার্থক্য)।
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    model, history, X, y = trained if trained is not None else train_delivery_model(seed=seed)
    model.eval()

    pt_path = workdir / "delivery_mlp.pt"
    json_path = workdir / "delivery_mlp.json"
    torch.save(model.state_dict(), pt_path)
    n_bytes = export_state_json(model, json_path)

    orders = np.array(SAMPLE_ORDERS, dtype=np.float64)
    torch32 = torch_predict(model, orders, torch.float32)
    torch64 = torch_predict(model, orders, torch.float64)
    numpy64 = numpy_forward(json_path, orders, np.float64)
    numpy32 = numpy_forward(json_path, orders, np.float32)
    # পাতার মতো: ১২ দশমিকে ছাপা PyTorch-এর মানের সঙ্গে তুলনা (rounding-এর সীমা ৫ × ১০⁻¹³)
    printed64 = np.array([float(f"{v:.12f}") for v in torch64.tolist()])
    # পুরো ৪০০টি অর্ডারে একই তুলনা
    X_all = X.numpy().astype(np.float64)
    all64 = diff_report(numpy_forward(json_path, X_all, np.float64), torch_predict(model, X_all, torch.float64))
    all32 = diff_report(numpy_forward(json_path, X_all, np.float32), torch_predict(model, X_all, torch.float32))
    ulp_counts = np.bincount(np.rint(all32["ulps"]).astype(int)).tolist()
    return {
        "model": model,
        "history": history,
        "train_mse": history.final_train_mse,
        "pt_path": pt_path,
        "json_path": json_path,
        "json_bytes": n_bytes,
        "shapes": param_shapes(json_path),
        "orders": orders,
        "torch32": torch32,
        "torch64": torch64,
        "numpy32": numpy32,
        "numpy64": numpy64,
        "diff64": diff_report(numpy64, torch64),
        "diff32": diff_report(numpy32, torch32),
        "diff_32_vs_64": diff_report(numpy32, numpy64),
        "diff64_printed": diff_report(numpy64, printed64),
        "all64": all64,
        "all32": all32,
        "all32_ulp_counts": ulp_counts,
    }


def format_train_export(r: dict) -> str:
    lines = [
        f"train MSE: {r['train_mse']:.3f}  ({r['history'].epochs} epoch, Adam lr {r['history'].lr})",
        f"json bytes: {r['json_bytes']}",
        "float32: " + str([f"{v:.12f}" for v in r["torch32"].tolist()]),
        "float64: " + str([f"{v:.12f}" for v in r["torch64"].tolist()]),
        "",
        "— JSON থেকে NumPy —",
    ]
    for k, shape in r["shapes"]:
        lines.append(f"{k:15s} {shape}")
    for o, p in zip(r["orders"], r["numpy64"]):
        lines.append(f"দূরত্ব {o[0]:g} km · পণ্য {int(o[1])} · বৃষ্টি {int(o[2])} → {p:.12f} মিনিট")
    d64, d32 = r["diff64"], r["diff32"]
    lines.append(f"NumPy বনাম PyTorch, float64-এ সবচেয়ে বড় ফারাক {d64['max_abs']:.1e}")
    lines.append(
        f"NumPy বনাম PyTorch, float32-এ সবচেয়ে বড় ফারাক {d32['max_abs']:.1e} "
        f"(= {d32['max_ulps']:.0f} ulp; সারি ধরে ulp {[round(u) for u in d32['ulps']]})"
    )
    lines.append(f"একই NumPy forward, float32 আর float64-এর ফারাক {r['diff_32_vs_64']['max_abs']:.1e} মিনিট")
    lines.append(f"ছাপা ১২ দশমিকের সঙ্গে (float64): {r['diff64_printed']['max_abs']:.1e}")
    a64, a32 = r["all64"], r["all32"]
    lines.append(f"৪০০টি অর্ডারে float64: max {a64['max_abs']:.1e}")
    lines.append(
        f"৪০০টি অর্ডারে float32: max {a32['max_abs']:.1e} (= {a32['max_ulps']:.0f} ulp); "
        f"০, ১, ২, … ulp-এর অর্ডার: {r['all32_ulp_counts']}"
    )
    return "\n".join(lines)
