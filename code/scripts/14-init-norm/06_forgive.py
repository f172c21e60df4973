"""পর্ব ১৪ · পরীক্ষা ৬ · normalization খারাপ শুরু ক্ষমা করে

চালান:  python 06_forgive.py            (শুধু সংখ্যা)
        python 06_forgive.py --plot     (সঙ্গে forgive.png)

প্রতিটি weight N(0, 0.01²): ত্রিশ স্তরের জাল, আর পর্বের শুরুর ছয় স্তরের ডেলিভারি model।
"""

import sys

import _setup_path  # noqa: F401
from bazarghar.experiments.init_norm import format_forgive, forgive_stack, forgive_training, plot_forgive


def main(plot: bool = False) -> None:
    stack, train = forgive_stack(), forgive_training()
    print(format_forgive(stack, train))
    if plot:
        plot_forgive(stack, train).savefig("forgive.png")


if __name__ == "__main__":
    main(plot="--plot" in sys.argv)
