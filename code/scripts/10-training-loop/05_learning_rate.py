"""পর্ব ১০ · পরীক্ষা ৫ · learning rate: খুব ছোট, ঠিকঠাক, খুব বড়

চালান:  python 05_learning_rate.py            (শুধু সংখ্যা)
        python 05_learning_rate.py --plot     (সঙ্গে learning_rates.png)

একই model, একই শুরু, একই mini-batch-এর ক্রম; শুধু lr আলাদা।
"""

import sys

import _setup_path  # noqa: F401
from bazarghar.experiments import format_lr_sweep, lr_sweep_demo


def main(plot: bool = False) -> dict:
    result = lr_sweep_demo()
    print(format_lr_sweep(result))
    if plot:
        from bazarghar.plots import plot_lr_sweep

        plot_lr_sweep(result["runs"]).savefig("learning_rates.png")
    return result


if __name__ == "__main__":
    main(plot="--plot" in sys.argv)
