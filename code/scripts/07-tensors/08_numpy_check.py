"""পর্ব ০৭ · পরীক্ষা ৮ · NumPy-তে আবার কষে মেলানো

চালান:  python 08_numpy_check.py

standardize করা ডেটা, অংশ ০-এর দুটি MSE (ভুলটিসহ) আর বৃষ্টি-দেরির গোনা: PyTorch আর NumPy পাশাপাশি।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_numpy_check, numpy_check_demo


def main() -> dict:
    result = numpy_check_demo()
    print(format_numpy_check(result))
    return result


if __name__ == "__main__":
    main()
