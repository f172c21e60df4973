"""পর্ব ০৭ · পরীক্ষা ৭ · indexing আর mask

চালান:  python 07_indexing.py

slicing view দেয় (লেখা মূলে পৌঁছায়), তালিকা দিয়ে বাছাই copy দেয়; বৃষ্টি আর দেরির mask, গোনা আর গড়;
clamp_-এর মতো in-place method।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_indexing, indexing_demo


def main() -> dict:
    result = indexing_demo()
    print(format_indexing(result))
    return result


if __name__ == "__main__":
    main()
