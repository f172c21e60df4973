"""পর্ব ১০ · পরীক্ষা ১৩: device — অন্য মেশিনে লেখা checkpoint (``map_location``), আর ``.to()``,
optimizer বানানো ও optimizer load-এর ক্রম।

এই মেশিনে GPU নেই, তাই দুটি কৌশল। এক, GPU মেশিনের ফাইল: ``torch.save`` প্রতিটি storage-এর
পাশে তার device-এর নাম লেখে ("cpu", "cuda:0"); আমরা CPU-তে লেখা ফাইলের সেই নাম "cuda:0" করে
দিই, বাকি সব byte একই। দুই, device বদলের বদলে dtype বদল: ``model.to(torch.float64)`` আর
``model.to("cuda")`` একই পথে (``Module._apply``) parameter বদলায়, আর optimizer-এর state load-এর
সময় parameter-এর dtype আর device দুটিই নেয়।
"""

from __future__ import annotations

import pickletools
import struct
import zipfile
from pathlib import Path

import torch

from ..loop import fit, make_loop_model, split_orders, train_step
from .checkpoint_demo import adam_setup

__all__ = ["as_if_saved_on", "map_location_demo", "format_map_location", "to_order_demo",
           "format_to_order"]


def _retag(pickled: bytes, old: str, new: str) -> bytes:
    """pickle-এর ভেতরে ``old`` string (storage-এর device) ``new`` দিয়ে বদলায়; pickle-এ কোনো
    byte-অবস্থান লেখা থাকে না (memo চলে ক্রমিক নম্বরে), তাই লম্বা string বসালেও ফাইল ঠিক থাকে।"""
    out, last = [], 0
    for op, arg, pos in pickletools.genops(pickled):
        if op.name in ("BINUNICODE", "SHORT_BINUNICODE") and arg == old:
            head = 5 if op.name == "BINUNICODE" else 2
            encoded = new.encode()
            out += [pickled[last:pos], b"X" + struct.pack("<I", len(encoded)) + encoded]
            last = pos + head + len(old.encode())
    out.append(pickled[last:])
    return b"".join(out)


def as_if_saved_on(src: str | Path, dst: str | Path, device: str = "cuda:0") -> Path:
    """``src``-এর প্রতিটি storage-এর device "cpu" থেকে ``device``: GPU মেশিনে লেখা ফাইলের মতো।"""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("/data.pkl"):
                data = _retag(data, "cpu", device)
            zout.writestr(info, data)
    return Path(dst)


def map_location_demo(workdir) -> dict:
    """Adam-এ এক epoch, তারপর model আর optimizer-এর state_dict এক ফাইলে, "GPU-তে লেখা" রূপে।
    ``map_location`` ছাড়া খোলে না; "cpu", dict বা function দিলে খোলে, আর মান হুবহু এক।"""
    workdir = Path(workdir)
    split, model, opt, loader = adam_setup()
    fit(model, opt, loader, split, 1)
    cpu_file = workdir / "trained_on_cpu.pt"
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, cpu_file)
    gpu_file = as_if_saved_on(cpu_file, workdir / "trained_on_gpu.pt")
    try:
        torch.load(gpu_file, weights_only=True)
        error = None
    except RuntimeError as err:
        error = str(err).split(". ")[0]
    seen: list = []

    def where(storage, location):  # প্রতিটি storage-এর জন্য একবার ডাকা হয়
        seen.append(location)
        return storage  # CPU-তেই রাখো

    by_function = torch.load(gpu_file, weights_only=True, map_location=where)
    by_string = torch.load(gpu_file, weights_only=True, map_location="cpu")
    by_dict = torch.load(gpu_file, weights_only=True, map_location={"cuda:0": "cpu"})
    original = model.state_dict()

    def same(ckpt) -> bool:
        return all(torch.equal(original[k], v) for k, v in ckpt["model"].items())

    return {
        "error": error,
        "locations": sorted(set(seen)),
        "n_storages": len(seen),
        "devices": sorted({str(v.device) for v in by_string["model"].values()}),
        "equal": same(by_function) and same(by_string) and same(by_dict),
    }


def format_map_location(r: dict) -> str:
    return "\n".join([
        f"map_location ছাড়া: RuntimeError: {r['error'].split(' but ')[0]}",
        f"function দেখল {r['n_storages']}টি storage, device {r['locations']}",
        f"\"cpu\", dict বা function: tensor এখন {r['devices']}, মান হুবহু এক: {r['equal']}",
    ])


def _adam_state(dtype):
    """এক ধাপ চলা Adam-এর state_dict (float32 model থেকে), আর ধাপ চালানোর একটি batch।"""
    split = split_orders()
    model = make_loop_model(split).eval()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    xb, yb = split.X_train[:32], split.y_train[:32]
    train_step(model, opt, xb, yb)
    return split, opt.state_dict(), xb.to(dtype), yb.to(dtype)


def to_order_demo() -> dict:
    """তিনটি ক্রম, ``torch.float64`` এখানে "অন্য device"-এর জায়গায়।
    ঠিক: ``.to`` → optimizer বানানো → optimizer load। state parameter-এর dtype নেয়, ধাপ চলে।
    ভুল: optimizer load → ``.to``। state পুরোনো dtype-এ থেকে যায়, প্রথম ``step()``-এ error।
    parameter বদলে গেলে: optimizer বানানো → ``.to``, যখন ``.to`` নতুন Parameter বানায়
    (``torch.__future__.set_overwrite_module_params_on_conversion(True)``): optimizer পুরোনো
    tensor ধরে থাকে, model একটুও শেখে না।"""
    dtype = torch.float64
    split, state, xb, yb = _adam_state(dtype)
    result: dict = {}

    # ঠিক ক্রম
    model = make_loop_model(split).eval().to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    opt.load_state_dict(state)
    before = model.head.bias.item()
    train_step(model, opt, xb, yb)
    result["right"] = {"state_dtype": str(opt.state[model.head.bias]["exp_avg"].dtype).split(".")[-1],
                       "moved": model.head.bias.item() != before}

    # ভুল ক্রম: আগে load, তারপর .to
    model = make_loop_model(split).eval()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    opt.load_state_dict(state)
    model.to(dtype)
    try:
        train_step(model, opt, xb, yb)
        result["load_then_to"] = None
    except RuntimeError as err:
        result["load_then_to"] = str(err)
    result["stale_dtype"] = str(opt.state[model.head.bias]["exp_avg"].dtype).split(".")[-1]

    # optimizer আগে, তারপর .to: আজকের সাধারণ .to একই Parameter রাখে; নতুন বানালে কী হয়
    for replaced in (False, True):
        torch.__future__.set_overwrite_module_params_on_conversion(replaced)
        try:
            model = make_loop_model(split).eval()
            opt = torch.optim.Adam(model.parameters(), lr=1e-2)
            model.to(dtype)
            held = opt.param_groups[0]["params"][-1]
            before = model.head.bias.item()
            losses = [train_step(model, opt, xb, yb).item() for _ in range(5)]
        finally:
            torch.__future__.set_overwrite_module_params_on_conversion(False)
        result["replaced" if replaced else "kept"] = {
            "same_object": held is model.head.bias,
            "moved": model.head.bias.item() != before,
            "losses": losses,
            "held_grad_none": held.grad is None,
        }
    return result


def format_to_order(r: dict) -> str:
    k, p = r["kept"], r["replaced"]
    return "\n".join([
        f"ঠিক ক্রম (.to → Adam → load): state {r['right']['state_dtype']}, "
        f"ধাপে weight সরল: {r['right']['moved']}",
        f"load → .to: state {r['stale_dtype']}, step()-এ RuntimeError",
        f"Adam → .to, একই Parameter: {k['same_object']}, শিখল: {k['moved']}",
        f"Adam → .to, নতুন Parameter: একই {p['same_object']}, শিখল: {p['moved']}, "
        f"loss {p['losses'][0]:.1f} → {p['losses'][-1]:.1f}",
    ])
