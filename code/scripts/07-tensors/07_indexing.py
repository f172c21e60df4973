"""পর্ব ০৭ · পরীক্ষা ৭ · indexing আর mask

চালান:  python 07_indexing.py

slicing view দেয় (লেখা মূলে পৌঁছায়), তালিকা দিয়ে বাছাই copy দেয়; বৃষ্টি আর দেরির mask, গোনা আর গড়;
clamp_-এর মতো in-place method; একটি মাত্রা ধরে max/argmax, আর gather দিয়ে প্রতিটি সারির নিজের index।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_indexing, indexing_demo, van_trips


def main() -> dict:
    result = indexing_demo()
    print(format_indexing(result))
    trips = van_trips()                      # ৭ দিন × ৪ ভ্যান
    best = trips.max(dim=1)
    print(best.values)
    print(best.indices, trips.argmax(dim=1))
    print(trips.gather(1, best.indices[:, None]).squeeze(1))
    return result


if __name__ == "__main__":
    main()
