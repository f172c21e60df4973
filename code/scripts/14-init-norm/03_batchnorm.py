"""পর্ব ১৪ · পরীক্ষা ৩ · BatchNorm1d: train mode-এর হিসাব, buffer আর momentum

চালান:  python 03_batchnorm.py            (শুধু সংখ্যা)
        python 03_batchnorm.py --plot     (সঙ্গে running_mean.png)
"""

import sys

import _setup_path  # noqa: F401
from bazarghar.experiments.init_norm import (batchnorm_by_hand, format_batchnorm_by_hand, format_running,
                                             plot_running, running_demo, running_trace)


def main(plot: bool = False) -> dict:
    by_hand = batchnorm_by_hand()
    print(format_batchnorm_by_hand(by_hand))
    print(format_running(running_demo()))
    trace = running_trace()
    if plot:
        plot_running(trace).savefig("running_mean.png")
    return trace


if __name__ == "__main__":
    main(plot="--plot" in sys.argv)
