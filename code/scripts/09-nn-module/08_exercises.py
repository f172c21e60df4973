"""পরীক্ষা ৮ · অনুশীলন আর quiz-এর উত্তর চালিয়ে দেখা

চালান:  python 08_exercises.py

অনুশীলন ১ (২০ → ৬৪ → ৩২ → ৩ Sequential), অনুশীলন ৩ (আউটপুট অনুমান), অনুশীলন ৪
(ModuleDict-এ দুটি head), আর quiz-এর দুটি গোনা। আগে খাতায় করে নিন, তারপর চালান।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import exercises_demo, format_exercises


def main() -> dict:
    result = exercises_demo()
    print(format_exercises(result))
    return result


if __name__ == "__main__":
    main()
