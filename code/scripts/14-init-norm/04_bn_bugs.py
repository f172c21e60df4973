"""পর্ব ১৪ · পরীক্ষা ৪ · BatchNorm-এর বাগ: train mode-এ মূল্যায়ন, একটি উদাহরণের batch, ছোট batch

চালান:  python 04_bn_bugs.py
"""

import _setup_path  # noqa: F401
from bazarghar.experiments.init_norm import (NormDeliveryMLP, format_tiny_batch, format_train_mode_bug,
                                             tiny_batch_demo, train_mode_bug)
from bazarghar.loop import split_orders


def main() -> None:
    print(format_train_mode_bug(train_mode_bug()))
    split = split_orders()
    model = NormDeliveryMLP(split.X_train.mean(0), split.X_train.std(0), norm="batch")
    try:
        model(split.X_val[:1])                 # train mode, একটি অর্ডার
    except ValueError as err:
        print(f"{type(err).__name__}: {err}")
    print(format_tiny_batch(tiny_batch_demo()))


if __name__ == "__main__":
    main()
