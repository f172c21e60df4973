"""পর্ব ০৭ · পরীক্ষা ২ · আকার পড়া আর বদলানো

চালান:  python 02_shape.py

ডেলিভারি ডেটার shape, ndim, numel; reshape, view, permute, transpose, squeeze, unsqueeze,
flatten; expand বনাম repeat-এর stride আর memory; cat বনাম stack।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_shape, shape_demo


def main() -> dict:
    result = shape_demo()
    print(format_shape(result))
    return result


if __name__ == "__main__":
    main()
