"""পরীক্ষা ৮ · অনুশীলনী আর গোনার প্রশ্নের উত্তর চালিয়ে দেখা

চালান:  python 08_exercises.py

অনুশীলনী ১ (গ্রাহকদের তিন দলে ভাগ করার Sequential), অনুশীলনী ২ (``Riddle``-এর key আর গোনা),
অনুশীলনী ৩ (ModuleDict-এ দুটি head), আর গোনার প্রশ্নগুলো। আগে কাগজে করুন, তারপর চালান।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import exercises_demo, format_exercises


def main() -> dict:
    result = exercises_demo()
    print(format_exercises(result))
    return result


if __name__ == "__main__":
    main()
