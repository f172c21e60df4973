"""পর্ব ১০ · পরীক্ষা ৬: optimizer-এর state_dict — state আর param_groups।"""

from __future__ import annotations

import torch

from ..checkpoint import optimizer_state_numel
from ..loop import make_loader, make_loop_model, split_orders, train_epoch


def _one_epoch_optimizer(kind: str):
    split = split_orders()
    model = make_loop_model(split)
    loader = make_loader(split.X_train, split.y_train)
    if kind == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    elif kind == "plain":
        opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    before = opt.state_dict()
    torch.manual_seed(1)
    train_epoch(model, opt, loader)
    return model, opt, before, len(loader)


def optimizer_state_demo() -> dict:
    """SGD (momentum) আর Adam, প্রত্যেকে এক epoch চালিয়ে তাদের state_dict পড়া।"""
    model, sgd, sgd_before, steps = _one_epoch_optimizer("sgd")
    _, adam, adam_before, _ = _one_epoch_optimizer("adam")
    _, plain, _, _ = _one_epoch_optimizer("plain")
    sgd_sd, adam_sd = sgd.state_dict(), adam.state_dict()
    names = [name for name, _ in model.named_parameters()]
    shapes = [tuple(p.shape) for p in model.parameters()]
    n_params = sum(p.numel() for p in model.parameters())
    adam_state0 = adam_sd["state"][0]
    return {
        "top_keys": list(sgd_sd),
        "state_before": (sgd_before["state"], adam_before["state"]),
        "sgd_group": {k: v for k, v in sgd_sd["param_groups"][0].items()},
        "adam_group": {k: v for k, v in adam_sd["param_groups"][0].items()},
        "names": names,
        "shapes": shapes,
        "state_ids": list(sgd_sd["state"]),
        # প্রতিটি id-র খাতায় কোন কোন নাম, state_dict থেকে পড়া
        "sgd_state_keys": [list(sgd_sd["state"][i]) for i in range(len(names))],
        "adam_state_keys": [list(adam_sd["state"][i]) for i in range(len(names))],
        "sgd_state_shapes": [tuple(s["momentum_buffer"].shape) for s in sgd_sd["state"].values()],
        "adam_step": float(adam_state0["step"]),
        "steps_per_epoch": steps,
        "n_params": n_params,
        "sgd_numel": optimizer_state_numel(sgd),
        "adam_numel": optimizer_state_numel(adam),
        "plain_sgd_state": plain.state_dict()["state"],
    }


def format_optimizer_state(r: dict) -> str:
    sg, ag = r["sgd_group"], r["adam_group"]
    lines = [
        f"key: {r['top_keys']} | step-এর আগে state: SGD {r['state_before'][0]}, "
        f"Adam {r['state_before'][1]}",
        f"param_groups[0]: SGD lr={sg['lr']}, momentum={sg['momentum']} | "
        f"Adam lr={ag['lr']}, betas={ag['betas']}",
        "id  নাম               আকার       SGD-এর state        Adam-এর state",
    ]
    for i, (name, shape) in enumerate(zip(r["names"], r["shapes"])):
        sgd, adam = ", ".join(r["sgd_state_keys"][i]), ", ".join(r["adam_state_keys"][i])
        lines.append(f"{i:2d}  {name:16s}  {str(shape):9s}  {sgd:18s}  {adam}")
    return "\n".join(lines)


def format_optimizer_sizes(r: dict) -> str:
    return "\n".join([
        f"এক epoch ({r['steps_per_epoch']} ধাপ) পরে প্রতিটি id-র Adam step-এর মান = {r['adam_step']:g}",
        f"model-এর parameter: {r['n_params']}",
        f"খাতায় মোট কয়টি সংখ্যা, নাম ধরে — SGD: {r['sgd_numel']}",
        f"খাতায় মোট কয়টি সংখ্যা, নাম ধরে — Adam: {r['adam_numel']}",
    ])
