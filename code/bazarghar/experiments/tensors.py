"""পর্ব ০৭ · tensor-এর পরীক্ষা: বানানো, আকার বদল, memory (storage আর stride) আর device।

প্রতিটি ``*_demo()`` ফল একটি dict-এ ফেরত দেয়, ``format_*()`` সেটি ছাপার রূপে লেখে;
``code/scripts/07-tensors/``-এর script আর পর্বের cell একই function ডাকে।
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..data import SAMPLE_ORDERS, make_orders

__all__ = ["making_demo", "format_making", "shape_demo", "format_shape", "memory_demo",
           "format_memory", "shares_storage", "view_or_copy", "format_view_or_copy", "device_demo",
           "format_device", "MEMORY_EXAMPLE", "error_text"]

#: অংশ ৩-এর ছয়টি সংখ্যা: সারি আর কলামের নম্বর মানের ভেতরেই লেখা (২১ = সারি ২, কলাম ১)
MEMORY_EXAMPLE = ((11, 12, 13), (21, 22, 23))


def error_text(action) -> str | None:
    """``action()`` যে error দেয়, তার type আর বার্তা (এক লাইনে); error না দিলে None।"""
    try:
        action()
    except (RuntimeError, TypeError, ValueError) as err:
        return f"{type(err).__name__}: {str(err).splitlines()[0]}"
    return None


def shares_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    """দুটি tensor একই storage-এর ওপর দাঁড়িয়ে কি না (একটিতে লিখলে অন্যটি বদলায় কি না)।"""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


# ---- অংশ ১: বানানো --------------------------------------------------------------------------

def making_demo(seed: int = 7) -> dict:
    """list থেকে, কারখানার function থেকে, generator থেকে আর NumPy থেকে tensor; কে copy করে
    আর কে memory ভাগ করে; ``.numpy()`` কখন রাজি নয়।"""
    orders = torch.tensor(SAMPLE_ORDERS)
    items = torch.tensor([1, 3, 5])
    draws = [torch.rand(2, 3, generator=torch.Generator().manual_seed(seed)) for _ in range(2)]

    minutes = np.array([52.0, 45.0, 61.0])
    copied = torch.tensor(minutes)
    shared = torch.from_numpy(minutes)
    as_is = torch.as_tensor(minutes)
    as_f32 = torch.as_tensor(minutes, dtype=torch.float32)   # dtype বদলাল: copy
    minutes[0] = 99.0
    shared[1] = -1.0
    return {
        "orders_shape": tuple(orders.shape), "orders_dtype": str(orders.dtype),
        "orders_device": str(orders.device), "items_dtype": str(items.dtype),
        "arange": torch.arange(0, 10, 3).tolist(), "linspace": torch.linspace(0, 12, 4).tolist(),
        "seed": seed, "rand": [round(v, 4) for v in draws[0].flatten().tolist()],
        "rand_same": torch.equal(draws[0], draws[1]),
        "after": {"numpy": minutes.tolist(), "tensor": copied.tolist(), "from_numpy": shared.tolist(),
                  "as_tensor": as_is.tolist(), "as_tensor_float32": as_f32.tolist()},
        "grad_error": error_text(lambda: torch.ones(3, requires_grad=True).numpy()),
        "meta_error": error_text(lambda: torch.ones(3, device="meta").numpy()),
    }


def format_making(r: dict) -> str:
    a = r["after"]
    return "\n".join([
        f"SAMPLE_ORDERS → shape {r['orders_shape']}, {r['orders_dtype']}, device {r['orders_device']}",
        f"পূর্ণসংখ্যার list → {r['items_dtype']}",
        f"arange(0, 10, 3) → {r['arange']} | linspace(0, 12, 4) → {r['linspace']}",
        f"seed {r['seed']}-এর generator, দুবার: একই? {r['rand_same']}",
        f"numpy-তে বদলের পরে → numpy {a['numpy']}",
        f"  torch.tensor: {a['tensor']} | from_numpy: {a['from_numpy']} | as_tensor: {a['as_tensor']}",
        f"  as_tensor(dtype=float32): {a['as_tensor_float32']}",
        f"requires_grad-এ .numpy(): {r['grad_error']}",
        f"meta device-এ .numpy(): {r['meta_error']}",
    ])


# ---- অংশ ২: আকার ----------------------------------------------------------------------------

def shape_demo() -> dict:
    """ডেলিভারি ডেটার আকার, আর আকার বদলের প্রতিটি function-এর ফল।"""
    X, y = make_orders()
    trips = torch.arange(12)                    # বারোটি trip-এর ক্রমিক নম্বর
    week = torch.arange(24).reshape(2, 3, 4)    # (ভ্যান, দিন, trip)
    mu = X.mean(dim=0)
    one = torch.zeros(1, 1)                     # একটি অর্ডারের prediction, (1, 1)
    day1, day2 = X[:2], X[2:4]
    return {
        "X": tuple(X.shape), "y": tuple(y.shape), "ndim": (X.ndim, y.ndim, y[0].ndim),
        "numel": X.numel(), "size0": X.size(0),
        "reshape": tuple(trips.reshape(3, 4).shape), "view": tuple(trips.view(4, 3).shape),
        "infer": tuple(trips.reshape(2, -1).shape),
        "bad_reshape": error_text(lambda: trips.reshape(5, -1)),
        "permute": tuple(week.permute(1, 0, 2).shape), "transpose": tuple(week.transpose(0, 2).shape),
        "squeeze_all": tuple(one.squeeze().shape), "squeeze_dim": tuple(one.squeeze(-1).shape),
        "unsqueeze": tuple(y.unsqueeze(1).shape), "flatten": tuple(week.flatten().shape),
        "flatten1": tuple(week.flatten(1).shape),
        "expand_stride": mu.expand(400, 3).stride(), "repeat_stride": mu.repeat(400, 1).stride(),
        "expand_bytes": mu.expand(400, 3).untyped_storage().nbytes(),
        "repeat_bytes": mu.repeat(400, 1).untyped_storage().nbytes(),
        "expand_equal": torch.equal(mu.expand(400, 3), mu.repeat(400, 1)),
        "cat": tuple(torch.cat([day1, day2]).shape), "cat1": tuple(torch.cat([day1, day2], dim=1).shape),
        "stack": tuple(torch.stack([day1, day2]).shape),
        "stack_error": error_text(lambda: torch.stack([X[:2], X[:3]])),
    }


def format_shape(r: dict) -> str:
    return "\n".join([
        f"X {r['X']}, y {r['y']}; ndim (X, y, y[0]) = {r['ndim']}; numel {r['numel']}",
        f"arange(12): reshape(3, 4) → {r['reshape']}, view(4, 3) → {r['view']}, reshape(2, -1) → {r['infer']}",
        f"reshape(5, -1): {r['bad_reshape']}",
        f"(2, 3, 4): permute(1, 0, 2) → {r['permute']}, transpose(0, 2) → {r['transpose']}",
        f"(1, 1): squeeze() → {r['squeeze_all']}, squeeze(-1) → {r['squeeze_dim']}",
        f"y.unsqueeze(1) → {r['unsqueeze']}; flatten() → {r['flatten']}, flatten(1) → {r['flatten1']}",
        f"expand(400, 3): stride {r['expand_stride']}, {r['expand_bytes']} byte | "
        f"repeat(400, 1): stride {r['repeat_stride']}, {r['repeat_bytes']} byte | একই মান: {r['expand_equal']}",
        f"দুই দিনের (2, 3): cat → {r['cat']}, cat(dim=1) → {r['cat1']}, stack → {r['stack']}",
        f"stack-এ আলাদা আকার: {r['stack_error']}",
    ])


# ---- অংশ ৩: memory --------------------------------------------------------------------------

def view_or_copy() -> list[tuple[str, bool]]:
    """প্রতিটি কাজের ফল মূল tensor-এর storage ভাগ করে (view) কি না, চালিয়ে দেখা।"""
    t = torch.tensor(MEMORY_EXAMPLE)
    row = t[:1]
    ops = [
        ("t[:, 1:]", lambda: t[:, 1:]), ("t.view(3, 2)", lambda: t.view(3, 2)),
        ("t.T", lambda: t.T), ("t.unsqueeze(0)", lambda: t.unsqueeze(0)),
        ("row.expand(4, 3)", lambda: row.expand(4, 3)), ("t.reshape(6)", lambda: t.reshape(6)),
        ("t.T.reshape(6)", lambda: t.T.reshape(6)), ("t.T.contiguous()", lambda: t.T.contiguous()),
        ("t.clone()", lambda: t.clone()), ("row.repeat(4, 1)", lambda: row.repeat(4, 1)),
        ("t[[0, 1]]", lambda: t[[0, 1]]), ("t[t > 12]", lambda: t[t > 12]),
    ]
    return [(name, shares_storage(make(), t)) for name, make in ops]


def format_view_or_copy(rows: list[tuple[str, bool]]) -> str:
    return "\n".join(f"{name:18s} {'view' if shared else 'copy'}" for name, shared in rows)


def memory_demo() -> dict:
    """একই ছয়টি সংখ্যার তিন চেহারা (2×3, তার transpose, একটি slice): stride, offset, একই storage;
    view দিয়ে লেখা মূলে পৌঁছায়; transpose-এর পরে view ভাঙে, contiguous() নতুন storage বানায়।"""
    t = torch.tensor(MEMORY_EXAMPLE)
    tt, part = t.T, t[:, 1:]
    flat = t.reshape(-1)                                     # contiguous: একই storage
    i, j = 1, 2
    cell = t.storage_offset() + i * t.stride(0) + j * t.stride(1)
    written = t.clone()
    written.T[0, 1] = 99                                     # transpose দিয়ে লেখা
    fixed = tt.contiguous()
    return {
        "stride": {"t": t.stride(), "t.T": tt.stride(), "t[:, 1:]": part.stride()},
        "offset": {"t": t.storage_offset(), "t.T": tt.storage_offset(), "t[:, 1:]": part.storage_offset()},
        "contiguous": {"t": t.is_contiguous(), "t.T": tt.is_contiguous(), "t[:, 1:]": part.is_contiguous()},
        "same_storage": shares_storage(t, tt) and shares_storage(t, part),
        "element": (i, j, cell, int(t[i, j]), int(flat[cell])),
        "slice_bytes_ahead": part.data_ptr() - t.data_ptr(),
        "written": written.tolist(),
        "view_error": error_text(lambda: tt.view(6)),
        "reshape_T": tt.reshape(6).tolist(), "reshape_T_shares": shares_storage(tt.reshape(6), t),
        "contiguous_stride": fixed.stride(), "contiguous_shares": shares_storage(fixed, t),
        "contiguous_bytes": fixed.untyped_storage().nbytes(), "contiguous_is_self": t.contiguous() is t,
        "table": view_or_copy(),
    }


def format_memory(r: dict) -> str:
    i, j, cell, value, again = r["element"]
    lines = [f"{name:9s} stride {r['stride'][name]}, offset {r['offset'][name]}, "
             f"contiguous {r['contiguous'][name]}" for name in r["stride"]]
    lines += [
        f"তিনটিরই একই storage: {r['same_storage']}",
        f"t[{i}, {j}] = storage[{cell}] = {value} ({again})",
        f"transpose দিয়ে লেখার পরে t: {r['written']}",
        f"t.T.view(6): {r['view_error']}",
        f"t.T.reshape(6) → {r['reshape_T']}, একই storage? {r['reshape_T_shares']}",
        f"t.T.contiguous(): stride {r['contiguous_stride']}, একই storage? {r['contiguous_shares']}, "
        f"নতুন {r['contiguous_bytes']} byte",
        format_view_or_copy(r["table"]),
    ]
    return "\n".join(lines)


# ---- অংশ ৫: device --------------------------------------------------------------------------

def device_demo() -> dict:
    """এই মেশিনে কী আছে, ``.to()`` কী ফেরত দেয়, আর দুই device মেশালে কী error।

    GPU নেই, তাই "অন্য device" হিসেবে ``meta``: সেখানে tensor-এর আকার আর dtype আছে, মান নেই।"""
    X, _ = make_orders()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    moved = X.to("meta")
    layer = nn.Linear(3, 1)
    return {
        "device": str(X.device), "cuda": torch.cuda.is_available(),
        "accelerator": torch.accelerator.is_available(), "picked": device,
        "same_object": X.to(device) is X, "cast_is_new": X.to(torch.float64) is not X,
        "moved_device": str(moved.device), "moved_shape": tuple(moved.shape), "original_device": str(X.device),
        "module_same": layer.to("meta") is layer, "module_weight_device": str(layer.weight.device),
        "mix_error": error_text(lambda: torch.lerp(X[:2], X[:2].to("meta"), 0.5)),
    }


def format_device(r: dict) -> str:
    return "\n".join([
        f"X.device: {r['device']} | cuda: {r['cuda']} | accelerator: {r['accelerator']} | বাছাই: {r['picked']}",
        f"X.to('{r['picked']}') is X: {r['same_object']} | X.to(float64) নতুন: {r['cast_is_new']}",
        f"X.to('meta'): device {r['moved_device']}, shape {r['moved_shape']}; X রইল {r['original_device']}-এ",
        f"nn.Linear.to('meta') is layer: {r['module_same']} (weight এখন {r['module_weight_device']})",
        f"cpu আর meta-র মাঝামাঝি: {r['mix_error']}",
    ])
