"""পরীক্ষা ১: model বানিয়ে ঘুরে দেখা — print(model), named_parameters, buffer,
nn.Linear-এর হিসাব হাতে মেলানো, আর default initialization-এর সীমা।"""

from __future__ import annotations

import torch

from ..data import DATA_SEED, make_orders
from ..model import DeliveryMLP


def module_tour(seed: int = DATA_SEED) -> dict:
    """ফেরত dict-এর key:

    ``model``, ``torch_version``, ``repr`` (print(model)-এর লেখা), ``params``
    (নাম, আকার, সংখ্যা-র তালিকা), ``total`` (২০৯), ``buffers`` (নাম → float32 মান, ৩ দশমিকে),
    ``weight_shape`` (১৬, ৩), ``bias_shape`` (১৬,), ``linear_max_diff`` (lin(z) বনাম
    z Wᵀ + b, ০.০), ``max_abs_weight`` (seed 42-এ ০.৫৭০২), ``init_bound`` (1/√৩)।
    """
    X, _ = make_orders(seed=seed)
    torch.manual_seed(seed)
    model = DeliveryMLP(X.mean(0), X.std(0))

    params = [(name, tuple(p.shape), p.numel()) for name, p in model.named_parameters()]
    # Rounded in float32, as the lecture prints them (buf.numpy().round(3)); rounding the same
    # values as Python floats can land one unit away in the last digit (3.013 vs 3.012).
    buffers = {name: b.detach().numpy().round(3) for name, b in model.named_buffers()}

    lin = model.hidden[0]
    with torch.no_grad():
        first_two = (X[:2] - model.x_mean) / model.x_std
        by_hand = first_two @ lin.weight.T + lin.bias  # weight (out, in), তাই .T
        diff = (lin(first_two) - by_hand).abs().max().item()
    return {
        "model": model,
        "torch_version": torch.__version__,
        "repr": repr(model),
        "params": params,
        "total": sum(n for _, _, n in params),
        "buffers": buffers,
        "weight_shape": tuple(lin.weight.shape),
        "bias_shape": tuple(lin.bias.shape),
        "linear_max_diff": diff,
        "max_abs_weight": round(lin.weight.abs().max().item(), 4),
        "init_bound": round(lin.in_features ** -0.5, 4),
    }


def format_tour(r: dict) -> str:
    lines = ["torch " + r["torch_version"], r["repr"]]
    for name, shape, n in r["params"]:
        lines.append(f"{n:>4} ← {name} {shape}")
    lines.append(f"{r['total']:>4} = সব parameter-এর যোগফল")
    for name, values in r["buffers"].items():
        lines.append(f"buffer {name} (গোনার বাইরে): {values}")
    lines.append(f"W আর b-এর আকার → {r['weight_shape']} {r['bias_shape']}")
    lines.append(f"max |lin(z) − (z Wᵀ + b)| = {r['linear_max_diff']}")
    lines.append(f"সবচেয়ে বড় |W| {r['max_abs_weight']}, সীমা 1/√in = {r['init_bound']}")
    return "\n".join(lines)


def linear_stepper_example() -> dict:
    """অংশ ৩-এর ছোট উদাহরণ: nn.Linear(3, 2)-এ হাতে বসানো weight আর bias।

    x = [1, 2, 3], W = [[0.5, −1, 2], [1, 0, −0.5]], b = [0.1, −0.2]:
    সারি · x = 0.5 − 2.0 + 6.0 = 4.5 আর 1.0 + 0 − 1.5 = −0.5; bias যোগে y = [4.6, −0.7]।
    ফেরত dict: ``x``, ``W``, ``b``, ``dots`` (সারি · x), ``y_layer`` (nn.Linear-এর output),
    ``y_by_hand`` (x Wᵀ + b), ``n_params`` (২ × ৩ + ২ = ৮)।
    """
    from torch import nn

    x = torch.tensor([[1.0, 2.0, 3.0]])
    W = torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
    b = torch.tensor([0.1, -0.2])
    lin = nn.Linear(3, 2)
    with torch.no_grad():
        lin.weight.copy_(W)
        lin.bias.copy_(b)
        y_layer = lin(x)
    return {
        "x": x[0].tolist(),
        "W": W.tolist(),
        "b": b.tolist(),
        "dots": (x @ W.T)[0].tolist(),
        "y_layer": [round(v, 4) for v in y_layer[0].tolist()],
        "y_by_hand": [round(v, 4) for v in (x @ W.T + b)[0].tolist()],
        "n_params": sum(p.numel() for p in lin.parameters()),
    }
