"""পর্ব ১০ · পরীক্ষা ১২ · training-এর সস্তা পরীক্ষা

চালান:  python 12_sanity_checks.py

শুরুর loss, এক batch মুখস্থ, clip_grad_norm_, আর একটি NaN অর্ডার — float64-এ, Dropout ছাড়া।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_sanity, sanity_demo


def main() -> dict:
    result = sanity_demo()
    print(format_sanity(result))
    return result


if __name__ == "__main__":
    main()
