"""পর্ব ১০-এর ছবি (matplotlib): loss-এর বক্ররেখা আর learning rate-এর তুলনা।

প্রতিটি function একটি ``Figure`` ফেরত দেয়; পর্বের cell ``plt.show()`` দিয়ে দেখায়,
script ``fig.savefig(...)`` দিয়ে ফাইলে লেখে। রং, font আর মাপ কোর্সের এক ধাঁচ থেকে
(``courseplot``; পর্বের kernel-এ আগেই চালু, script-এ এখানে চালু হয়)। ছবির সংখ্যা তিন
significant অঙ্কে গোল করা: চোখে এর চেয়ে সূক্ষ্ম কিছু দেখা যায় না, আর CPU-ভেদে float32-এর
শেষ অঙ্কের নড়াচড়া ছবির ফাইলে পৌঁছায় না।
"""

from __future__ import annotations

import matplotlib.pyplot as plt

__all__ = ["SWEEP_COLORS", "rounded", "plot_train_val", "plot_lr_sweep", "plot_resume"]

#: learning rate-এর তুলনায় ছোট থেকে বড়: ধূসর, নীল, লাল (পর্বের লেখা রং ধরে বলে)
SWEEP_COLORS = ("#7a7a7a", "#1f5fa8", "#b3261e")


def rounded(values, digits: int = 3) -> list:
    return [float(f"{v:.{digits}g}") for v in values]


def _style() -> None:
    try:
        import courseplot
    except ImportError:  # কোর্সের zip-এ courseplot না থাকলেও ছবি আঁকা চলে
        return
    courseplot.use_style()


def _epochs(values):
    return list(range(1, len(values) + 1))


def plot_train_val(history, train_eval=None):
    """training আর validation loss, log স্কেলে; ``train_eval`` দিলে training অংশের loss
    eval mode-এ মাপা তৃতীয় রেখা।"""
    _style()
    fig, ax = plt.subplots()
    ax.plot(_epochs(history.train), rounded(history.train), marker="o", ms=4,
            label="training loss (train mode, epoch-এর গড়)")
    if train_eval is not None:
        ax.plot(_epochs(train_eval), rounded(train_eval), ls="--", label="training অংশ, eval mode-এ")
    ax.plot(_epochs(history.val), rounded(history.val), marker="s", ms=4, label="validation loss")
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("MSE")
    ax.legend(loc="upper right")
    return fig


def plot_lr_sweep(runs: dict):
    """``runs``: learning rate → History। বাঁয়ে training, ডানে validation loss।"""
    _style()
    fig, axes = plt.subplots(1, 2, sharey=True)
    for (lr, hist), color in zip(runs.items(), SWEEP_COLORS):
        label = f"lr = {lr:g}"
        axes[0].plot(_epochs(hist.train), rounded(hist.train), color=color, label=label)
        axes[1].plot(_epochs(hist.val), rounded(hist.val), color=color, label=label)
    for ax, name in zip(axes, ("training loss", "validation loss")):
        ax.set_yscale("log")
        ax.set_xlabel("epoch")
        ax.set_title(name)
    axes[0].set_ylabel("MSE")
    axes[1].legend(loc="upper right")
    return fig


def plot_resume(result: dict, before: int = 3):
    """পর্ব ১০-এর resume পরীক্ষা: না-থামা run, checkpoint থেকে হুবহু resume, আর optimizer বা
    RNG বাদ দিয়ে resume — training loss, থামার আগের ``before``টি epoch থেকে; থামার জায়গায়
    একটি খাড়া রেখা।"""
    from matplotlib.ticker import MaxNLocator

    _style()
    fig, ax = plt.subplots()
    stop, total = result["stop"], result["total"]
    first = stop - before
    epochs = list(range(first + 1, total + 1))
    ax.plot(epochs, rounded(result["straight"].train[first:]), color="#1f5fa8", lw=3, label="না থেমে")
    tail = list(range(stop + 1, total + 1))
    ax.plot(tail, rounded(result["resumed"].train[stop:]), ls="none", marker="o", ms=8,
            mfc="none", mew=2, color="#1f5fa8", label="checkpoint থেকে resume")
    ax.plot(tail, rounded(result["no_opt"].train[stop:]), color="#b3261e", ls="--", lw=2.5, label="optimizer বাদ")
    ax.plot(tail, rounded(result["no_rng"].train[stop:]), color="#7a7a7a", ls=":", lw=3, label="RNG বাদ")
    ax.axvline(stop + 0.5, color="#555555", lw=1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("epoch")
    ax.set_ylabel("training loss")
    ax.legend(loc="upper right", ncol=2)
    return fig
