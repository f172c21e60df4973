"""পর্ব ০৮ · পরীক্ষা ৫ · ছয়টি ফাঁদ

চালান:  python 05_traps.py

প্রতিটি ফাঁদ আসল error বা আসল ভুল সংখ্যা হিসেবে: leaf-এ in-place, রাখা tensor-এ in-place,
.data, শূন্যে sqrt আর abs, int tensor, আর মাঝপথে Python সংখ্যা (গল্পের বাগ); শেষে প্রথম
backward-এর পরের যাচাই, আর ফাঁদ ১-এর উল্টো পিঠ: gradient না চাওয়া buffer-এ index ধরে লেখা।
"""

import _setup_path  # noqa: F401
import torch
from bazarghar.experiments import autograd as ag
from bazarghar.experiments import autograd_traps as traps


def buffer() -> dict:
    """ফাঁকা buffer-এ w থেকে আসা মান লেখা: buffer আর leaf নয়, grad_fn CopySlices, gradient w-এ।"""
    w, _, _ = ag.start_tensors()
    out = torch.zeros(3)
    print("আগে:", out.is_leaf, out.requires_grad)
    out[0] = w[0] * 2
    out[1:] = w[1:] ** 2
    print("পরে:", out.is_leaf, out.requires_grad, type(out.grad_fn).__name__)
    out.sum().backward()
    print("w.grad:", w.grad)
    return {"grad_fn": type(out.grad_fn).__name__, "w_grad": w.grad.tolist()}


def main() -> dict:
    result = traps.traps_demo()
    print(traps.format_traps(result))
    audit = traps.audit_demo()
    print(traps.format_audit(audit))
    return {"traps": result, "audit": audit, "buffer": buffer()}


if __name__ == "__main__":
    main()
