"""পর্ব ০৮ · পরীক্ষা ৭ · torch.autograd.grad আর দ্বিতীয় derivative

চালান:  python 07_autograd_grad.py

dispatcher-এর প্রশ্ন: একটি অর্ডারে দূরত্ব, পণ্য বা বৃষ্টি একটু বাড়লে সময় কত বাড়ে (input-এর
gradient); create_graph=True দিয়ে দূরত্বে দ্বিতীয় derivative; আর .grad-এ জমা না করে gradient।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import autograd_check as check


def main() -> dict:
    result = check.input_gradient_demo()
    print(check.format_input_gradient(result))
    return result


if __name__ == "__main__":
    main()
