"""পর্ব ১৪ · পরীক্ষা ৫ · LayerNorm, আর ডেলিভারি ডেটায় normalization ছাড়া, BatchNorm আর LayerNorm

চালান:  python 05_norm_compare.py            (শুধু সংখ্যা)
        python 05_norm_compare.py --plot     (সঙ্গে norm_compare.png)
        python 05_norm_compare.py --lr 0.01  (অন্য learning rate)
"""

import sys

import _setup_path  # noqa: F401
from bazarghar.experiments.init_norm import (affine_demo, format_affine, format_layernorm,
                                             format_norm_compare, layernorm_demo, norm_compare,
                                             plot_norm_compare)


def main(plot: bool = False, lr: float = 3e-3) -> dict:
    print(format_layernorm(layernorm_demo()))
    result = norm_compare(lr=lr)
    print(format_norm_compare(result))
    print(format_affine(affine_demo(result["models"]["batch"])))
    if plot:
        plot_norm_compare(result, title=f"lr = {lr:g}").savefig("norm_compare.png")
    return result


if __name__ == "__main__":
    args = sys.argv[1:]
    main(plot="--plot" in args, lr=float(args[args.index("--lr") + 1]) if "--lr" in args else 3e-3)
