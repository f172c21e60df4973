"""পর্ব ০৭ · পরীক্ষা ৬ · broadcasting

চালান:  python 06_broadcasting.py            (শুধু সংখ্যা)
        python 06_broadcasting.py --plot     (সঙ্গে তিনটি broadcast_*.svg/.pdf; Graphviz লাগে)

তিন জোড়া আকার; ডেলিভারি ডেটা standardize; সারি ধরে ভাগে keepdim; (N, 1) বনাম (N,)-এর নীরব বাগ,
MSELoss-এর সতর্কবার্তা আর squeeze(1)-এর পরে ঠিক সংখ্যা।
"""

import sys

import _setup_path  # noqa: F401
from bazarghar import make_orders
from bazarghar.experiments import broadcast_demo, format_broadcast, old_rule, van_trips


def main(plot: bool = False) -> dict:
    result = broadcast_demo()
    print(format_broadcast(result))
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
