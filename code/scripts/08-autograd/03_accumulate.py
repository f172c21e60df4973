"""পর্ব ০৮ · পরীক্ষা ৩ · gradient জমে

চালান:  python 03_accumulate.py

একই loss তিনবার নতুন করে হিসাব করে backward, মাঝে মোছা নেই: b.grad প্রতিবার আগেরটির সঙ্গে
যোগ হয়; .grad = None-এর পরে .grad খালি। তারপর একই tensor দুই পথে: এক backward-এ hook চলে
একবার, দুই পথের যোগফল নিয়ে; জমা হয় শুধু backward-এর ডাকগুলোর মাঝে।
"""

import _setup_path  # noqa: F401
import torch
from bazarghar.experiments import autograd as ag


def two_paths() -> dict:
    """w একই হিসাবে দুবার (w * 2 + w * 3): hook দেখে w-এ কী পৌঁছায়, দুটি backward-এ।"""
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    came = []
    w.register_hook(lambda g: came.append(g.tolist()))
    (w * 2 + w * 3).sum().backward()
    print("এক backward: ", came, "| w.grad", w.grad.tolist())
    (w * 2 + w * 3).sum().backward()
    print("দুই backward:", came, "| w.grad", w.grad.tolist())
    return {"came": came, "w_grad": w.grad.tolist()}


def main() -> dict:
    result = ag.accumulate_demo()
    print(ag.format_accumulate(result))
    result["two_paths"] = two_paths()
    return result


if __name__ == "__main__":
    main()
