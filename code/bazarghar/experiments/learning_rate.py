"""পর্ব ১০ · পরীক্ষা ৫: একই model, তিনটি learning rate।"""

from __future__ import annotations

import torch

from ..loop import History, evaluate, make_loader, make_loop_model, split_orders, train_epoch

#: খুব ছোট, ঠিকঠাক, খুব বড় (SGD, momentum 0.9)
SWEEP_LRS = (1e-5, 1e-3, 1e-2)
#: মৃত unit-এর হিসাব প্রথম এতগুলো ধাপে, প্রতিটি ধাপের পরে
TRACE_STEPS = 30


def dead_units(model, X: torch.Tensor) -> int:
    """দ্বিতীয় hidden স্তরের (ReLU-এর পরে) কয়টি unit ``X``-এর কোনো অর্ডারেই শূন্যের ওপরে ওঠে না।
    এমন unit-এর gradient সব উদাহরণে শূন্য: সে আর শেখে না।"""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        hidden = model.hidden((X - model.x_mean) / model.x_std)
    model.train(was_training)
    return int((hidden.amax(0) <= 0).sum())


def lr_sweep_demo(lrs=SWEEP_LRS, epochs: int = 30, momentum: float = 0.9) -> dict:
    """প্রতিটি lr-এ একই শুরু (model seed 0, loader seed 0, Dropout seed 1)। ফেরত lr → History,
    আর প্রথম ``TRACE_STEPS``টি ধাপের প্রতিটির পরে training অংশে মৃত unit-এর সংখ্যা।"""
    runs, pred_std, dead, traces = {}, {}, {}, {}
    split = split_orders()
    for lr in lrs:
        model = make_loop_model(split)
        loader = make_loader(split.X_train, split.y_train)
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
        torch.manual_seed(1)
        trace = [dead_units(model, split.X_train)]

        def after_step(_opt, _args, _kwargs, model=model, trace=trace):  # প্রতিটি step()-এর পরে
            if len(trace) <= TRACE_STEPS:
                trace.append(dead_units(model, split.X_train))

        hook = opt.register_step_post_hook(after_step)
        history = History()
        for _ in range(epochs):
            history.train.append(train_epoch(model, opt, loader))
            history.val.append(evaluate(model, split.X_val, split.y_val))
        hook.remove()
        runs[lr], traces[lr] = history, trace
        with torch.no_grad():  # শেষে model eval mode-এ
            pred_std[lr] = model(split.X_val).std().item()
        dead[lr] = dead_units(model, split.X_train)
    return {"runs": runs, "epochs": epochs, "momentum": momentum, "pred_std": pred_std,
            "dead_units": dead, "dead_trace": traces,
            "y_val_var": split.y_val.var(unbiased=False).item(),
            "y_val_std": split.y_val.std().item(), "n_hidden": model.head.in_features}


def first_step_with(trace: list, count: int) -> int | None:
    """কোন ধাপের পরে মৃত unit প্রথম ``count``টি হলো (না হলে None)।"""
    return next((i for i, d in enumerate(trace) if d >= count), None)


def format_lr_sweep(r: dict) -> str:
    lines = ["lr        epoch ১০-এ val   শেষ train   শেষ val   prediction-এর std   মৃত unit"]
    for lr, h in r["runs"].items():
        lines.append(f"{lr:<8g}  {h.val[9]:12.4g}   {h.train[-1]:9.4g}   {h.val[-1]:7.4g}   "
                     f"{r['pred_std'][lr]:17.3g}   {r['dead_units'][lr]:2d}/{r['n_hidden']}")
    lines.append(f"validation-এর আসল সময়ের std: {r['y_val_std']:.3g}, variance: {r['y_val_var']:.4g}")
    lines.append("মৃত unit (training অংশে), ধাপ ০ (শুরু), ১, ২, … " f"{TRACE_STEPS}-এর পরে:")
    for lr, trace in r["dead_trace"].items():
        lines.append(f"{lr:<8g}  " + "".join(str(d) if d < 10 else "+" for d in trace))
    return "\n".join(lines)
