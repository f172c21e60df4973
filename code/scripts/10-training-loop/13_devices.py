"""পর্ব ১০ · পরীক্ষা ১৩ · device: অন্য মেশিনের checkpoint আর .to()-এর ক্রম

চালান:  python 13_devices.py

GPU ছাড়াই চলে। GPU মেশিনে লেখা ফাইলের মতো একটি ফাইল (storage-এর device "cuda:0") map_location
ছাড়া খোলে না, "cpu" দিলে খোলে। তারপর .to(), optimizer বানানো আর optimizer load-এর তিনটি ক্রম;
dtype বদল (float64) এখানে device বদলের জায়গায়, কারণ দুটি একই পথে চলে।
"""

import tempfile

import _setup_path  # noqa: F401
from bazarghar.experiments import (format_map_location, format_to_order, map_location_demo,
                                   to_order_demo)


def main() -> dict:
    with tempfile.TemporaryDirectory() as workdir:
        result = map_location_demo(workdir)
    order = to_order_demo()
    print(format_map_location(result))
    print(format_to_order(order))
    return result


if __name__ == "__main__":
    main()
