"""পর্ব ০৭ · পরীক্ষা ৩ · storage, stride আর view

চালান:  python 03_memory.py            (শুধু সংখ্যা)
        python 03_memory.py --plot     (সঙ্গে memory_layout.svg আর memory_layout.pdf; Graphviz লাগে)

একই ছয়টি সংখ্যার তিন চেহারা (t, t.T, t[:, 1:]): stride, offset, একই storage; transpose দিয়ে লেখা
মূলে পৌঁছায়; t.T.view(6)-এর error, reshape আর contiguous() নতুন storage বানায়; কোন কাজ view, কোনটি copy।
"""

import sys

import _setup_path  # noqa: F401
import torch
from bazarghar.experiments import MEMORY_EXAMPLE, format_memory, memory_demo


def main(plot: bool = False) -> dict:
    result = memory_demo()
    print(format_memory(result))
    if plot:
        import tensorfig

        t = torch.tensor(MEMORY_EXAMPLE)
        figure = tensorfig.memory(t, t.T, t[:, 1:], names=["t", "t.T", "t[:, 1:]"])
        for suffix in (".svg", ".pdf"):
            figure.save("memory_layout" + suffix)
    return result


if __name__ == "__main__":
    main(plot="--plot" in sys.argv)
