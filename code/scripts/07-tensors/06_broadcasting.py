"""পর্ব ০৭ · পরীক্ষা ৬ · broadcasting

চালান:  python 06_broadcasting.py            (শুধু সংখ্যা)
        python 06_broadcasting.py --plot     (সঙ্গে তিনটি broadcast_*.svg/.pdf; Graphviz লাগে)

তিন জোড়া আকার; ডেলিভারি ডেটা standardize; সারি ধরে ভাগে keepdim; (N, 1) বনাম (N,)-এর নীরব বাগ,
MSELoss-এর সতর্কবার্তা আর squeeze(1)-এর পরে ঠিক সংখ্যা; শেষে @-এর গুণ আর তার batch মাত্রার broadcasting।
"""

import sys

import _setup_path  # noqa: F401
import torch
from bazarghar import make_orders
from bazarghar.experiments import broadcast_demo, format_broadcast, old_rule, van_trips


def matmul() -> None:
    """@: 1-d · 1-d, ছক × সারি, আর batch মাত্রা broadcasting-এর নিয়মে (ছোট পূর্ণসংখ্যা, তাই ফল হুবহু)।"""
    X, _ = make_orders()
    rate = torch.tensor([3., 0., 5.])
    print((X @ rate).shape, (X @ rate[:, None]).shape)
    A = torch.arange(6.).reshape(2, 3)
    print(A @ rate, rate @ rate)
    batch = torch.arange(24.).reshape(4, 2, 3)
    print((batch @ A.T).shape, (torch.ones(4, 1, 2, 3) @ torch.ones(5, 3, 7)).shape)


def main(plot: bool = False) -> dict:
    result = broadcast_demo()
    print(format_broadcast(result))
    matmul()
    if plot:
        import tensorfig

        X, y = make_orders()
        trips = van_trips()
        pairs = {"standardize": (X, X.mean(dim=0), ["X", "mu"]),
                 "keepdim": (trips, trips.sum(dim=1), ["trips", "day"]),
                 "silent": (old_rule(X, keep_dim=True), y, ["guess_b", "y"])}
        for name, (a, b, names) in pairs.items():
            figure = tensorfig.broadcast(a, b, names=names)
            for suffix in (".svg", ".pdf"):
                figure.save(f"broadcast_{name}{suffix}")
    return result


if __name__ == "__main__":
    main(plot="--plot" in sys.argv)
