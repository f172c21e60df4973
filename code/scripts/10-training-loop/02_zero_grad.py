"""পর্ব ১০ · পরীক্ষা ২ · zero_grad ভুলে গেলে

চালান:  python 02_zero_grad.py

একই batch-এ তিনবার backward: gradient ১, ২, ৩ গুণ। তারপর মূল training-এর প্রথম তিন
epoch zero_grad সহ আর ছাড়া: প্রতি ধাপের loss আর head.bias-এর gradient।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_accumulate, format_forgotten, zero_grad_demo


def main() -> dict:
    result = zero_grad_demo()
    print(format_accumulate(result))
    print(format_forgotten(result))
    return result


if __name__ == "__main__":
    main()
