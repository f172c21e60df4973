"""পর্ব ১০-এর checkpoint: model, optimizer, epoch, RNG-এর অবস্থা আর loss-এর ইতিহাস এক dict-এ।

dict-এর সব মান tensor, সংখ্যা, list বা dict: তাই ``torch.load(path, weights_only=True)``
কোনো বাড়তি অনুমতি ছাড়াই খোলে।
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn
from torch.utils.data import DataLoader

from .loop import History

__all__ = [
    "CHECKPOINT_KEYS",
    "capture_rng",
    "restore_rng",
    "make_checkpoint",
    "save_checkpoint",
    "load_checkpoint",
    "optimizer_state_numel",
    "numpy_rng_to_plain",
    "numpy_rng_from_plain",
]

CHECKPOINT_KEYS = ("model", "optimizer", "epoch", "rng", "history")


def capture_rng(loader: DataLoader) -> dict:
    """দুটি RNG: global (Dropout-এর mask) আর loader-এর generator (shuffle-এর ক্রম)।"""
    return {"torch": torch.get_rng_state(), "loader": loader.generator.get_state()}


def restore_rng(state: dict, loader: DataLoader) -> None:
    torch.set_rng_state(state["torch"])
    loader.generator.set_state(state["loader"])


def numpy_rng_to_plain(state: tuple) -> dict:
    """``np.random.get_state()``-এর tuple-এ একটি NumPy array আছে, যা ``weights_only=True``
    খোলে না; তাই array-টি tensor-এ, বাকিটা সাধারণ সংখ্যায়।"""
    name, keys, pos, has_gauss, cached = state
    return {"name": name, "keys": torch.from_numpy(keys.astype("int64")), "pos": int(pos),
            "has_gauss": int(has_gauss), "cached": float(cached)}


def numpy_rng_from_plain(plain: dict) -> tuple:
    """``numpy_rng_to_plain``-এর উল্টো: ``np.random.set_state``-এর tuple।"""
    keys = plain["keys"].numpy().astype("uint32")
    return (plain["name"], keys, plain["pos"], plain["has_gauss"], plain["cached"])


def make_checkpoint(model: nn.Module, opt: torch.optim.Optimizer, epoch: int,
                    loader: DataLoader, history: History, scheduler=None) -> dict:
    """আবার শুরু করতে যা যা লাগে, সব এক dict-এ; learning rate scheduler থাকলে তার
    state_dict-ও (key ``"scheduler"``)।"""
    ckpt = {
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "epoch": epoch,
        "rng": capture_rng(loader),
        "history": history.as_dict(),
    }
    if scheduler is not None:
        ckpt["scheduler"] = scheduler.state_dict()
    return ckpt


def save_checkpoint(path: str | Path, model: nn.Module, opt: torch.optim.Optimizer, epoch: int,
                    loader: DataLoader, history: History, scheduler=None) -> Path:
    """checkpoint লিখে পথ ফেরত দেয়; আগে পাশের একটি ফাইলে লিখে তারপর নাম বদল, যাতে
    লেখার মাঝে process থামলেও আগের checkpoint অক্ষত থাকে।"""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(make_checkpoint(model, opt, epoch, loader, history, scheduler), tmp)
    tmp.replace(path)
    return path


def load_checkpoint(path: str | Path, model: nn.Module, opt: torch.optim.Optimizer,
                    loader: DataLoader, *, optimizer: bool = True, rng: bool = True,
                    scheduler=None) -> tuple[int, History]:
    """checkpoint পড়ে model-এ (সবসময়), optimizer-এ আর RNG-এ (চাইলে) বসায়।
    ``optimizer=False`` বা ``rng=False`` দিয়ে দেখা যায় কোনটি বাদ দিলে কী ভাঙে।
    ফেরত: শেষ হওয়া epoch আর এতদিনের History।"""
    ckpt = torch.load(Path(path), weights_only=True)
    model.load_state_dict(ckpt["model"])
    if optimizer:
        opt.load_state_dict(ckpt["optimizer"])
    if scheduler is not None:  # optimizer-এর পরে: scheduler optimizer-এর lr পড়ে আর লেখে
        scheduler.load_state_dict(ckpt["scheduler"])
    if rng:
        restore_rng(ckpt["rng"], loader)
    history = History(list(ckpt["history"]["train"]), list(ckpt["history"]["val"]))
    return ckpt["epoch"], history


def optimizer_state_numel(opt: torch.optim.Optimizer) -> dict:
    """optimizer-এর state-এ প্রতিটি নামের (যেমন ``exp_avg``) মোট কয়টি সংখ্যা।"""
    sizes: dict = {}
    for per_param in opt.state_dict()["state"].values():
        for name, value in per_param.items():
            n = value.numel() if torch.is_tensor(value) else 1
            sizes[name] = sizes.get(name, 0) + n
    return sizes
