"""পর্ব ০৮ · হাতে মিলিয়ে দেখা, torch.autograd.grad, দ্বিতীয় derivative, নিজের backward
(torch.autograd.Function), আর পর্বের অনুশীলনী।

float64-এ হিসাব, যাতে NumPy আর PyTorch-এর তুলনায় পার্থক্য শুধু শেষ bit-এর যোগের ক্রম;
ছাপা সংখ্যা চার দশমিকে, যা যেকোনো CPU-তে একই।
"""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import torch
from torch.autograd.gradcheck import GradcheckError

from ..data import DEMO_ORDER, SAMPLE_ORDERS
from ..loop import loss_fn, make_loop_model, split_orders
from .autograd import ACTUAL_MINUTES, start_tensors

__all__ = [
    "TOLERANCE",
    "numpy_backward",
    "numpy_check_demo",
    "format_numpy_check",
    "minutes",
    "gradcheck_demo",
    "format_gradcheck",
    "input_gradient_demo",
    "format_input_gradient",
    "RoundMinutes",
    "round_demo",
    "format_round",
    "late_penalty",
    "exercises08_demo",
    "format_exercises08",
]

#: NumPy আর PyTorch-এর gradient "মেলে" বলার সীমা (float64-এ)
TOLERANCE = 1e-12


def numpy_backward(p: dict, X: np.ndarray, y: np.ndarray) -> dict:
    """DeliveryMLP-এর (eval mode) MSE loss-এর gradient, শুধু NumPy-তে, পর্ব ০৫-এর মতো হাতে:
    forward-এর প্রতিটি মধ্যবর্তী মান রেখে, শেষ থেকে শুরুর দিকে chain rule। p: state_dict-এর
    নাম থেকে array।"""
    z = (X - p["x_mean"]) / p["x_std"]
    a1 = z @ p["hidden.0.weight"].T + p["hidden.0.bias"]
    h1 = np.maximum(a1, 0)
    a2 = h1 @ p["hidden.3.weight"].T + p["hidden.3.bias"]
    h2 = np.maximum(a2, 0)
    pred = (h2 @ p["head.weight"].T + p["head.bias"])[:, 0]
    d = (2 * (pred - y) / len(y))[:, None]       # dL/d(output), আকার (N, 1)
    g = {"head.weight": d.T @ h2, "head.bias": d.sum(0)}
    d = (d @ p["head.weight"]) * (a2 > 0)        # ReLU: output > 0 হলেই পথ খোলা
    g |= {"hidden.3.weight": d.T @ h1, "hidden.3.bias": d.sum(0)}
    d = (d @ p["hidden.3.weight"]) * (a1 > 0)
    g |= {"hidden.0.weight": d.T @ z, "hidden.0.bias": d.sum(0)}
    return g


def numpy_check_demo(n: int = 16) -> dict:
    """একই model, একই অর্ডার: autograd-এর gradient আর NumPy-র হাতের gradient, float64-এ।"""
    split = split_orders()
    model = copy.deepcopy(make_loop_model(split)).double().eval()
    with torch.no_grad():  # শুরুর weight আর গড়ের শেষ bit CPU-ভেদে আলাদা, তাই চার দশমিকে বাঁধা
        for t in [*model.parameters(), *model.buffers()]:
            t.copy_(t.round(decimals=4))
    X, y = split.X_train[:n].double(), split.y_train[:n].double()
    loss = loss_fn(model(X), y)
    loss.backward()
    params = {k: v.detach().numpy() for k, v in model.state_dict().items()}
    by_hand = numpy_backward(params, X.numpy(), y.numpy())
    rows = []
    for name, p in model.named_parameters():
        diff = float(np.abs(p.grad.numpy() - by_hand[name]).max())
        scale = float(np.abs(by_hand[name]).max())
        rows.append({"name": name, "shape": tuple(p.shape), "ok": diff <= TOLERANCE * max(1.0, scale),
                     "largest": round(scale, 4)})
    return {"n": n, "rows": rows, "all_ok": all(r["ok"] for r in rows),
            "head_bias": round(float(model.head.bias.grad), 4)}


def format_numpy_check(r: dict) -> str:
    lines = [f"{'parameter':16s} {'আকার':8s} {'সবচেয়ে বড় |grad|':>16s}  মেলে?"]
    for row in r["rows"]:
        lines.append(f"{row['name']:16s} {str(row['shape']):8s} {row['largest']:16.4f}  {row['ok']}")
    return "\n".join(lines)


def minutes(distance, items, rain):
    """বাজারঘরের ডেটা যে নিয়মে বানানো (noise বাদে), tensor-এ: gradcheck আর autograd.grad-এর জন্য।"""
    return 20 + 2.5 * distance + 6 * torch.sqrt(items) + 8 * rain + 0.05 * distance ** 2


def gradcheck_demo() -> dict:
    """নিজের function-এ gradcheck: float64-এ পাস; float32-এ সতর্কবার্তা আর আসল ব্যর্থতা।"""
    def inputs(dtype):  # পর্বের তিনটি নমুনা অর্ডার, কলাম ধরে: দূরত্ব, পণ্য, বৃষ্টি
        return tuple(torch.tensor(column, dtype=dtype, requires_grad=True) for column in zip(*SAMPLE_ORDERS))

    passed = torch.autograd.gradcheck(minutes, inputs(torch.float64))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            torch.autograd.gradcheck(lambda d: 2.5 * d + 0.05 * d ** 2,
                                     (torch.tensor([8.5], requires_grad=True),))
            failure = None
        except GradcheckError as err:
            failure = str(err).splitlines()[:3]
    said = [f"{w.category.__name__}: {str(w.message).split('. ')[0]}." for w in caught]
    return {"float64": passed, "float32_warning": said, "float32_failure": failure}


def format_gradcheck(r: dict) -> str:
    return "\n".join([f"float64: gradcheck → {r['float64']}", *r["float32_warning"],
                      "float32: GradcheckError: " + " ".join(r["float32_failure"] or ["(পাস)"])])


def input_gradient_demo() -> dict:
    """দোকানের প্রশ্ন: এই অর্ডারে দূরত্ব ১ km বাড়লে কত মিনিট বাড়ে? input-এর gradient,
    torch.autograd.grad দিয়ে; আর create_graph=True দিয়ে দ্বিতীয় derivative।"""
    d, items, rain = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in DEMO_ORDER)
    total = minutes(d, items, rain)
    per_km, per_item, per_rain = torch.autograd.grad(total, (d, items, rain), create_graph=True)
    (curvature,) = torch.autograd.grad(per_km, d)
    w, b, x = start_tensors()
    loss = (w @ x + b - ACTUAL_MINUTES) ** 2
    gw, gb = torch.autograd.grad(loss, (w, b))
    return {"minutes": round(total.item(), 4), "per_km": round(per_km.item(), 4),
            "per_item": round(per_item.item(), 4), "per_rain": round(per_rain.item(), 4),
            "curvature": round(curvature.item(), 4), "by_formula": round(2.5 + 0.1 * DEMO_ORDER[0], 4),
            "item_formula": round(3 / math.sqrt(DEMO_ORDER[1]), 4),
            "w_grad_returned": gw.tolist(), "b_grad_returned": gb.item(), "w_grad_field": w.grad}


def format_input_gradient(r: dict) -> str:
    return "\n".join([
        f"এই অর্ডারে সময়: {r['minutes']} মিনিট",
        f"প্রতি km: {r['per_km']} মিনিট | প্রতি পণ্য: {r['per_item']} | বৃষ্টি: {r['per_rain']}",
        f"দ্বিতীয় derivative (দূরত্বে): {r['curvature']}",
        f"autograd.grad: w → {r['w_grad_returned']}, b → {r['b_grad_returned']}; w.grad = {r['w_grad_field']}",
    ])


class RoundMinutes(torch.autograd.Function):
    """গ্রাহককে বলা সময় পূর্ণ মিনিটে। forward: round; backward: gradient যেমন এল তেমনই
    পেছনে পাঠানো (straight-through), তবে শুধু ০ থেকে ``ctx.limit`` মিনিটের ভেতরে; বাইরে শূন্য।"""

    @staticmethod
    def forward(ctx, minutes_, limit=180.0):
        ctx.save_for_backward(minutes_)
        ctx.limit = limit
        return torch.round(minutes_)

    @staticmethod
    def backward(ctx, grad_output):
        (minutes_,) = ctx.saved_tensors
        inside = (minutes_ >= 0) & (minutes_ <= ctx.limit)
        return grad_output * inside, None  # limit-এর কোনো gradient নেই


def round_demo() -> dict:
    """torch.round-এর gradient সবখানে শূন্য; RoundMinutes দিয়ে w আবার শেখার সংকেত পায়।"""
    out = {}
    for how in ("round", "custom", "none"):
        w, b, x = start_tensors()
        pred = w @ x + b + 0.4  # পূর্ণ সংখ্যা নয়: ৪৫.৪ মিনিট
        if how == "round":
            pred = torch.round(pred)
        elif how == "custom":
            pred = RoundMinutes.apply(pred)
        loss = (pred - ACTUAL_MINUTES) ** 2
        loss.backward()
        out[how] = {"pred": round(pred.item(), 4), "w_grad": [round(g, 4) for g in w.grad.tolist()],
                    "grad_fn": type(pred.grad_fn).__name__}
    far = torch.tensor([200.0, 90.0, -5.0], requires_grad=True)
    RoundMinutes.apply(far).sum().backward()
    out["outside"] = far.grad.tolist()
    return out


def format_round(r: dict) -> str:
    return "\n".join([
        f"torch.round:  pred {r['round']['pred']}, w.grad {r['round']['w_grad']}",
        f"RoundMinutes: pred {r['custom']['pred']}, w.grad {r['custom']['w_grad']}",
        f"round ছাড়া:   pred {r['none']['pred']}, w.grad {r['none']['w_grad']}",
        f"[200, 90, −5] মিনিটে gradient: {r['outside']}",
    ])


def late_penalty(m, promised=45.0):
    """দেরির জরিমানা: প্রতিশ্রুত সময় পেরোলে মসৃণভাবে বাড়ে (softplus)।"""
    return torch.nn.functional.softplus(m - promised)


def exercises08_demo() -> dict:
    """পর্বের অনুশীলনীর উত্তর: একটি ছোট Jacobian, দুই backward-এর যোগ, আর নিজের function-এ gradcheck।"""
    a = torch.tensor([3.0, -2.0], requires_grad=True)
    g = lambda t: torch.stack([t[0] + 2 * t[1], t[0] * t[1]])  # noqa: E731
    jac = torch.autograd.functional.jacobian(g, a).tolist()
    x = torch.tensor(2.0, requires_grad=True)
    (x ** 3).backward()
    first = x.grad.item()
    (x * x).backward()
    both = x.grad.item()
    m = torch.tensor([40.0, 45.0, 52.0], dtype=torch.float64, requires_grad=True)
    passed = torch.autograd.gradcheck(late_penalty, (m,))
    late_penalty(m).sum().backward()
    return {"jacobian": jac, "first": first, "both": both, "gradcheck": passed,
            "penalty_grad": [round(v, 4) for v in m.grad.tolist()]}


def format_exercises08(r: dict) -> str:
    return "\n".join([
        f"অনুশীলনী ১: J = {r['jacobian']}",
        f"অনুশীলনী ২: x³-এর পরে x.grad = {r['first']}; x·x-এর পরে = {r['both']}",
        f"অনুশীলনী ৩: gradcheck → {r['gradcheck']}; জরিমানার gradient = {r['penalty_grad']}",
    ])
