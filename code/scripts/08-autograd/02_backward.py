"""পর্ব ০৮ · পরীক্ষা ২ · backward: একটি সংখ্যা থেকে, আর একটি vector থেকে

চালান:  python 02_backward.py

এক অর্ডারে loss.backward() আর হাতের chain rule; তিন অর্ডারে আর্গুমেন্ট ছাড়া backward-এর
error, gradient=ones আর sum(); তারপর একটি ছোট Jacobian, হাতে আর jacobian() দিয়ে, আর vᵀJ।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import autograd as ag


def main() -> dict:
    one, batch, jac = ag.one_order_demo(), ag.batch_demo(), ag.jacobian_demo()
    print(ag.format_one_order(one))
    print(ag.format_batch(batch))
    print(ag.format_jacobian(jac))
    return {"one": one, "batch": batch, "jacobian": jac}


if __name__ == "__main__":
    main()
