"""পর্ব ১০ · পরীক্ষা ৪ · পুরো loop: training আর validation loss

চালান:  python 04_train_val.py            (শুধু সংখ্যা)
        python 04_train_val.py --plot     (সঙ্গে loss_curves.png)

SGD (momentum 0.9, lr 0.001) দিয়ে ৩০ epoch; প্রতি epoch-এ train mode-এ training loss,
eval mode-এ training অংশ আর validation। তারপর validation ঠিক পথে আর ভুল পথে।
"""

import sys

import _setup_path  # noqa: F401
from bazarghar.experiments import (format_train_val, format_validation_modes, train_val_demo,
                                   validation_modes_demo)


def main(plot: bool = False) -> dict:
    result = train_val_demo()
    print(format_train_val(result))
    modes = validation_modes_demo(result["model"], result["split"])
    print(format_validation_modes(modes))
    if plot:
        from bazarghar.plots import plot_train_val

        plot_train_val(result["history"], result["train_eval"]).savefig("loss_curves.png")
    return result


if __name__ == "__main__":
    main(plot="--plot" in sys.argv)
