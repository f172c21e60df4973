"""পর্ব ১০ · পরীক্ষা ১ · training loop-এর একটি ধাপ

চালান:  python 01_one_step.py

প্রথম mini-batch-এ forward → loss → zero_grad → backward → step, আর প্রতিটি লাইনের পরে
কী বদলাল: pred-এর আকার, loss, head.bias-এর gradient আর নতুন মান, একই batch-এ loss।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_one_step, one_step_demo


def main() -> dict:
    result = one_step_demo()
    print(format_one_step(result))
    return result


if __name__ == "__main__":
    main()
