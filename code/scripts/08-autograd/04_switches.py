"""পর্ব ০৮ · পরীক্ষা ৪ · autograd বন্ধ করার চার উপায়

চালান:  python 04_switches.py

ডেলিভারি model-এর একই forward চারভাবে: সাধারণ, no_grad, inference_mode, আর প্রথম স্তর
স্থির করা (requires_grad_(False))। প্রতিটিতে grad_fn, backward-এর জন্য রাখা byte, আর কয়টি
parameter gradient পেল। শেষে কপির তিন পথ: detach (একই memory), clone (খাতায় ওঠে),
detach().clone() (আলাদা, খাতা ছাড়া), আর torch.tensor(t)-এর সতর্কবার্তা।
"""

import _setup_path  # noqa: F401
import warnings

import torch
from bazarghar.experiments import autograd as ag


def copies() -> dict:
    w, _, _ = ag.start_tensors()
    shared, c, own = w.detach(), w.clone(), w.detach().clone()
    own[0] = 100.0   # নিজের memory: w অক্ষত
    shared[0] = 9.0  # ভাগের memory: w-ও বদলায়
    print("w:", w.tolist(), "| own:", own.tolist())
    print("clone:", c.grad_fn.name(), "| detach().clone():", own.grad_fn)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        torch.tensor(w)
    print(said[0].category.__name__ + ":", str(said[0].message).split(" or ")[0])
    return {"w": w.tolist(), "own": own.tolist(), "clone": c.grad_fn.name()}


def main() -> dict:
    result = ag.switches_demo()
    print(ag.format_switches(result))
    result["copies"] = copies()
    return result


if __name__ == "__main__":
    main()
