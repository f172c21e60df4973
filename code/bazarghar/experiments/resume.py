"""পর্ব ১০ · পরীক্ষা ৮: থেমে আবার শুরু = কখনো না থামা (bit-এ bit), আর কী বাদ দিলে ভাঙে।"""

from __future__ import annotations

from pathlib import Path

import torch

from ..checkpoint import load_checkpoint, save_checkpoint
from ..loop import fit
from .checkpoint_demo import adam_setup

TOTAL_EPOCHS, STOP_EPOCH = 20, 10
#: টেবিলে যে epoch-গুলো ছাপা হয়
SHOWN_EPOCHS = (11, 12, 15, 20)
#: আবার শুরুর সময় কাঠামো বানানোর seed, ইচ্ছা করে আসলগুলো (0, 0) থেকে আলাদা
FRESH_MODEL_SEED, FRESH_LOADER_SEED = 123, 999


def _continue_from(path: Path, *, optimizer: bool, rng: bool):
    """অন্য seed-এ সব নতুন বানিয়ে checkpoint থেকে বাকি epoch চালায়।"""
    split, model, opt, loader = adam_setup(model_seed=FRESH_MODEL_SEED, loader_seed=FRESH_LOADER_SEED)
    done, history = load_checkpoint(path, model, opt, loader, optimizer=optimizer, rng=rng)
    fit(model, opt, loader, split, TOTAL_EPOCHS - done, history=history)
    return model, history


def resumes_exactly(epochs: int = 2, seeds=(5, 6)) -> bool:
    """যেকোনো training কোডের জন্য ছোট পরীক্ষা: এক epoch, checkpoint, তারপর দুটি আলাদা
    seed-এর কাঠামোয় একই checkpoint থেকে ``epochs`` epoch। কোনো অবস্থা checkpoint-এ বাদ
    পড়লে তা আসে কাঠামোর seed থেকে, আর দুই run-এর loss আলাদা হয়।"""
    import tempfile

    split, model, opt, loader = adam_setup()
    history = fit(model, opt, loader, split, 1)
    with tempfile.TemporaryDirectory() as workdir:
        path = save_checkpoint(Path(workdir) / "c.pt", model, opt, 1, loader, history)
        runs = []
        for seed in seeds:
            split, model, opt, loader = adam_setup(model_seed=seed, loader_seed=seed)
            _, h = load_checkpoint(path, model, opt, loader)
            runs.append(torch.tensor(fit(model, opt, loader, split, epochs, history=h).train))
    return torch.equal(*runs)


def _max_diff(a: list, b: list) -> float:
    return max(abs(x - y) for x, y in zip(a, b))


def _count_lower(a: list, b: list) -> int:
    """কয়টি epoch-এ ``a``-এর loss ``b``-এর চেয়ে কম।"""
    return sum(x < y for x, y in zip(a, b))


def resume_demo(workdir) -> dict:
    workdir = Path(workdir)
    # ১. কখনো না থেমে TOTAL_EPOCHS
    split, model, opt, loader = adam_setup()
    straight = fit(model, opt, loader, split, TOTAL_EPOCHS)
    straight_params = [p.detach().clone() for p in model.parameters()]
    # ২. STOP_EPOCH-এ থেমে checkpoint, তারপর process "বন্ধ"
    split, model, opt, loader = adam_setup()
    first = fit(model, opt, loader, split, STOP_EPOCH)
    path = save_checkpoint(workdir / "ckpt_epoch10.pt", model, opt, STOP_EPOCH, loader, first)
    del model, opt, loader
    # ৩. তিনভাবে আবার শুরু
    resumed_model, resumed = _continue_from(path, optimizer=True, rng=True)
    _, no_opt = _continue_from(path, optimizer=False, rng=True)
    _, no_rng = _continue_from(path, optimizer=True, rng=False)

    t = lambda h: torch.tensor(h.train + h.val)  # noqa: E731 — দুই তালিকা এক tensor-এ
    tail = slice(STOP_EPOCH, TOTAL_EPOCHS)
    return {
        "total": TOTAL_EPOCHS,
        "fresh_seeds": (FRESH_MODEL_SEED, FRESH_LOADER_SEED),
        "stop": STOP_EPOCH,
        "straight": straight,
        "resumed": resumed,
        "no_opt": no_opt,
        "no_rng": no_rng,
        "losses_equal": torch.equal(t(straight), t(resumed)),
        "params_equal": all(torch.equal(a, b) for a, b in zip(straight_params, resumed_model.parameters())),
        "no_opt_equal": torch.equal(t(straight), t(no_opt)),
        "no_rng_equal": torch.equal(t(straight), t(no_rng)),
        "no_opt_max_diff": _max_diff(straight.train[tail], no_opt.train[tail]),
        "no_rng_max_diff": _max_diff(straight.train[tail], no_rng.train[tail]),
        "no_opt_lower_train": _count_lower(no_opt.train[tail], straight.train[tail]),
        "no_opt_lower_val": _count_lower(no_opt.val[tail], straight.val[tail]),
        "no_rng_lower_val": _count_lower(no_rng.val[tail], straight.val[tail]),
        "no_opt_first": no_opt.train[STOP_EPOCH],
        "no_rng_first": no_rng.train[STOP_EPOCH],
        "straight_first": straight.train[STOP_EPOCH],
    }


def format_resume(r: dict) -> str:
    lines = ["epoch   না থেমে    resume     optimizer বাদ   RNG বাদ   (training loss)"]
    for e in SHOWN_EPOCHS:
        vals = [r[k].train[e - 1] for k in ("straight", "resumed", "no_opt", "no_rng")]
        lines.append(f"{e:5d}   {vals[0]:8.4g}   {vals[1]:8.4g}   {vals[2]:13.4g}   {vals[3]:7.4g}")
    lines += [
        f"torch.equal(না থেমে, resume): loss {r['losses_equal']}, parameter {r['params_equal']}",
        f"সর্বোচ্চ পার্থক্য: optimizer বাদ {r['no_opt_max_diff']:.3g} (equal {r['no_opt_equal']}), "
        f"RNG বাদ {r['no_rng_max_diff']:.3g} (equal {r['no_rng_equal']})",
        f"না-থামা run-এর চেয়ে কম loss, {r['total'] - r['stop']}টি epoch-এর কয়টিতে: "
        f"optimizer বাদ {r['no_opt_lower_train']} (val {r['no_opt_lower_val']}), "
        f"RNG বাদ val {r['no_rng_lower_val']}",
    ]
    return "\n".join(lines)


def _scheduled(model_seed: int = 0, loader_seed: int = 0):
    split, model, opt, loader = adam_setup(model_seed=model_seed, loader_seed=loader_seed)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=TOTAL_EPOCHS)
    return split, model, opt, loader, sched


def _fit_scheduled(model, opt, loader, split, sched, epochs, history=None):
    """প্রতিটি epoch-এর শেষে ``sched.step()``; ফেরত ইতিহাস আর প্রতি epoch-এর lr।"""
    lrs: list = []

    def after_epoch(_epoch, _history):
        lrs.append(opt.param_groups[0]["lr"])
        sched.step()

    return fit(model, opt, loader, split, epochs, history=history, after_epoch=after_epoch), lrs


def scheduler_resume_demo(workdir) -> dict:
    """CosineAnnealingLR-সহ Adam: না থেমে, আর STOP_EPOCH-এ থেমে scheduler-সহ ও scheduler
    ছাড়া resume। scheduler-এর state checkpoint-এ না থাকলে নতুন scheduler শুরু থেকে গোনে।"""
    workdir = Path(workdir)
    split, model, opt, loader, sched = _scheduled()
    straight, straight_lrs = _fit_scheduled(model, opt, loader, split, sched, TOTAL_EPOCHS)
    split, model, opt, loader, sched = _scheduled()
    first, first_lrs = _fit_scheduled(model, opt, loader, split, sched, STOP_EPOCH)
    path = save_checkpoint(workdir / "ckpt_sched.pt", model, opt, STOP_EPOCH, loader, first, sched)
    runs = {}
    for with_sched in (True, False):
        split, model, opt, loader, sched = _scheduled(FRESH_MODEL_SEED, FRESH_LOADER_SEED)
        done, history = load_checkpoint(path, model, opt, loader,
                                        scheduler=sched if with_sched else None)
        runs[with_sched] = _fit_scheduled(model, opt, loader, split, sched, TOTAL_EPOCHS - done,
                                          history=history)
    t = lambda h: torch.tensor(h.train + h.val)  # noqa: E731
    return {
        "keys": list(torch.load(path, weights_only=True)),
        "sched_state": torch.load(path, weights_only=True)["scheduler"],
        "straight_lrs": straight_lrs,
        "resumed_lrs": first_lrs + runs[True][1],
        "no_sched_lrs": first_lrs + runs[False][1],
        "equal": torch.equal(t(straight), t(runs[True][0])),
        "no_sched_equal": torch.equal(t(straight), t(runs[False][0])),
    }


def format_scheduler_resume(r: dict) -> str:
    s = r["sched_state"]
    lines = [f"checkpoint-এর key: {r['keys']}",
             f"scheduler-এর state: last_epoch {s['last_epoch']}, T_max {s['T_max']}, "
             f"base_lrs {s['base_lrs']}",
             "epoch   lr: না থেমে    resume     scheduler বাদ"]
    for e in (STOP_EPOCH, STOP_EPOCH + 1, STOP_EPOCH + 5, TOTAL_EPOCHS):
        lines.append(f"{e:5d}   {r['straight_lrs'][e - 1]:11.3e}   {r['resumed_lrs'][e - 1]:9.3e}"
                     f"   {r['no_sched_lrs'][e - 1]:9.3e}")
    lines += [f"torch.equal(না থেমে, resume): {r['equal']}",
              f"scheduler বাদ: equal {r['no_sched_equal']}"]
    return "\n".join(lines)
