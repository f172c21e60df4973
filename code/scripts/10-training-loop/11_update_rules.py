"""পর্ব ১০ · পরীক্ষা ১১ · optimizer-এর নিয়ম হাতে

চালান:  python 11_update_rules.py

SGD-momentum আর Adam (bias correction-সহ) NumPy-তে, পাঁচ ধাপ, float64 — প্রতিটি ধাপ
torch.optim-এর step()-এর সঙ্গে মেলানো।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_update_rules, update_rules_demo


def main() -> dict:
    result = update_rules_demo()
    print(format_update_rules(result))
    return result


if __name__ == "__main__":
    main()
