"""পর্ব ০৭ · পরীক্ষা ১ · tensor বানানো

চালান:  python 01_making.py

list থেকে tensor আর তার shape, dtype, device; arange আর linspace; একই seed-এর generator দুবার;
NumPy-র array বদলালে কোন tensor বদলায় (torch.tensor, from_numpy, as_tensor); .numpy() কখন রাজি নয়।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_making, making_demo


def main() -> dict:
    result = making_demo()
    print(format_making(result))
    return result


if __name__ == "__main__":
    main()
