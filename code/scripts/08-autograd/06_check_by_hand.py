"""পর্ব ০৮ · পরীক্ষা ৬ · হাতে মিলিয়ে দেখা

চালান:  python 06_check_by_hand.py

ডেলিভারি model-এর প্রতিটি parameter-এর gradient: autograd বনাম NumPy-তে হাতে লেখা backward
(float64); তারপর নিজের function-এ gradcheck, float64-এ আর float32-এ।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import autograd_check as check


def main() -> dict:
    numpy_check, gradcheck = check.numpy_check_demo(), check.gradcheck_demo()
    print(check.format_numpy_check(numpy_check))
    print(check.format_gradcheck(gradcheck))
    return {"numpy": numpy_check, "gradcheck": gradcheck}


if __name__ == "__main__":
    main()
