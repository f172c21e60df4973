"""পর্ব ০৮ · পরীক্ষা ১ · হিসাবের খাতা: leaf, requires_grad, grad_fn

চালান:  python 01_graph.py            (graph-এর লেখা রূপ ছাপে)
        python 01_graph.py --plot g.svg   (ছবিটিও আঁকে; Graphviz লাগে)

এক লাইনের model (মিনিট = w · x + b)-এর loss: প্রতিটি tensor leaf কি না, gradient চায় কি না,
কোন function-এ জন্ম; তারপর grad_fn থেকে next_functions ধরে পুরো graph, আর ডেলিভারি model-এর
loss-এর graph-এ কোন কোন leaf।
"""

import argparse

import _setup_path  # noqa: F401
import gradgraph
from bazarghar.experiments import autograd as ag


def main(plot: str | None = None) -> dict:
    w, b, x = ag.start_tensors()
    pred = w @ x + b
    loss = (pred - ag.ACTUAL_MINUTES) ** 2
    for name, t in [("w", w), ("x", x), ("pred", pred), ("loss", loss)]:
        fn = t.grad_fn.name() if t.grad_fn else None
        print(f"{name:4s} leaf={t.is_leaf!s:5s} requires_grad={t.requires_grad!s:5s} grad_fn={fn}")
    names = {"loss": loss, "pred": pred, "w": w, "b": b, "x": x}
    figure = gradgraph.draw(loss, names=names, saved=True, direction="left", compact=True)
    print(figure.alt, end="")
    model, dloss = ag.delivery_loss()
    leaves = [n.name for n in gradgraph.graph(dloss, names=model).nodes if n.kind == "leaf"]
    print("ডেলিভারি model-এর graph-এর leaf:", ", ".join(leaves))
    if plot:
        figure.save(plot)
        print("ছবি:", plot)
    return {"leaves": leaves}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plot", help="graph-এর ছবির ফাইল (.svg, .pdf বা .png)")
    main(parser.parse_args().plot)
