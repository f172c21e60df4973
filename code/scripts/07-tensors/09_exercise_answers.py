"""পর্ব ০৭ · অনুশীলনীর উত্তর

চালান:  python 09_exercise_answers.py

(১) চারটি হিসাবের আকার, (২) arange(20).reshape(4, 5)-এর stride, slice আর ঠিকানা,
(৩) বৃষ্টিতে আর শুকনো দিনে দেরির হার, NumPy-তে যাচাইসহ।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import exercises07_demo, format_exercises07


def main() -> dict:
    result = exercises07_demo()
    print(format_exercises07(result))
    return result


if __name__ == "__main__":
    main()
