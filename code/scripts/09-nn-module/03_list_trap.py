"""পরীক্ষা ৩ · সাধারণ list-এর ফাঁদ বনাম nn.ModuleList

চালান:  python 03_list_trap.py

একই ৩ → ১৬ → ৮ → ১ stack, স্তর রাখার পাত্র দুই রকম (``LayerStack``-এর ``holder``):
Python-এর list হলে forward চলে, কিন্তু নিবন্ধন-তালিকা ফাঁকা আর optimizer জন্মাতেই আপত্তি তোলে;
nn.ModuleList হলে একই স্তরগুলো নিবন্ধন-তালিকায় ওঠে।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_list_trap, list_trap_demo


def main() -> list:
    rows = list_trap_demo(sizes=(3, 16, 8, 1), seed=0)
    print(format_list_trap(rows))
    return rows


if __name__ == "__main__":
    main()
