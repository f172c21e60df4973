"""পর্ব ১৪ · পরীক্ষা ২ · nn.Linear-এর নিজের শুরু, calculate_gain, আর tanh ও ReLU জালে তিন শুরু

চালান:  python 02_init.py            (শুধু সংখ্যা)
        python 02_init.py --plot     (সঙ্গে init.png)
"""

import sys

import _setup_path  # noqa: F401
from bazarghar.experiments.init_norm import (default_bound_demo, format_default_bound, format_gains,
                                             format_init_compare, gain_table, init_compare,
                                             plot_init_compare)


def main(plot: bool = False) -> dict:
    print(format_default_bound(default_bound_demo()))
    print(format_gains(gain_table()))
    result = init_compare()
    print(format_init_compare(result))
    if plot:
        plot_init_compare(result).savefig("init.png")
    return result


if __name__ == "__main__":
    main(plot="--plot" in sys.argv)
