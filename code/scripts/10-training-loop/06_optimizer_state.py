"""পর্ব ১০ · পরীক্ষা ৬ · optimizer-এর state_dict

চালান:  python 06_optimizer_state.py

SGD (momentum) আর Adam, প্রত্যেকে এক epoch: state আর param_groups-এ কী থাকে,
প্রতিটি parameter-এর জন্য কী রাখা হয়, আর মোট কত সংখ্যা, model-এর তুলনায়।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_optimizer_sizes, format_optimizer_state, optimizer_state_demo


def main() -> dict:
    result = optimizer_state_demo()
    print(format_optimizer_state(result))
    print(format_optimizer_sizes(result))
    return result


if __name__ == "__main__":
    main()
