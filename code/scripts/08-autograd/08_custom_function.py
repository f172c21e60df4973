"""পর্ব ০৮ · পরীক্ষা ৮ · নিজের backward: RoundMinutes

চালান:  python 08_custom_function.py

পূর্ণ মিনিটে গোল করা সময়ে loss: torch.round-এর gradient শূন্য, RoundMinutes (straight-through,
০ থেকে ১৮০ মিনিটের ভেতরে) gradient ফেরায়; round ছাড়া যা আসত তার সঙ্গে তুলনা।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import autograd_check as check


def main() -> dict:
    result = check.round_demo()
    print(check.format_round(result))
    return result


if __name__ == "__main__":
    main()
