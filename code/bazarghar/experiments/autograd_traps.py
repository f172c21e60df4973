"""পর্ব ০৮ · autograd-এর ফাঁদ: প্রতিটি ফাঁদ আসল error বা আসল ভুল সংখ্যা হিসেবে।

প্রতিটি function ফাঁদটি ঘটায়, আর যা ঘটল (error-এর বার্তা, বা ঠিক আর ভুল gradient
পাশাপাশি) একটি dict-এ ফেরত দেয়।
"""

from __future__ import annotations

import warnings

import torch

from .autograd import ACTUAL_MINUTES, start_tensors

__all__ = [
    "error_of",
    "leaf_inplace",
    "saved_inplace",
    "data_trap",
    "sqrt_at_zero",
    "integer_grad",
    "item_trap",
    "traps_demo",
    "format_traps",
    "audit_gradients",
    "AUDIT_CASES",
    "first_step",
    "audit_demo",
    "format_audit",
]


def error_of(run) -> tuple[str, str] | None:
    """``run()`` যে error দেয়: (type, বার্তা); error না হলে None।"""
    try:
        run()
    except (AttributeError, RuntimeError, TypeError) as err:
        return type(err).__name__, str(err)
    return None


def leaf_inplace() -> dict:
    """gradient চাওয়া leaf-এ in-place: error; no_grad-এর ভেতরে একই কাজ (optimizer যেভাবে করে) চলে।"""
    w, _, _ = start_tensors()
    error = error_of(lambda: w.add_(1.0))
    with torch.no_grad():
        w.add_(1.0)
    return {"error": error, "after_no_grad": w.tolist(), "still_leaf": w.is_leaf}


def saved_inplace() -> dict:
    """exp নিজের output রেখে দেয়; সেই output-এ in-place বদল → version counter-এর error।"""
    x = torch.zeros(2, requires_grad=True)
    e = x.exp()
    loss = e.sum()
    before = e._version
    e.mul_(3.0)
    return {"versions": (before, e._version), "error": error_of(loss.backward)}


def data_trap() -> dict:
    """একই বদল ``.data``-র ভেতর দিয়ে: error নেই, gradient ভুল।"""
    x = torch.zeros(2, requires_grad=True)
    x.exp().sum().backward()
    right = x.grad.tolist()
    x = torch.zeros(2, requires_grad=True)
    e = x.exp()
    loss = e.sum()
    e.data.mul_(3.0)  # version counter জানে না
    loss.backward()
    return {"right": right, "with_data": x.grad.tolist(), "loss": loss.item()}


def sqrt_at_zero() -> dict:
    """দোকানের ভেতরের অর্ডার: দূরত্ব √(dx² + dy²) যখন dx = dy = 0।"""
    out = {}
    z = torch.tensor(0.0, requires_grad=True)
    torch.sqrt(z).backward()
    out["sqrt"] = z.grad.item()
    p = torch.zeros(2, requires_grad=True)
    torch.sqrt((p ** 2).sum()).backward()
    out["by_hand_norm"] = p.grad.tolist()
    p = torch.zeros(2, requires_grad=True)
    torch.linalg.vector_norm(p).backward()
    out["vector_norm"] = p.grad.tolist()
    a = torch.tensor(0.0, requires_grad=True)
    a.abs().backward()
    out["abs"] = a.grad.item()
    return out


def integer_grad() -> dict:
    """পণ্যের সংখ্যা int64 tensor: gradient চাওয়া যায় না।"""
    return {"error": error_of(lambda: torch.tensor([3, 1, 5], requires_grad=True)),
            "float_ok": torch.tensor([3, 1, 5], dtype=torch.float32).requires_grad_().requires_grad}


def item_trap(steps: int = 3, lr: float = 0.001) -> dict:
    """গল্পের বাগ: loss Python float-এ নেমে গেল। সেই float-এ backward একটি error, তা থেকে
    requires_grad ছাড়া tensor বানিয়ে backward আরেকটি; requires_grad=True দিলে error থামে,
    কিন্তু w আর b কখনো gradient পায় না, loss নড়ে না।"""
    def run(broken: bool) -> dict:
        w, b, x = start_tensors()
        losses = []
        for _ in range(steps):
            loss = (w @ x + b - ACTUAL_MINUTES) ** 2
            if broken:
                value = loss.item()  # এখানেই graph ছিঁড়ে গেল
                loss = torch.tensor(value, requires_grad=True)  # error থামানোর "সমাধান"
            losses.append(loss.item())
            loss.backward()
            with torch.no_grad():
                for p in (w, b):
                    if p.grad is not None:
                        p -= lr * p.grad
                        p.grad = None
        return {"losses": losses, "w": w.tolist(), "w_grad_none": w.grad is None}


    w, b, x = start_tensors()
    loss = (w @ x + b - ACTUAL_MINUTES) ** 2
    said = {}
    for how, convert in (("item", lambda t: t.item()), ("float", float)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            plain = convert(loss)
        said[how] = [f"{w_.category.__name__}: {str(w_.message).splitlines()[0]}" for w_ in caught]
    errors = {"float": error_of(lambda: plain.backward()),                # তানিয়ার প্রথম চেষ্টা
              "tensor": error_of(lambda: torch.tensor(plain).backward())}  # tensor বানিয়ে দ্বিতীয়
    fixed = run(False)
    fixed["losses"] = [float(f"{v:.4g}") for v in fixed["losses"]]  # শেষ অঙ্ক CPU-ভেদে নড়তে পারে
    return {"errors": errors, "warnings": said, "broken": run(True), "fixed": fixed}


def traps_demo() -> dict:
    return {"leaf_inplace": leaf_inplace(), "saved_inplace": saved_inplace(), "data": data_trap(),
            "sqrt": sqrt_at_zero(), "integer": integer_grad(), "item": item_trap()}


def format_traps(r: dict) -> str:
    def err(e):
        return "কোনো error নেই" if e is None else f"{e[0]}: {e[1]}"

    item = r["item"]
    return "\n".join([
        "১. leaf-এ in-place: " + err(r["leaf_inplace"]["error"]),
        "২. রাখা tensor-এ in-place: " + err(r["saved_inplace"]["error"]),
        f"৩. .data দিয়ে একই বদল: x.grad {r['data']['with_data']} (ঠিক হলো {r['data']['right']})",
        f"৪. sqrt(0)-এর gradient {r['sqrt']['sqrt']}; √(dx²+dy²) শূন্যে {r['sqrt']['by_hand_norm']};"
        f" vector_norm {r['sqrt']['vector_norm']}; abs(0) {r['sqrt']['abs']}",
        "৫. int tensor: " + err(r["integer"]["error"]),
        "৬. .item()-এর float-এ backward: " + err(item["errors"]["float"]),
        "   torch.tensor(float)-এ backward: " + err(item["errors"]["tensor"]),
        f"   নতুন tensor বানিয়ে: loss {item['broken']['losses']}, w {item['broken']['w']}",
        f"   graph না ছিঁড়ে:      loss {item['fixed']['losses']}",
    ])


def audit_gradients(named) -> list[tuple[str, str]]:
    """একটি backward-এর পরে প্রতিটি parameter-এর gradient-এর অবস্থা: নেই, অসীম/nan, সব শূন্য, নাকি ঠিক।"""
    rows = []
    for name, p in named:
        if p.grad is None:
            status = "None"
        elif not torch.isfinite(p.grad).all():
            status = "nan/inf"
        elif not p.grad.any():
            status = "সব শূন্য"
        else:
            status = "ঠিক"
        rows.append((name, status))
    return rows


#: audit_demo-এর তিনটি loop: গল্পের ভাঙা loop, round-এর loss, আর ঠিক loop
AUDIT_CASES = ("item", "round", "ঠিক")


def first_step(case: str):
    """একটি loop-এর প্রথম backward-এর পরে w আর b।"""
    w, b, x = start_tensors()
    pred = w @ x + b
    if case == "round":
        pred = torch.round(pred + 0.4)
    loss = (pred - ACTUAL_MINUTES) ** 2
    if case == "item":
        loss = torch.tensor(loss.item(), requires_grad=True)
    loss.backward()
    return w, b


def audit_demo() -> dict:
    """তিনটি loop-এর প্রথম ধাপের পরে একই যাচাই।"""
    return {case: audit_gradients(zip("wb", first_step(case))) for case in AUDIT_CASES}


def format_audit(cases: dict) -> str:
    return "\n".join(f"{case:6s} " + ", ".join(f"{n}: {s}" for n, s in rows) for case, rows in cases.items())
