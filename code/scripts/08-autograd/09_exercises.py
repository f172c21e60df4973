"""পর্ব ০৮ · অনুশীলনীর উত্তর

চালান:  python 09_exercises.py

১. g(a) = [a₀ + 2a₁, a₀·a₁]-এর Jacobian, a = (3, −2)
২. x = 2-এ x³-এর backward, তারপর মোছা ছাড়া x·x-এর backward: x.grad
৩. দেরির জরিমানা softplus(m − 45): float64-এ gradcheck আর gradient
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import autograd_check as check


def main() -> dict:
    result = check.exercises08_demo()
    print(check.format_exercises08(result))
    return result


if __name__ == "__main__":
    main()
