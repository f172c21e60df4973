"""পর্ব ১০ · অনুশীলনীর উত্তর

চালান:  python 09_exercises.py

(১) Adam-এর memory, (২) ধাপ গোনা, (৩) gradient জমিয়ে বড় batch — আগে কাগজে করুন,
তারপর এই script চালিয়ে মেলান।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import exercises10_demo, format_exercises10


def main() -> dict:
    result = exercises10_demo()
    print(format_exercises10(result))
    return result


if __name__ == "__main__":
    main()
