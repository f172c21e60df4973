"""পর্ব ১০ · পরীক্ষা ১৪: epoch-এর মাঝখানে checkpoint, আর হুবহু resume।

epoch-এর শেষের checkpoint-এ loader-এর generator-এর যে অবস্থা থাকে, তা পরের epoch-এর ক্রম দেয়।
মাঝখানে থামলে তা চলবে না: ``iter(loader)`` বানানোর সময়েই এই epoch-এর পুরো ক্রম generator থেকে
টানা হয়ে গেছে। তাই রাখতে হয় epoch শুরুর অবস্থা (iter বানানোর আগে) আর কয়টি ধাপ হয়ে গেছে;
resume-এ সেই অবস্থা বসিয়ে একই ক্রম আবার বানানো, হয়ে যাওয়া ধাপগুলো পেরিয়ে যাওয়া, তারপর
global RNG (Dropout-এর mask) বসানো।
"""

from __future__ import annotations

from itertools import islice

import torch

from ..loop import train_step
from .checkpoint_demo import adam_setup
from .resume import FRESH_LOADER_SEED, FRESH_MODEL_SEED

__all__ = ["MID_EPOCHS", "MID_STOP", "run_steps", "mid_epoch_checkpoint", "resume_mid_epoch", "mid_epoch_demo",
           "format_mid_epoch"]

#: মোট epoch, আর কোথায় থামা: epoch ২-এর ৪র্থ ধাপের পরে
MID_EPOCHS = 3
MID_STOP = (2, 4)


def mid_epoch_checkpoint(model, opt, epoch: int, step: int, epoch_start: torch.Tensor,
                         loader) -> dict:
    """epoch-এর মাঝের checkpoint: epoch আর তার ভেতরে কয়টি ধাপ শেষ, আর loader-এর generator-এর
    দুটি অবস্থা — epoch-এর শুরুর (resume-এর জন্য) আর এখনকার (ভুল পথ দেখানোর জন্য)।"""
    return {
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "epoch": epoch,
        "step": step,
        "rng": {"torch": torch.get_rng_state(),
                "loader_epoch_start": epoch_start,
                "loader_now": loader.generator.get_state()},
    }


def run_steps(model, opt, loader, epochs: int, *, first_epoch: int = 1, batches=None, done: int = 0,
        stop=None):
    """epoch ধরে ধাপ চালায়, প্রতিটি ধাপের loss ফেরত দেয়। ``batches`` দিলে প্রথম epoch-এর বাকি
    ধাপ সেখান থেকে (resume)। ``stop=(epoch, step)``-এ থেমে checkpoint-ও ফেরত দেয়।"""
    losses, epoch_start = [], None
    for epoch in range(first_epoch, epochs + 1):
        model.train()
        if batches is None:
            epoch_start = loader.generator.get_state()  # iter-এর আগে: এই epoch-এর ক্রমের উৎস
            batches, done = iter(loader), 0
        for step, (xb, yb) in enumerate(batches, start=done + 1):
            losses.append(train_step(model, opt, xb, yb).item())
            if stop == (epoch, step):
                return losses, mid_epoch_checkpoint(model, opt, epoch, step, epoch_start, loader)
        batches = None
    return losses, None


def resume_mid_epoch(ckpt: dict, model, opt, loader, epochs: int, *, loader_state: str =
                     "loader_epoch_start"):
    """checkpoint বসিয়ে বাকিটা চালায়। ``loader_state="loader_now"`` হলো ভুল পথ: থামার মুহূর্তের
    generator, যা এই epoch-এর ক্রম আর দিতে পারে না।"""
    model.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["optimizer"])
    loader.generator.set_state(ckpt["rng"][loader_state])
    batches = iter(loader)                                # একই ক্রম আবার
    for _ in islice(batches, ckpt["step"]):              # হয়ে যাওয়া ধাপ পেরোনো
        pass
    torch.set_rng_state(ckpt["rng"]["torch"])            # সবশেষে: Dropout-এর mask
    losses, _ = run_steps(model, opt, loader, epochs, first_epoch=ckpt["epoch"], batches=batches,
                    done=ckpt["step"])
    return losses


def mid_epoch_demo() -> dict:
    """না থেমে MID_EPOCHS epoch; আর MID_STOP-এ থেমে অন্য seed-এর কাঠামোয় resume — ঠিক পথে
    (epoch শুরুর generator) আর ভুল পথে (থামার মুহূর্তের generator)।"""
    _, model, opt, loader = adam_setup()
    straight, _ = run_steps(model, opt, loader, MID_EPOCHS)
    straight_params = [p.detach().clone() for p in model.parameters()]
    steps_per_epoch = len(loader)

    _, model, opt, loader = adam_setup()
    first, ckpt = run_steps(model, opt, loader, MID_EPOCHS, stop=MID_STOP)
    runs = {}
    for state in ("loader_epoch_start", "loader_now"):
        _, fresh, fresh_opt, fresh_loader = adam_setup(model_seed=FRESH_MODEL_SEED,
                                                       loader_seed=FRESH_LOADER_SEED)
        losses = resume_mid_epoch(ckpt, fresh, fresh_opt, fresh_loader, MID_EPOCHS,
                                        loader_state=state)
        runs[state] = (first + losses, fresh)

    right, wrong = runs["loader_epoch_start"], runs["loader_now"]
    stop_index = (MID_STOP[0] - 1) * steps_per_epoch + MID_STOP[1]
    return {
        "epochs": MID_EPOCHS,
        "stop": MID_STOP,
        "steps_per_epoch": steps_per_epoch,
        "stop_index": stop_index,
        "n_steps": len(straight),
        "straight": straight,
        "resumed": right[0],
        "naive": wrong[0],
        "equal": torch.equal(torch.tensor(straight), torch.tensor(right[0])),
        "params_equal": all(torch.equal(a, b) for a, b in zip(straight_params, right[1].parameters())),
        "naive_equal": torch.equal(torch.tensor(straight), torch.tensor(wrong[0])),
        "naive_first_diff": next(i for i, (a, b) in enumerate(zip(straight, wrong[0])) if a != b),
        "generator_moved": not torch.equal(ckpt["rng"]["loader_epoch_start"],
                                           ckpt["rng"]["loader_now"]),
        "keys": list(ckpt),
    }


def format_mid_epoch(r: dict) -> str:
    e, s = r["stop"]
    k = r["stop_index"]
    lines = [f"checkpoint-এর key: {r['keys']}",
             f"থামা: epoch {e}-এর ধাপ {s}-এর পরে (মোট {k}/{r['n_steps']}); "
             f"generator এগিয়ে গেছে: {r['generator_moved']}",
             "ধাপ   না থেমে   epoch শুরুর gen   থামার মুহূর্তের gen"]
    for i in (k, k + 1, r["n_steps"] - 1):
        lines.append(f"{i + 1:3d}   {r['straight'][i]:7.4g}   {r['resumed'][i]:15.4g}   "
                     f"{r['naive'][i]:19.4g}")
    lines += [f"torch.equal(না থেমে, resume): loss {r['equal']}, parameter {r['params_equal']}",
              f"থামার মুহূর্তের generator দিয়ে: equal {r['naive_equal']}"]
    return "\n".join(lines)
