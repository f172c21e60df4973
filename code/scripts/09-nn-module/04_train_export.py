"""পরীক্ষা ৪ · শেখানো, state_dict → JSON, আর NumPy-তে একই forward

চালান:  python 04_train_export.py            (ফাইল একটি অস্থায়ী ফোল্ডারে, শেষে মুছে যায়)
        python 04_train_export.py --out DIR  (delivery_mlp.pt আর delivery_mlp.json DIR-এ থাকে)

৪০০টি অর্ডারে কয়েকশো ধাপ শেখানো, training MSE (noise-এর variance ৪-এর কাছাকাছি),
JSON-এর আকার, তিনটি নমুনা অর্ডারের float32/float64 prediction, তারপর JSON পড়ে
শুধু NumPy দিয়ে forward আর PyTorch-এর সঙ্গে পার্থক্য (float32-এ ulp-এর হিসাবে)।
"""

import argparse
import tempfile

import _setup_path  # noqa: F401
from bazarghar.experiments import format_train_export, train_export_demo


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="ফাইল রাখার ফোল্ডার (না দিলে অস্থায়ী)")
    args = parser.parse_args(argv)
    if args.out:
        result = train_export_demo(args.out)
        print(format_train_export(result))
        print(f"\nফাইল: {result['pt_path']} , {result['json_path']}")
        return result
    with tempfile.TemporaryDirectory() as workdir:
        result = train_export_demo(workdir)
        print(format_train_export(result))
    return result


if __name__ == "__main__":
    main()
