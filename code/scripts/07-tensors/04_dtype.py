"""পর্ব ০৭ · পরীক্ষা ৪ · dtype

চালান:  python 04_dtype.py

default জাত, NumPy-র float64 ডেটা float32 layer-এ, মিশ্র জাতের ফল, float32/float16/bfloat16-এর
eps আর সীমা, দিনের মোট মিনিট এক এক করে যোগে কতটা হারায়, int8/uint8-এর overflow, আর km → মাইল → km।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import dtype_demo, format_dtype


def main() -> dict:
    result = dtype_demo()
    print(format_dtype(result))
    return result


if __name__ == "__main__":
    main()
