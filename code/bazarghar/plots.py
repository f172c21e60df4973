"""পর্ব ১০-এর ছবি (matplotlib): loss-এর বক্ররেখা আর learning rate-এর তুলনা।

প্রতিটি function একটি ``Figure`` ফেরত দেয়; পর্বের cell ``plt.show()`` দিয়ে দেখায়,
script ``fig.savefig(...)`` দিয়ে ফাইলে লেখে। বাংলা লেখার জন্য Noto Sans Bengali,
না পেলে DejaVu Sans।
"""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt

__all__ = ["use_bangla_font", "plot_train_val", "plot_lr_sweep"]

TRAIN_COLOR, VAL_COLOR, EVAL_TRAIN_COLOR = "#1f6fb2", "#d9601a", "#5b8f29"


def use_bangla_font() -> None:
    matplotlib.rcParams["font.family"] = ["Noto Sans Bengali", "DejaVu Sans"]
    matplotlib.rcParams["axes.unicode_minus"] = False


def _epochs(values):
    return list(range(1, len(values) + 1))


def plot_train_val(history, train_eval=None, title: str = ""):
    """training আর validation loss, log স্কেলে; ``train_eval`` দিলে training অংশের loss
    eval mode-এ মাপা তৃতীয় রেখা।"""
    use_bangla_font()
    fig, ax = plt.subplots(figsize=(7.5, 3.6), dpi=110)
    ax.plot(_epochs(history.train), history.train, color=TRAIN_COLOR, marker="o", ms=3,
            label="training loss (train mode, epoch-এর গড়)")
    if train_eval is not None:
        ax.plot(_epochs(train_eval), train_eval, color=EVAL_TRAIN_COLOR, ls="--",
                label="training অংশ, eval mode-এ মাপা")
    ax.plot(_epochs(history.val), history.val, color=VAL_COLOR, marker="s", ms=3,
            label="validation loss (eval mode)")
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("MSE")
    ax.set_title(title or "MSE (মিনিট²), log স্কেলে", loc="left", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig


def plot_lr_sweep(runs: dict):
    """``runs``: learning rate → History। বাঁয়ে training, ডানে validation loss।"""
    use_bangla_font()
    fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.4), dpi=110, sharey=True)
    colors = ["#7a7a7a", "#1f6fb2", "#c0392b", "#8e44ad"]
    for (lr, hist), color in zip(runs.items(), colors):
        label = f"lr = {lr:g}"
        axes[0].plot(_epochs(hist.train), hist.train, color=color, label=label)
        axes[1].plot(_epochs(hist.val), hist.val, color=color, label=label)
    for ax, name in zip(axes, ("training loss", "validation loss")):
        ax.set_yscale("log")
        ax.set_xlabel("epoch")
        ax.set_title(name)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("MSE (log)")
    axes[1].legend(frameon=False)
    fig.tight_layout()
    return fig
