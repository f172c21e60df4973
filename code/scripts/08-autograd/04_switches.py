"""পর্ব ০৮ · পরীক্ষা ৪ · autograd বন্ধ করার চার উপায়

চালান:  python 04_switches.py

ডেলিভারি model-এর একই forward চারভাবে: সাধারণ, no_grad, inference_mode, আর প্রথম স্তর
জমানো (requires_grad_(False))। প্রতিটিতে grad_fn, backward-এর জন্য রাখা byte, আর কয়টি
parameter gradient পেল।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import autograd as ag


def main() -> dict:
    result = ag.switches_demo()
    print(ag.format_switches(result))
    return result


if __name__ == "__main__":
    main()
