"""পর্ব ১০ · পরীক্ষা ৭: checkpoint-এ কী রাখি, আর weights_only দিয়ে পড়া।"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import torch

from ..checkpoint import make_checkpoint, numpy_rng_from_plain, numpy_rng_to_plain, save_checkpoint
from ..loop import fit, make_loader, make_loop_model, split_orders

#: checkpoint আর resume-এর training: Adam, lr 0.01
RESUME_LR = 1e-2


def adam_setup(model_seed: int = 0, loader_seed: int = 0, lr: float = RESUME_LR):
    """split, model, Adam আর loader; Dropout-এর জন্য শেষে ``torch.manual_seed(1)``।
    resume-এর পরীক্ষায় ইচ্ছা করে অন্য seed দিয়ে বানানো হয়, যাতে প্রমাণ হয় যে সব
    অবস্থা checkpoint থেকেই এসেছে।"""
    split = split_orders()
    model = make_loop_model(split, seed=model_seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loader = make_loader(split.X_train, split.y_train, seed=loader_seed)
    torch.manual_seed(1 + model_seed)
    return split, model, opt, loader


def _describe(value) -> str:
    if torch.is_tensor(value):
        return f"tensor {value.dtype} {tuple(value.shape)}"
    if isinstance(value, dict):
        return "dict: " + ", ".join(str(k) for k in value)
    return f"{type(value).__name__} {value}"


def checkpoint_demo(workdir, epochs: int = 10) -> dict:
    workdir = Path(workdir)
    split, model, opt, loader = adam_setup()
    history = fit(model, opt, loader, split, epochs)
    path = save_checkpoint(workdir / "checkpoint.pt", model, opt, epochs, loader, history)
    ckpt = torch.load(path, weights_only=True)
    model_only = workdir / "model_only.pt"
    torch.save(model.state_dict(), model_only)
    # একই কাজ, কিন্তু History object সরাসরি: weights_only এটি খুলতে অস্বীকার করে
    bad = workdir / "with_object.pt"
    raw = make_checkpoint(model, opt, epochs, loader, history)
    raw["history"] = history
    torch.save(raw, bad)
    try:
        torch.load(bad, weights_only=True)
        bad_error = "(কোনো error নেই)"
    except pickle.UnpicklingError as err:
        bad_error = type(err).__name__
    bad_loaded = type(torch.load(bad, weights_only=False)["history"]).__name__
    # NumPy-র global RNG: get_state()-এর tuple সরাসরি রাখলে weights_only খোলে না
    np_raw = workdir / "numpy_raw.pt"
    torch.save({"numpy": np.random.get_state()}, np_raw)
    try:
        torch.load(np_raw, weights_only=True)
        numpy_error = "(কোনো error নেই)"
    except pickle.UnpicklingError as err:
        numpy_error = type(err).__name__
    np.random.seed(0)
    np_plain = workdir / "numpy_plain.pt"
    torch.save({"numpy": numpy_rng_to_plain(np.random.get_state())}, np_plain)
    expected = np.random.random(3)
    np.random.set_state(numpy_rng_from_plain(torch.load(np_plain, weights_only=True)["numpy"]))
    numpy_restored = bool((np.random.random(3) == expected).all())
    return {
        "path": path,
        "keys": list(ckpt),
        "described": {k: _describe(v) for k, v in ckpt.items()},
        "rng_shapes": {k: tuple(v.shape) for k, v in ckpt["rng"].items()},
        "rng_dtype": str(ckpt["rng"]["torch"].dtype),
        "epoch": ckpt["epoch"],
        "bytes": path.stat().st_size,
        "model_bytes": model_only.stat().st_size,
        "history_len": len(ckpt["history"]["train"]),
        "bad_error": bad_error,
        "bad_loaded": bad_loaded,
        "last_val": history.val[-1],
        "numpy_error": numpy_error,
        "numpy_restored": numpy_restored,
    }


def format_checkpoint(r: dict) -> str:
    lines = []
    for k, v in r["described"].items():
        if k == "model":  # আটটি key এক লাইনে ধরে না: সংখ্যা আর দুই প্রান্ত
            names = v.removeprefix("dict: ").split(", ")
            v = f"dict, {len(names)}টি key: {names[0]} … {names[-1]}"
        elif k == "rng":
            shape = r["rng_shapes"]["torch"]
            v = f"{v} — দুটিই {r['rng_dtype']} {shape}"
        lines.append(f"{k:9s} → {v}")
    lines += [
        f"weights_only=True-তে খুলল; epoch {r['epoch']}, history-তে {r['history_len']}টি epoch",
        f"মাপ: checkpoint {r['bytes']:,} byte | শুধু model {r['model_bytes']:,} byte",
        f"History object: weights_only=True-তে {r['bad_error']}; False-এ {r['bad_loaded']}",
        f"np.random.get_state(): {r['numpy_error']}; tensor-এ ভেঙে রাখলে খোলে: "
        f"{r['numpy_restored']}",
    ]
    return "\n".join(lines)
