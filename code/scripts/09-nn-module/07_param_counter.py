"""পরীক্ষা ৭ · Parameter-এর হিসাবযন্ত্র

চালান:  python 07_param_counter.py            (পর্বের পাঁচটি stack)
        python 07_param_counter.py 784 256 10 (নিজের stack; --no-bias দিলে bias ছাড়া)

পরপর দুটি চওড়া মিলে একটি nn.Linear: out × in + out। হাতের গোনা nn.Sequential
বানিয়ে count_params-এর সঙ্গেও মেলানো হয়।
"""

import argparse

import _setup_path  # noqa: F401
from bazarghar import count_params, sequential_mlp, stack_report
from bazarghar.experiments import counting_demo, format_counting


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, help="[in, h1, ..., out]")
    parser.add_argument("--no-bias", action="store_true")
    args = parser.parse_args(argv)
    if args.sizes:
        bias = not args.no_bias
        print(stack_report(args.sizes, bias))
        print(f"  (nn.Sequential বানিয়ে count_params: {count_params(sequential_mlp(args.sizes, bias)):,})")
        return None
    result = counting_demo()
    print(format_counting(result))
    return result


if __name__ == "__main__":
    main()
