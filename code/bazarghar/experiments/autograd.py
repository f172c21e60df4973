"""পর্ব ০৮ · autograd: leaf আর graph, backward, gradient জমা, আর autograd বন্ধ করার উপায়।

সারা পর্বের ছোট উদাহরণ এক লাইনের একটি model: মিনিট = w · x + b, যেখানে x একটি অর্ডার
(দূরত্ব km, পণ্য, বৃষ্টি)। সংখ্যাগুলো বাছা হয়েছে যাতে float32-এও প্রতিটি gradient হুবহু
ছাপা যায় (৮.৫ × ১৪ = ১১৯), তাই যেকোনো CPU-তে একই অঙ্ক।
"""

from __future__ import annotations

import torch

from ..data import DEMO_ORDER, SAMPLE_ORDERS
from ..loop import loss_fn, make_loop_model, split_orders

__all__ = [
    "ACTUAL_MINUTES",
    "W_START",
    "B_START",
    "JACOBIAN_AT",
    "DELIVERY_ORDERS",
    "start_tensors",
    "one_order_demo",
    "format_one_order",
    "batch_demo",
    "format_batch",
    "small_f",
    "jacobian_demo",
    "format_jacobian",
    "accumulate_demo",
    "format_accumulate",
    "delivery_loss",
    "saved_bytes",
    "switches_demo",
    "format_switches",
]

#: অর্ডারটির আসল সময়, মিনিটে
ACTUAL_MINUTES = 52.0
#: শুরুর weight (প্রতি km, প্রতি পণ্য, বৃষ্টি) আর bias
W_START = (2.0, 1.0, 5.0)
B_START = 20.0
#: ডেলিভারি model-এর loss কয়টি অর্ডারে
DELIVERY_ORDERS = 8
#: অংশ ২-এর Jacobian যে বিন্দুতে
JACOBIAN_AT = (2.0, 1.0, 5.0)


def start_tensors():
    """w আর b (শেখার জিনিস, leaf), আর x (একটি অর্ডার, শেখার নয়)।"""
    w = torch.tensor(W_START, requires_grad=True)
    b = torch.tensor(B_START, requires_grad=True)
    x = torch.tensor(DEMO_ORDER)
    return w, b, x


def one_order_demo() -> dict:
    """একটি অর্ডারে prediction, squared error আর backward: w.grad আর b.grad।"""
    w, b, x = start_tensors()
    pred = w @ x + b
    loss = (pred - ACTUAL_MINUTES) ** 2
    loss.backward()
    return {
        "pred": pred.item(),
        "loss": loss.item(),
        "dloss_dpred": 2 * (pred.item() - ACTUAL_MINUTES),
        "w_grad": w.grad.tolist(),
        "b_grad": b.grad.item(),
        "by_hand_w": [2 * (pred.item() - ACTUAL_MINUTES) * xi for xi in DEMO_ORDER],
        "leaf": (w.is_leaf, x.is_leaf, pred.is_leaf),
        "requires_grad": (w.requires_grad, x.requires_grad, pred.requires_grad),
        "grad_fn": (type(pred.grad_fn).__name__, type(loss.grad_fn).__name__),
    }


def format_one_order(r: dict) -> str:
    return "\n".join([
        f"prediction {r['pred']} মিনিট, loss {r['loss']}",
        f"w.grad = {r['w_grad']}",
        f"b.grad = {r['b_grad']}",
        f"হাতে: 2·(pred − y)·x = {r['by_hand_w']}",
    ])


def batch_demo() -> dict:
    """তিনটি অর্ডারের prediction (একটি vector): আর্গুমেন্ট ছাড়া backward-এর error, আর
    gradient= দিয়ে vector–Jacobian product।"""
    w, b, _ = start_tensors()
    X = torch.tensor(SAMPLE_ORDERS)
    preds = X @ w + b
    try:
        preds.backward()
        error = None
    except RuntimeError as err:
        error = str(err)
    v = torch.ones(len(SAMPLE_ORDERS))
    preds.backward(gradient=v, retain_graph=True)
    with_ones = w.grad.clone()
    w.grad, b.grad = None, None
    preds.sum().backward()
    return {"preds": preds.tolist(), "error": error, "with_ones": with_ones.tolist(),
            "with_sum": w.grad.tolist(), "column_sums": X.sum(0).tolist(), "b_grad": b.grad.item(),
            "orders": len(SAMPLE_ORDERS)}


def format_batch(r: dict) -> str:
    return "\n".join([
        f"তিন অর্ডারের prediction: {r['preds']}",
        f"আর্গুমেন্ট ছাড়া backward: RuntimeError: {r['error']}",
        f"gradient=ones দিয়ে w.grad: {r['with_ones']}",
        f"sum().backward() দিয়ে:     {r['with_sum']}",
        f"broadcast হওয়া b-এর gradient: {r['b_grad']}",
    ])


def small_f(w: torch.Tensor) -> torch.Tensor:
    """অংশ ২-এর তিন output-এর function: [w₀w₁, w₁² + w₂, 3w₀]।"""
    return torch.stack([w[0] * w[1], w[1] ** 2 + w[2], 3 * w[0]])


def jacobian_demo(v=(1.0, 0.0, 2.0)) -> dict:
    """small_f-এর Jacobian: হাতে, jacobian() দিয়ে; আর v দিয়ে backward = vᵀJ।"""
    w0, w1, _w2 = JACOBIAN_AT
    by_hand = [[w1, w0, 0.0], [0.0, 2 * w1, 1.0], [3.0, 0.0, 0.0]]
    w = torch.tensor(JACOBIAN_AT, requires_grad=True)
    J = torch.autograd.functional.jacobian(small_f, w)
    vec = torch.tensor(v)
    small_f(w).backward(gradient=vec)
    return {"by_hand": by_hand, "jacobian": J.tolist(), "v": list(v), "vjp": w.grad.tolist(),
            "vT_J": (vec @ J).tolist()}


def format_jacobian(r: dict) -> str:
    return "\n".join([
        f"হাতে J:      {r['by_hand']}",
        f"jacobian(): {r['jacobian']}",
        f"v = {r['v']} দিয়ে backward → w.grad = {r['vjp']}",
        f"vᵀJ হাতে গুণ করে:                 {r['vT_J']}",
    ])


def accumulate_demo(times: int = 3) -> dict:
    """একই loss তিনবার নতুন করে হিসাব করে backward, মাঝে মোছা নেই: b.grad জমে।"""
    w, b, x = start_tensors()
    grads = []
    for _ in range(times):
        loss = (w @ x + b - ACTUAL_MINUTES) ** 2
        loss.backward()
        grads.append(b.grad.item())
    b.grad = None
    return {"grads": grads, "after_reset": b.grad}


def format_accumulate(r: dict) -> str:
    lines = [f"backward #{i + 1}: b.grad = {g}" for i, g in enumerate(r["grads"])]
    lines.append(f"b.grad = None-এর পরে: {r['after_reset']}")
    return "\n".join(lines)


def delivery_loss(train: bool = False, n: int = DELIVERY_ORDERS):
    """পর্ব ০৯-এর DeliveryMLP (পর্ব ১০-এর শুরু, seed 0) আর প্রথম n অর্ডারের MSE loss।"""
    split = split_orders()
    model = make_loop_model(split)
    model.train(train)
    torch.manual_seed(1)  # Dropout-এর mask, train mode-এ
    loss = loss_fn(model(split.X_train[:n]), split.y_train[:n])
    return model, loss


def saved_bytes(run) -> int:
    """``run()`` চলার সময় autograd backward-এর জন্য যত byte tensor তুলে রাখে
    (saved_tensors_hooks দিয়ে গোনা; একই tensor দুবার রাখলে দুবার গোনা)।"""
    total = 0

    def pack(t):
        nonlocal total
        total += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        run()
    return total


def switches_demo(n: int = 32) -> dict:
    """একই forward চার রকমে: সাধারণ, no_grad, inference_mode, আর প্রথম স্তর জমানো (frozen)।
    প্রতিটিতে: grad_fn আছে কি না, backward-এর জন্য রাখা byte, আর কোন parameter gradient পায়।"""
    split = split_orders()
    X, y = split.X_train[:n], split.y_train[:n]
    rows = {}
    for mode in ("normal", "no_grad", "inference_mode", "frozen"):
        model = make_loop_model(split).eval()
        if mode == "frozen":
            model.hidden[0].requires_grad_(False)
        out = {}

        def run():
            if mode == "no_grad":
                with torch.no_grad():
                    out["loss"] = loss_fn(model(X), y)
            elif mode == "inference_mode":
                with torch.inference_mode():
                    out["loss"] = loss_fn(model(X), y)
            else:
                out["loss"] = loss_fn(model(X), y)

        bytes_saved = saved_bytes(run)
        loss = out["loss"]
        has_graph = loss.grad_fn is not None
        if has_graph:
            loss.backward()
        rows[mode] = {"grad_fn": type(loss.grad_fn).__name__ if has_graph else None,
                      "bytes": bytes_saved,
                      "with_grad": [k for k, p in model.named_parameters() if p.grad is not None],
                      "inference": loss.is_inference()}
    return {"n": n, "rows": rows}


def format_switches(r: dict) -> str:
    lines = [f"{'mode':15s} {'grad_fn':17s} {'saved byte':>10s}  gradient পেল"]
    for mode, row in r["rows"].items():
        got = len(row["with_grad"])
        lines.append(f"{mode:15s} {str(row['grad_fn']):17s} {row['bytes']:10,d}  {got}টি parameter")
    return "\n".join(lines)
