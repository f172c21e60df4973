"""পর্ব ০৮ · পরীক্ষা ৩ · gradient জমে

চালান:  python 03_accumulate.py

একই loss তিনবার নতুন করে হিসাব করে backward, মাঝে মোছা নেই: b.grad প্রতিবার আগেরটির সঙ্গে
যোগ হয়; .grad = None-এর পরে খাতা খালি।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import autograd as ag


def main() -> dict:
    result = ag.accumulate_demo()
    print(ag.format_accumulate(result))
    return result


if __name__ == "__main__":
    main()
