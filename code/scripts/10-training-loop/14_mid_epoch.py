"""পর্ব ১০ · পরীক্ষা ১৪ · epoch-এর মাঝখানে checkpoint

চালান:  python 14_mid_epoch.py

৩ epoch না থেমে, আর epoch ২-এর ৪র্থ ধাপের পরে থেমে নতুন seed-এর কাঠামোয় resume: epoch শুরুর
generator-এর অবস্থা থেকে একই ক্রম বানিয়ে হয়ে যাওয়া ধাপ পেরোলে প্রতিটি ধাপের loss torch.equal-এ
এক; থামার মুহূর্তের generator দিয়ে নয়।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_mid_epoch, mid_epoch_demo


def main() -> dict:
    result = mid_epoch_demo()
    print(format_mid_epoch(result))
    return result


if __name__ == "__main__":
    main()
