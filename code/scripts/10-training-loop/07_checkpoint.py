"""পর্ব ১০ · পরীক্ষা ৭ · checkpoint লেখা আর weights_only দিয়ে পড়া

চালান:  python 07_checkpoint.py

Adam দিয়ে ১০ epoch, তারপর model, optimizer, epoch, RNG আর history এক ফাইলে;
weights_only=True-তে খোলা; আর একটি Python object রেখে দিলে কী হয়।
"""

import tempfile

import _setup_path  # noqa: F401
from bazarghar.experiments import checkpoint_demo, format_checkpoint


def main() -> dict:
    with tempfile.TemporaryDirectory() as workdir:
        result = checkpoint_demo(workdir)
        print(format_checkpoint(result))
    return result


if __name__ == "__main__":
    main()
