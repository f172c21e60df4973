"""পর্ব ১৪ · পরীক্ষা ১ · ত্রিশ স্তরের ReLU জাল, তিন রকম শুরু

চালান:  python 01_scale.py            (শুধু সংখ্যা)
        python 01_scale.py --plot     (সঙ্গে scale.png)

N(0, 1)-এ activation আর gradient ফাটে, N(0, 0.01²)-এ মিলিয়ে যায়, He-এ টিকে থাকে।
"""

import sys

import _setup_path  # noqa: F401
from bazarghar.experiments.init_norm import format_scale, plot_scale, scale_demo


def main(plot: bool = False) -> dict:
    result = scale_demo()
    print(format_scale(result))
    if plot:
        plot_scale(result).savefig("scale.png")
    return result


if __name__ == "__main__":
    main(plot="--plot" in sys.argv)
