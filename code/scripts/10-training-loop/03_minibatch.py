"""পর্ব ১০ · পরীক্ষা ৩ · epoch আর mini-batch

চালান:  python 03_minibatch.py

৩২০/৮০ ভাগ, DataLoader-এর batch আর ধাপের সংখ্যা, শেষ batch ছোট হলে কী হয়,
shuffle-এর ক্রম কীভাবে seed দিয়ে বাঁধা।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_minibatch, minibatch_demo


def main() -> dict:
    result = minibatch_demo()
    print(format_minibatch(result))
    return result


if __name__ == "__main__":
    main()
