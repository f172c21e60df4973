"""পরীক্ষা ১ · DeliveryMLP ঘুরে দেখা

চালান:  python 01_module_tour.py

print(model), প্রতিটি parameter-এর নাম-আকার-সংখ্যা আর মোট (২০৯), buffer,
প্রথম Linear-এর weight (১৬, ৩), lin(z) বনাম z Wᵀ + b, আর torch.manual_seed(42)-এ
weight-এর সবচেয়ে বড় মান (০.৫৭০২) বনাম 1/√৩।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_tour, module_tour


def main() -> dict:
    result = module_tour(seed=42)
    print(format_tour(result))
    return result


if __name__ == "__main__":
    main()
