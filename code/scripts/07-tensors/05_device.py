"""পর্ব ০৭ · পরীক্ষা ৫ · device

চালান:  python 05_device.py

এই মেশিনে কী আছে আর device বাছাই; tensor-এর .to() নতুন tensor দেয়, nn.Module-এর .to() নিজেকেই সরায়;
দুই device মেশালে error। GPU না থাকলে "অন্য device" হিসেবে meta: আকার আর জাত আছে, মান নেই।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import device_demo, format_device


def main() -> dict:
    result = device_demo()
    print(format_device(result))
    return result


if __name__ == "__main__":
    main()
