"""gradgraph: the autograd-graph figure, checked against what real backward passes do.

The expressions and models here were not drawn by hand to compare with: each drawing is checked
against autograd itself. The profiler lists every backward function the engine runs; the drawing
must show exactly those. A leaf is drawn exactly when backward gives it a .grad. A saved tensor is
marked unusable exactly when backward fails on it.
"""
from __future__ import annotations

import base64
import os
import random
import re
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile

import gradgraph  # noqa: E402  (from code/, pytest's pythonpath)
from gradgraph import style
from gradgraph.__main__ import main

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- reading the DOT back


def nodes(source: str) -> dict[str, str]:
    return dict(re.findall(r"^  (n\d+) \[(.*)\];$", source, re.M))


def edges(source: str) -> list[tuple[str, str, str]]:
    return re.findall(r"^  (n\d+) -> (n\d+)(.*);$", source, re.M)


def header(label: str) -> str:
    return re.sub(r"<[^>]+>", "", re.search(r"<B>(.*?)</B>", label)[1])


def functions(source: str) -> list[str]:
    """The backward functions drawn (blue boxes), by type name."""
    return [header(label) for label in nodes(source).values() if f'BGCOLOR="{style.FUNCTION[0]}"' in label]


def leaf_boxes(source: str) -> list[str]:
    return [label for label in nodes(source).values() if f'BGCOLOR="{style.LEAF[0]}"' in label]


def leaves(source: str) -> dict[str, str]:
    """Leaf boxes: name → shape."""
    found = {}
    for label in nodes(source).values():
        if f'BGCOLOR="{style.LEAF[0]}"' in label:
            name = header(label)
            shape = re.search(rf'<FONT COLOR="{style.KEY_RED}"[^>]*>(.*?)</FONT>', label)[1]
            found[name] = shape
    return found


def executed(root: torch.Tensor, **kwargs) -> Counter:
    """The backward functions the engine really runs for root.backward(), by type name."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        root.backward(**kwargs)
    prefix = "autograd::engine::evaluate_function: "
    names = [e.name[len(prefix):] for e in prof.events() if e.name.startswith(prefix)]
    return Counter("AccumulateGrad" if n.endswith("AccumulateGrad") else n for n in names)


def drawn(source: str) -> Counter:
    return Counter(functions(source)) + Counter({"AccumulateGrad": len(leaves(source))} if leaves(source) else {})


# ---------------------------------------------------------------- expressions nobody drew


def random_expression(seed: int):
    """A random expression over a few leaves: branches, reuse, detached and constant inputs,
    in-place updates of fresh intermediates, and a reduction at the end."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    leaves_ = {f"p{i}": torch.randn(3, requires_grad=True) for i in range(rng.randint(2, 4))}
    leaves_["frozen"] = torch.randn(3)  # requires no grad
    pool = list(leaves_.values())
    for _ in range(rng.randint(4, 14)):
        a, b = rng.choice(pool), rng.choice(pool)
        op = rng.choice(["add", "mul", "sin", "exp", "tanh", "detach", "sub", "inplace", "square"])
        if op == "add":
            out = a + b
        elif op == "mul":
            out = a * b
        elif op == "sub":
            out = a - 2 * b
        elif op == "sin":
            out = torch.sin(a)
        elif op == "exp":
            out = torch.exp(a * 0.1)
        elif op == "tanh":
            out = torch.tanh(a)
        elif op == "square":
            out = a * a  # the same tensor twice
        elif op == "detach":
            out = a.detach() * b
        else:  # an in-place update of a fresh intermediate nothing has saved
            out = a * 1.5
            out.add_(b)
        pool.append(out)
    root = sum(pool[-3:]).sum()
    return root, leaves_


@pytest.mark.parametrize("seed", range(12))
def test_random_expressions_drawn_as_backward_runs_them(seed):
    root, named = random_expression(seed)
    if root.grad_fn is None:
        pytest.skip("this seed's expression needs no gradient")  # never for these seeds (asserted below)
    source = gradgraph.draw(root, names=named, collapse=0, most=0).source
    runs = executed(root)
    assert drawn(source) == runs, (drawn(source), runs)
    with_grad = {name for name, t in named.items() if t.grad is not None}
    assert set(leaves(source)) == with_grad
    assert all(leaves(source)[n] == str(tuple(named[n].shape)) for n in with_grad)
    assert "frozen" not in source


def test_every_seed_above_draws_something():
    assert all(random_expression(seed)[0].grad_fn is not None for seed in range(12))


# ---------------------------------------------------------------- the cases a lecture shows


def test_branches_meet_at_one_leaf_and_each_path_is_an_arrow():
    a = torch.tensor([0.5, 1.0], requires_grad=True)
    y = (torch.sin(a) * torch.cos(a) + a.exp()).sum()
    source = gradgraph.draw(y, names={"a": a}).source
    ids = {header(label): key for key, label in nodes(source).items() if "<B>" in label}
    into_a = [e for e in edges(source) if e[1] == ids["a"]]
    assert len(into_a) == 3  # from SinBackward0, CosBackward0 and ExpBackward0
    assert drawn(source) == executed(y)


def test_a_reused_tensor_gets_one_arrow_per_use_and_the_gradient_adds_up():
    x = torch.tensor(3.0, requires_grad=True)
    y = x * x
    source = gradgraph.draw(y, names={"x": x, "y": y}).source
    mul = next(k for k, v in nodes(source).items() if "MulBackward0" in v)
    leaf = next(k for k, v in nodes(source).items() if f'BGCOLOR="{style.LEAF[0]}"' in v)
    assert [e[:2] for e in edges(source)].count((mul, leaf)) == 2
    y.backward()
    assert x.grad.item() == 2 * 3.0  # the two arrows' gradients added: 3 + 3
    many = torch.tensor(2.0, requires_grad=True)
    source = gradgraph.draw(many * many * many * many, names={"m": many}, collapse=0).source
    assert "×" not in "".join(e[2] for e in edges(source))  # one arrow per use, side by side


def test_a_detached_branch_ends_in_no_gradient():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    y = (a * b.detach() + b).sum()
    source = gradgraph.draw(y, names={"a": a, "b": b}).source
    stops = [e for e in edges(source) if "arrowhead=tee" in e[2]]
    assert len(stops) == 1 and "style=dashed" in stops[0][2]
    assert nodes(source)[stops[0][1]].startswith('shape=plain, label="∅"')
    mul = next(k for k, v in nodes(source).items() if "MulBackward0" in v)
    assert stops[0][0] == mul  # the ∅ hangs from the multiplication, where b was detached
    y.backward()
    assert torch.equal(b.grad, torch.ones(2))  # only the + b path reached b
    assert torch.equal(a.grad, torch.tensor([3.0, 4.0]))


def test_an_in_place_op_on_a_fresh_tensor_is_a_node_and_backward_runs():
    a = torch.tensor([1.0, -2.0], requires_grad=True)
    h = a * 2
    h.add_(1)  # nothing saved h: allowed
    y = (h * h).sum()
    source = gradgraph.draw(y, names={"a": a}).source
    assert "AddBackward0" in functions(source) and "✗" not in source
    assert drawn(source) == executed(y)


def test_an_in_place_op_on_a_saved_tensor_is_marked_and_backward_fails_the_same_way():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    s = torch.sigmoid(a)
    y = (s * 3).sum()
    s.mul_(2)  # SigmoidBackward0 saved its result: now at version 1
    figure = gradgraph.draw(y, names={"a": a})
    assert "✗" in figure.source and "Sigmoid" in figure.source
    assert "version এখন 1, backward চায় 0" in figure.source
    assert "SigmoidBackward0 ✗" in figure.alt
    with pytest.raises(RuntimeError, match=r"is at version 1; expected version 0"):
        y.backward()
    clean = torch.sigmoid(a)
    assert "✗" not in gradgraph.draw((clean * 3).sum()).source


def test_saved_tensors_freed_by_backward_are_marked_and_kept_with_retain_graph():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (w.exp() * w).sum()
    y.backward(retain_graph=True)
    assert "✗" not in gradgraph.draw(y).source
    y.backward()
    figure = gradgraph.draw(y, lang="en")
    assert "saved tensors freed:<BR ALIGN=\"LEFT\"/>backward already ran" in figure.source
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_saved_tensors_listed_with_the_callers_names():
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = torch.tensor([0.5, -1.0, 2.0])
    y = (w * x).sum()
    source = gradgraph.draw(y, names={"w": w, "x": x}, saved=True).source
    # x does not need a gradient, so w is not saved; x is, for w's gradient.
    assert "other = x (3,)" in source and "self" not in source
    both = torch.tensor([1.0, 2.0], requires_grad=True)
    other = torch.tensor([3.0, 4.0], requires_grad=True)
    source = gradgraph.draw((both * other).sum(), names={"a": both, "b": other}, saved=True).source
    assert "self = a (2,)" in source and "other = b (2,)" in source
    assert "self" not in gradgraph.draw((both * other).sum()).source  # saved=False lists nothing


def test_a_fifty_op_chain_folds_and_still_counts_every_function():
    torch.manual_seed(0)
    x = torch.randn(3, requires_grad=True)
    w = torch.tensor(0.9, requires_grad=True)
    h = x
    for i in range(50):
        h = torch.sin(h) * w if i % 2 else torch.tanh(h)
    y = h.sum()
    figure = gradgraph.draw(y, names={"x": x, "w": w, "y": y})
    source = figure.source
    runs = executed(y)
    total = sum(n for name, n in runs.items() if name != "AccumulateGrad")
    assert len(nodes(source)) <= 8
    fold = next(v for v in nodes(source).values() if f'BGCOLOR="{style.FOLD[0]}"' in v)
    hidden = sum(int(n) for n in re.findall(r"×(\d+)", fold))
    assert hidden + len(functions(source)) == total
    assert f"{total}টি backward function" in figure.alt
    w_leaf = next(k for k, v in nodes(source).items() if ">w</FONT>" in v)
    assert any(e[1] == w_leaf and 'label="×25"' in e[2] for e in edges(source))  # w used 25 times
    assert 'STYLE="rounded,dashed"' in fold
    laid_out = gradgraph.draw(y, names={"x": x, "w": w}, collapse=0).source
    assert Counter(functions(laid_out)) == Counter({k: v for k, v in runs.items() if k != "AccumulateGrad"})
    width, height = svg_size(figure.svg())
    assert width < 1000 and height < 1000, (width, height)  # folded, it is one slide's figure


def test_ten_thousand_ops_walk_without_recursion_in_seconds():
    x = torch.tensor([0.5], requires_grad=True)
    h = x
    for _ in range(10_000):
        h = h * 1.0001
    start = time.perf_counter()
    figure = gradgraph.draw(h.sum(), names={"x": x})
    svg = figure.svg()
    seconds = time.perf_counter() - start
    print(f"\n10,000-op chain: walk + fold + dot -Tsvg in {seconds:.2f} s")
    assert "<svg" in svg and len(nodes(figure.source)) <= 8 and seconds < 20
    assert "10001টি backward function" in figure.alt


def test_a_wide_graph_is_cut_and_what_is_left_out_is_counted():
    parts = [torch.tensor(float(i), requires_grad=True) for i in range(300)]
    y = sum(p * p for p in parts)
    figure = gradgraph.draw(y, most=40)
    assert len(nodes(figure.source)) <= 41
    cut = next(v for v in nodes(figure.source).values() if "আঁকা হয়নি" in v)
    functions_left, leaves_left = map(int, re.search(r"আরও (\d+)টি function, (\d+)টি leaf", cut).groups())
    shown_functions = len(functions(figure.source))
    assert shown_functions + functions_left == sum(n for k, n in executed(y).items() if k != "AccumulateGrad")
    assert len(leaf_boxes(figure.source)) + leaves_left == 300


def test_the_delivery_models_loss():
    from bazarghar.loop import loss_fn, make_loop_model, split_orders
    split = split_orders()
    model = make_loop_model(split)
    xb, yb = split.X_train[:8], split.y_train[:8]
    for train in (True, False):
        model.train(train)
        model.zero_grad()
        loss = loss_fn(model(xb), yb)
        source = gradgraph.draw(loss, names=model).source
        assert leaves(source) == {n: str(tuple(p.shape)) for n, p in model.named_parameters()}
        assert drawn(source) == executed(loss)
        assert all(p.grad is not None for p in model.parameters())
        stops = sum(1 for e in edges(source) if "arrowhead=tee" in e[2])
        # The targets and the input need no gradient; in train mode Dropout's mask neither.
        assert stops == (3 if train else 2)
        assert ("MulBackward0" in functions(source)) == train


def test_a_frozen_layer_drops_out_of_the_graph():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    model[0].requires_grad_(False)
    loss = model(torch.randn(5, 3)).sum()
    source = gradgraph.draw(loss, names=model).source
    assert set(leaves(source)) == {"2.weight", "2.bias"}
    assert drawn(source) == executed(loss)


def test_a_custom_function_and_a_hook():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    a = torch.tensor([1.0, -3.0], requires_grad=True)
    h = Square.apply(a)
    h.retain_grad()
    h.register_hook(lambda g: g)
    y = h.sum()
    source = gradgraph.draw(y, names={"a": a, "h": h}, saved=True).source
    assert "SquareBackward" in functions(source)
    assert "saved = a (2,)" in source
    assert "retain_grad()" in source and "hook" in source
    assert drawn(source) == executed(y)


def test_a_leaf_and_several_outputs():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    figure = gradgraph.draw(w, names={"w": w})
    assert leaves(figure.source) == {"w": "(2,)"} and len(nodes(figure.source)) == 1
    u, v = w.sin(), w.cos()
    source = gradgraph.draw(u, v, names={"u": u, "v": v, "w": w}).source
    assert len(leaves(source)) == 1 and len(functions(source)) == 2


def test_nothing_recorded_is_one_clear_error():
    w = torch.tensor([1.0], requires_grad=True)
    with torch.no_grad():
        y = w * 2
    with pytest.raises(gradgraph.GradGraphError, match="no grad_fn and does not require grad"):
        gradgraph.draw(y, names={"y": y})
    with pytest.raises(TypeError, match="not a tensor"):
        gradgraph.draw(w * 2, names={"w": 3})
    with pytest.raises(ValueError, match="direction"):
        gradgraph.draw(w * 2, direction="up")


# ---------------------------------------------------------------- the figure


def svg_size(svg: str) -> tuple[float, float]:
    match = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    return float(match[1]), float(match[2])


def example():
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = torch.tensor(0.5, requires_grad=True)
    x = torch.tensor([0.5, -1.0, 2.0])
    y = ((w * x).sum() + b) ** 2
    return y, {"y": y, "w": w, "b": b, "x": x}


def test_same_expression_gives_identical_dot_svg_and_pdf():
    first, second = (gradgraph.draw(y, names=n, saved=True) for y, n in (example(), example()))
    assert first.source == second.source and first.svg() == second.svg() and first.pdf() == second.pdf()
    assert not re.search(r"0x[0-9a-fA-F]{6,}", first.source + first.svg() + first.alt)


def test_each_kind_differs_by_shape_or_line_not_only_colour():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    s = torch.sigmoid(a)
    y = (s * torch.tensor([1.0, 2.0])).sum()
    s.mul_(2)
    h = a
    for _ in range(20):
        h = torch.sin(h)
    source = gradgraph.draw(y, h.sum(), names={"y": y, "a": a}).source
    kinds = {}
    for label in nodes(source).values():
        for kind, (fill, _line) in {"output": style.OUTPUT, "function": style.FUNCTION, "leaf": style.LEAF,
                                    "fold": style.FOLD}.items():
            if f'BGCOLOR="{fill}">' in label.split("<TR>")[0] + ">":
                table = re.search(r"<TABLE [^>]*>", label)[0]
                outline = re.search(r'STYLE="([^"]*)"', table)
                kinds[kind] = (re.search(r'BORDER="(\d)"', table)[1], outline[1] if outline else None)
    assert kinds == {"output": ("2", "rounded"), "function": ("1", "rounded"),
                     "leaf": ("1", None), "fold": ("1", "rounded,dashed")}
    assert "✗" in source  # the unusable saved tensor: a glyph, not a colour
    legend = source.split("label=<<TABLE BORDER=\"0\"")[1]
    for word in ("output", "function", "leaf", "none", "fold", "problem"):
        assert style.WORDS["bn"][word] in legend


def test_bengali_legend_and_fonts_in_both_renderings():
    y, names = example()
    figure = gradgraph.draw(y, names=names, caption="ছবি ৮.১ — y-এর graph")
    svg = figure.svg()
    assert 'font-family="Noto Sans Bengali,' in svg and "DejaVu Sans Mono" in svg
    assert "ছবি ৮.১ — y&#45;এর graph" in svg and "তীর: gradient&#45;এর পথ" in svg
    pdf = subprocess.run(["pdftotext", "-", "-"], input=figure.pdf(), capture_output=True, check=True).stdout
    assert "তীর: gradient-এর পথ".encode() in pdf
    assert "blue, rounded: a backward function" in gradgraph.draw(y, lang="en").source
    assert "নীল" not in gradgraph.draw(y, legend=False).source


def test_mimebundle_and_alt_text():
    y, names = example()
    figure = gradgraph.draw(y, names=names)
    bundle = figure._repr_mimebundle_()
    assert set(bundle) == {"image/svg+xml", "application/pdf", "text/vnd.graphviz", "text/plain"}
    assert base64.b64decode(bundle["application/pdf"]).startswith(b"%PDF")
    assert figure.alt.startswith("y ()-এর autograd graph: 4টি backward function, 2টি leaf")
    for text in ("PowBackward0", "AccumulateGrad: leaf w (3,)", "∅ (gradient নেই)"):
        assert text in figure.alt


def test_compact_is_shorter_and_keeps_every_name():
    from bazarghar.loop import loss_fn, make_loop_model, split_orders
    split = split_orders()
    model = make_loop_model(split).eval()
    loss = loss_fn(model(split.X_train[:4]), split.y_train[:4])
    full = gradgraph.draw(loss, names=model)
    compact = gradgraph.draw(loss, names=model, compact=True, legend=False)
    assert leaves(full.source) == leaves(compact.source)
    assert svg_size(compact.svg())[1] < 0.5 * svg_size(full.svg())[1]


# ---------------------------------------------------------------- the command


def delivery_loss():
    from bazarghar.loop import loss_fn, make_loop_model, split_orders
    split = split_orders()
    model = make_loop_model(split).eval()
    loss = loss_fn(model(split.X_train[:4]), split.y_train[:4])
    return loss, model


def test_cli_wrapper_writes_svg(tmp_path):
    out = tmp_path / "figures" / "loss.svg"
    done = subprocess.run([str(ROOT / "scripts" / "gradgraph"), f"{__name__}:delivery_loss", "-o", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT / "tests",
                          env={**os.environ, "PYTHONPATH": str(ROOT / "tests")})
    assert done.returncode == 0, done.stderr
    loss, model = delivery_loss()
    assert out.read_text(encoding="utf-8") == gradgraph.draw(loss, names=model).svg()


def test_cli_module_input_and_options(capsys, tmp_path):
    assert main(["bazarghar:DeliveryMLP", "--input", "4,3", "--lang", "en", "--alt"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Autograd graph of output (4,)") and "hidden.0.weight (16, 3)" in printed
    out = tmp_path / "g.dot"
    assert main([f"{__name__}:delivery_loss", "-o", str(out), "--saved", "--direction", "left"]) == 0
    loss, model = delivery_loss()
    assert out.read_text(encoding="utf-8") == gradgraph.draw(loss, names=model, saved=True, direction="left").source


def nothing():
    with torch.no_grad():
        return torch.ones(2, requires_grad=True) * 2


@pytest.mark.parametrize("argv, message", [
    (["torch.zeros"], "package.module:name"),
    (["no_such_package:f"], "cannot import 'no_such_package'"),
    (["torch:no_such"], "has no attribute 'no_such'"),
    (["torch:zeros"], "zero-argument function"),
    (["bazarghar:DeliveryMLP"], "--input 4,3"),
    (["bazarghar:DeliveryMLP", "--input", "4,-3"], "positive sizes"),
])
def test_cli_bad_input(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_nothing_recorded_is_one_line(capsys):
    assert main([f"{__name__}:nothing"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gradgraph: ") and "no grad_fn" in err
