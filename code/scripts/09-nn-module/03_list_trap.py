"""পরীক্ষা ৩ · সাধারণ list-এর ফাঁদ বনাম nn.ModuleList

চালান:  python 03_list_trap.py

একই ৩ → ১৬ → ৮ → ১ stack দুইভাবে: list-এ রাখলে forward চলে কিন্তু parameter ০,
state_dict খালি, আর optimizer ValueError দেয়; ModuleList-এ মোড়ালে ২০৯টি parameter আর ৬টি key।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_list_trap, list_trap_demo


def main() -> list:
    rows = list_trap_demo(sizes=(3, 16, 8, 1), seed=0)
    print(format_list_trap(rows))
    return rows


if __name__ == "__main__":
    main()
