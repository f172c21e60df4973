"""পর্ব ১৪-এর পরীক্ষা: weight-এর শুরুর মান (initialization) আর normalization।

গভীর জালের পরীক্ষাগুলো float64-এ চলে: ৩০ স্তরে মান ১০^২০ ছাড়ায় বা ১০^-১৫-এর নিচে নামে,
যা float32-এ উপচে পড়ত বা শূন্য হয়ে যেত, আর float64-এ CPU-ভেদে যোগের ক্রমের তফাত ছাপা
তিন অঙ্কে পৌঁছায় না। ডেলিভারি ডেটার training float32-এ, পর্ব ১০-এর loop দিয়েই।
ছাপা আর আঁকা প্রতিটি সংখ্যা তিন significant অঙ্কে গোল।
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ..loop import History, evaluate, loss_fn, make_loader, split_orders, train_epoch

__all__ = [
    "DEPTH", "WIDTH", "BATCH", "sig", "deep_stack", "probe", "scale_demo", "format_scale",
    "default_bound_demo", "format_default_bound", "gain_table", "format_gains", "init_compare",
    "format_init_compare", "batchnorm_by_hand", "format_batchnorm_by_hand", "running_demo",
    "format_running", "running_trace", "train_mode_bug", "format_train_mode_bug", "tiny_batch_demo",
    "format_tiny_batch", "layernorm_demo", "format_layernorm", "NormDeliveryMLP", "norm_compare",
    "format_norm_compare", "affine_demo", "format_affine", "forgive_stack", "forgive_training",
    "format_forgive", "plot_scale", "plot_init_compare", "plot_running", "plot_norm_compare",
    "plot_forgive",
]

#: গভীর জাল: ৩০টি Linear, প্রতিটি ৬৪ চওড়া; ৫১২টি input সারি
DEPTH, WIDTH, BATCH = 30, 64, 512


def sig(x: float, digits: int = 3) -> float:
    """``digits`` significant অঙ্কে গোল: ছাপা আর আঁকা সংখ্যা CPU-ভেদে একই থাকে।"""
    return float(f"{x:.{digits}g}")


def _init(layer: nn.Linear, how: str) -> None:
    """একটি Linear-এর শুরুর মান, নাম ধরে। ``default`` মানে nn.Linear নিজে যা দিয়েছে তা-ই।"""
    if how == "default":
        return
    if how == "normal-1":
        nn.init.normal_(layer.weight, std=1.0)
    elif how == "normal-0.01":
        nn.init.normal_(layer.weight, std=0.01)
    elif how == "xavier":
        nn.init.xavier_uniform_(layer.weight)
    elif how == "xavier-tanh":
        nn.init.xavier_uniform_(layer.weight, gain=nn.init.calculate_gain("tanh"))
    elif how == "kaiming":
        nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
    else:
        raise ValueError(how)
    nn.init.zeros_(layer.bias)


def deep_stack(how: str, act: str = "relu", norm: str | None = None, depth: int = DEPTH,
               width: int = WIDTH, seed: int = 0) -> nn.Sequential:
    """``depth``টি (Linear → [norm] → activation), সব ``width`` চওড়া, float64-এ।"""
    torch.manual_seed(seed)
    layers: list[nn.Module] = []
    for _ in range(depth):
        linear = nn.Linear(width, width)
        _init(linear, how)
        layers.append(linear)
        if norm == "batch":
            layers.append(nn.BatchNorm1d(width))
        elif norm == "layer":
            layers.append(nn.LayerNorm(width))
        layers.append(nn.ReLU() if act == "relu" else nn.Tanh())
    return nn.Sequential(*layers).double()


def probe(model: nn.Sequential, seed: int = 1) -> dict:
    """একটি forward আর backward: প্রতিটি activation-এর পরে output-এর std (প্রতিটি unit-এর std,
    ৫১২টি input জুড়ে, তারপর unit-গুলোর গড়: output input-এর সঙ্গে কতটা বদলায়), আর সেই output-এর
    gradient-এর norm (loss = শেষ output-এর গড়)। ফেরত: স্তর ১ থেকে শেষ পর্যন্ত দুটি তালিকা।"""
    gen = torch.Generator().manual_seed(seed)
    h = torch.randn(BATCH, model[0].in_features, generator=gen, dtype=torch.float64)
    outs = []
    for layer in model:
        h = layer(h)
        if isinstance(layer, (nn.ReLU, nn.Tanh)):
            h.retain_grad()
            outs.append(h)
    h.mean().backward()
    return {"std": [sig(o.std(0).mean().item()) for o in outs],
            "grad": [sig(o.grad.norm().item()) for o in outs]}


def scale_demo() -> dict:
    """অংশ ১: ReLU জাল, তিন রকম শুরু। ``N(0, 1)`` ফাটে, ``N(0, 0.01²)`` মিলিয়ে যায়, He ঠিক থাকে।"""
    runs = {how: probe(deep_stack(how)) for how in ("normal-1", "normal-0.01", "kaiming")}
    return {"runs": runs, "depth": DEPTH, "width": WIDTH}


SCALE_NAMES = {"normal-1": "N(0, 1)", "normal-0.01": "N(0, 0.01²)", "kaiming": "He (kaiming_normal_)",
               "default": "nn.Linear-এর নিজের", "xavier": "Xavier (gain 1)",
               "xavier-tanh": "Xavier (gain tanh)"}


#: টেবিলের নাম ASCII-তে: monospace-এ বাংলা অক্ষরের প্রস্থ আলাদা, কলাম সরে যেত
TABLE_NAMES = {"normal-1": "N(0, 1)", "normal-0.01": "N(0, 0.01^2)", "kaiming": "He",
               "default": "nn.Linear default", "xavier": "Xavier", "xavier-tanh": "Xavier, gain tanh",
               None: "none", "batch": "BatchNorm1d", "layer": "LayerNorm"}


def format_scale(r: dict) -> str:
    rows = [f"{'init':<13}{'std@1':>10}{'std@30':>10}{'grad@1':>11}{'grad@30':>10}"]
    for how, run in r["runs"].items():
        rows.append(f"{TABLE_NAMES[how]:<13}{run['std'][0]:>10.3g}{run['std'][-1]:>10.3g}"
                    f"{run['grad'][0]:>11.3g}{run['grad'][-1]:>10.3g}")
    return "\n".join(rows)


def default_bound_demo(fan_in: int = WIDTH) -> dict:
    """nn.Linear-এর নিজের শুরু: kaiming_uniform_(a=√5) → U(-1/√fan_in, 1/√fan_in); variance 1/(3·fan_in)।"""
    torch.manual_seed(0)
    w = nn.Linear(fan_in, 4096).weight.detach().double()
    gain = nn.init.calculate_gain("leaky_relu", math.sqrt(5))
    return {"fan_in": fan_in, "gain": gain, "bound": gain * math.sqrt(3 / fan_in),
            "max": w.abs().max().item(), "var_times_fan_in": sig(w.var().item() * fan_in),
            "relu_factor": sig(math.sqrt(fan_in * w.var().item() / 2))}


def format_default_bound(d: dict) -> str:
    return "\n".join([
        f"calculate_gain('leaky_relu', √5) = {d['gain']:.4f}",
        f"সীমা gain·√(3/fan_in) = {d['bound']:.4f};  1/√{d['fan_in']} = {1 / math.sqrt(d['fan_in']):.4f}",
        f"সবচেয়ে বড় |w| = {d['max']:.4f}",
        f"fan_in × Var(w) = {d['var_times_fan_in']:.3g}   (আশা 1/3)",
        f"ReLU স্তরে std-এর গুণক √(fan_in·Var(w)/2) = {d['relu_factor']:.3g}",
    ])


def gain_table() -> dict:
    return {name: nn.init.calculate_gain(name) for name in ("linear", "sigmoid", "tanh", "relu")}


def format_gains(g: dict) -> str:
    return "\n".join(f"calculate_gain({name!r:<10}) = {value:.4f}" for name, value in g.items())


def init_compare() -> dict:
    """অংশ ২: tanh আর ReLU জালে nn.Linear-এর নিজের শুরু, Xavier আর He, স্তরে স্তরে std।"""
    tanh = {how: probe(deep_stack(how, act="tanh"))["std"] for how in ("default", "xavier", "xavier-tanh")}
    relu = {how: probe(deep_stack(how, act="relu"))["std"] for how in ("default", "xavier", "kaiming")}
    return {"tanh": tanh, "relu": relu}


def format_init_compare(r: dict) -> str:
    rows = [f"{'act':<6}{'init':<20}{'std@1':>10}{'std@10':>10}{'std@30':>10}"]
    for act in ("tanh", "relu"):
        for how, std in r[act].items():
            rows.append(f"{act:<6}{TABLE_NAMES[how]:<20}{std[0]:>10.3g}{std[9]:>10.3g}{std[-1]:>10.3g}")
    return "\n".join(rows)


def _features(n: int = 320):
    split = split_orders()
    return split.X_train[:n]


def batchnorm_by_hand() -> dict:
    """অংশ ৩: ডেলিভারি অর্ডারের কাঁচা ৩২টি সারি BatchNorm1d(3)-এ, train mode; হাতের সূত্রের সঙ্গে মিল।"""
    x = _features()[:32]
    bn = nn.BatchNorm1d(3)
    y = bn(x)
    mean = x.mean(0)
    var_biased = x.var(0, unbiased=False)
    by_hand = (x - mean) / torch.sqrt(var_biased + bn.eps)
    return {"x_mean": [sig(v, 3) for v in mean.tolist()], "x_std": [sig(v, 3) for v in x.std(0).tolist()],
            "y_mean": [round(v, 3) + 0.0 for v in y.mean(0).tolist()],
            "y_std": [round(v, 3) + 0.0 for v in y.std(0, unbiased=False).tolist()],
            "same": bool(torch.allclose(y, by_hand, atol=1e-5)), "eps": bn.eps,
            "params": [n for n, _ in bn.named_parameters()], "buffers": [n for n, _ in bn.named_buffers()]}


def format_batchnorm_by_hand(d: dict) -> str:
    return "\n".join([
        f"input-এর গড়:   {d['x_mean']}",
        f"input-এর std:   {d['x_std']}",
        f"output-এর গড়:  {d['y_mean']}",
        f"output-এর std:  {d['y_std']}",
        f"হাতের সূত্রের সঙ্গে মিল: {d['same']}",
    ])


def running_demo() -> dict:
    """একটি train-mode forward-এর পরে buffer কতটা সরে, আর সূত্রের সঙ্গে মিলে কি না।"""
    x = _features()[:32]
    bn = nn.BatchNorm1d(3)
    before = bn.running_mean.clone()
    out = bn(x)
    m = bn.momentum
    expect_mean = (1 - m) * before + m * x.mean(0)
    expect_var = (1 - m) * torch.ones(3) + m * x.var(0, unbiased=True)
    return {"running_mean": [sig(v) for v in bn.running_mean.tolist()],
            "running_var": [sig(v) for v in bn.running_var.tolist()],
            "tracked": int(bn.num_batches_tracked), "momentum": m,
            "mean_ok": bool(torch.allclose(bn.running_mean, expect_mean)),
            "var_ok": bool(torch.allclose(bn.running_var, expect_var)),
            "buffer_grad": bn.running_mean.requires_grad, "out_grad_fn": type(out.grad_fn).__name__}


def format_running(d: dict) -> str:
    return "\n".join([
        f"running_mean: {d['running_mean']}",
        f"running_var:  {d['running_var']}",
        f"num_batches_tracked: {d['tracked']}",
        f"momentum-এর সূত্রের সঙ্গে মিল: গড় {d['mean_ok']}, variance {d['var_ok']}",
        f"running_mean.requires_grad: {d['buffer_grad']}",
    ])


def running_trace(steps: int = 60) -> dict:
    """দূরত্বের running_mean, batch-এর পর batch (৩২-এর mini-batch, পর্ব ১০-এর loader): তিনটি momentum।"""
    split = split_orders()
    target = split.X_train[:, 0].double().mean().item()
    traces = {}
    for momentum in (0.1, 0.01, None):
        bn = nn.BatchNorm1d(3, momentum=momentum)
        loader = make_loader(split.X_train, split.y_train, seed=0)
        trace = []
        while len(trace) < steps:
            for xb, _ in loader:
                bn(xb)
                trace.append(sig(bn.running_mean[0].item()))
                if len(trace) == steps:
                    break
        traces[momentum] = trace
    return {"traces": traces, "target": sig(target), "steps": steps}


def train_mode_bug() -> dict:
    """অংশ ৪: একই অর্ডার, দুই রকম সঙ্গী। train mode-এ উত্তর সঙ্গীর ওপর নির্ভর করে, eval-এ করে না।"""
    model = norm_compare(epochs=5, norms=("batch",))["models"]["batch"]
    split = split_orders()
    X_val = split.X_val.double()
    order = X_val[:1]
    near = torch.cat([order, X_val[1:8]])                                  # সাধারণ সঙ্গী
    far = torch.cat([order, X_val[8:16] * 0 + X_val[8:16].max(0).values])  # সব দূরের, বড় অর্ডার
    answers = {}
    for mode in ("train", "eval"):
        model.train(mode == "train")
        with torch.no_grad():
            answers[mode] = [sig(model(near)[0].item()), sig(model(far)[0].item())]
    model.eval()
    return {"answers": answers, "target": sig(split.y_val[0].item())}


def format_train_mode_bug(d: dict) -> str:
    return "\n".join([
        f"train mode: সাধারণ সঙ্গীদের সঙ্গে {d['answers']['train'][0]:.3g} মিনিট, বড় অর্ডারের সঙ্গে {d['answers']['train'][1]:.3g} মিনিট",
        f"eval mode:  সাধারণ সঙ্গীদের সঙ্গে {d['answers']['eval'][0]:.3g} মিনিট, বড় অর্ডারের সঙ্গে {d['answers']['eval'][1]:.3g} মিনিট",
    ])


def tiny_batch_demo(epochs: int = 4) -> dict:
    """batch-এর মাপ ২, ৮ আর ৩২-এ দূরত্বের batch-গড় কতটা লাফায়; দুটি সারির BatchNorm কী দেয়;
    আর batch ২-এ (ছোট lr, ১e-৪) তিনটি model-এর validation loss।"""
    split = split_orders()
    spread = {}
    for size in (2, 8, 32):
        loader = make_loader(split.X_train, split.y_train, batch_size=size, seed=0)
        means = torch.stack([xb[:, 0].mean() for xb, _ in loader if len(xb) == size])
        spread[size] = sig(means.std().item())
    pair = nn.BatchNorm1d(3)(split.X_train[:2])
    run = norm_compare(epochs=epochs, batch_size=2, lr=1e-4)
    return {"spread": spread, "pair": [[round(v, 2) + 0.0 for v in row] for row in pair.tolist()],
            "val": {norm: h.val[-1] for norm, h in run["histories"].items()}, "epochs": epochs}


def format_tiny_batch(d: dict) -> str:
    rows = [f"batch {size:>2}: দূরত্বের batch-গড়ের ওঠানামা (std) {s:.3g} km" for size, s in d["spread"].items()]
    rows.append(f"দুটি সারির BatchNorm: {d['pair']}")
    # BatchNorm-এর সংখ্যাটি ছাপা হয় না, শুধু তার সীমা: দুটি সারির normalize-এ প্রায়-শূন্য তফাত
    # ভাগ হয় প্রায়-শূন্য std দিয়ে, তাই float64-এও CPU-ভেদে মান আলাদা (দুটি CPU-তে ১৫৮ আর ১৯৪)
    for norm, v in d["val"].items():
        shown = f"> 50: {v > 50}" if norm == "batch" else f"{v:.3g}"
        rows.append(f"batch 2, {d['epochs']} epoch, {TABLE_NAMES[norm]:<12} validation loss {shown}")
    return "\n".join(rows)


def layernorm_demo() -> dict:
    """অংশ ৫: LayerNorm প্রতিটি সারিকে নিজের feature জুড়ে normalize করে; batch-এর মাপ বা mode-এ কিছু বদলায় না।"""
    torch.manual_seed(0)
    x = torch.randn(4, 16, dtype=torch.float64) * 5 + 3
    ln = nn.LayerNorm(16).double()
    y = ln(x)
    alone = ln(x[:1])
    ln.eval()
    y_eval = ln(x)
    tokens = torch.randn(2, 5, 16, dtype=torch.float64)
    t = ln(tokens)
    return {"row_mean": [round(v, 3) + 0.0 for v in y.mean(-1).tolist()],
            "row_std": [round(v, 3) + 0.0 for v in y.std(-1, unbiased=False).tolist()],
            "alone_same": bool(torch.allclose(alone, y[:1])), "eval_same": bool(torch.equal(y_eval, y)),
            "buffers": [n for n, _ in ln.named_buffers()], "params": [n for n, _ in ln.named_parameters()],
            "token_shape": list(t.shape), "token_std": sig(t.std(-1, unbiased=False).mean().item())}


def format_layernorm(d: dict) -> str:
    return "\n".join([
        f"প্রতিটি সারির গড়: {d['row_mean']}",
        f"প্রতিটি সারির std: {d['row_std']}",
        f"একা একটি সারি দিলে একই উত্তর: {d['alone_same']}",
        f"eval mode-এ একই উত্তর: {d['eval_same']}",
        f"buffer: {d['buffers']}   parameter: {d['params']}",
    ])


class NormDeliveryMLP(nn.Module):
    """পর্ব ০৯-এর DeliveryMLP-এর কাঠামো (৩ → ১৬ → ৮ → ১, input standardize করা), Dropout ছাড়া;
    প্রতিটি লুকানো Linear-এর পরে, ReLU-এর আগে ঐচ্ছিক BatchNorm1d বা LayerNorm।"""

    def __init__(self, x_mean, x_std, norm: str | None = None, widths=(16, 8)):
        super().__init__()
        self.register_buffer("x_mean", torch.as_tensor(x_mean).clone())
        self.register_buffer("x_std", torch.as_tensor(x_std).clone())
        layers: list[nn.Module] = []
        n_in = 3
        for n_out in widths:
            layers.append(nn.Linear(n_in, n_out))
            if norm == "batch":
                layers.append(nn.BatchNorm1d(n_out))
            elif norm == "layer":
                layers.append(nn.LayerNorm(n_out))
            layers.append(nn.ReLU())
            n_in = n_out
        self.hidden = nn.Sequential(*layers)
        self.head = nn.Linear(n_in, 1)

    def forward(self, x):
        return self.head(self.hidden((x - self.x_mean) / self.x_std)).squeeze(-1)


NORMS = {None: "normalization ছাড়া", "batch": "BatchNorm1d", "layer": "LayerNorm"}


def norm_compare(epochs: int = 20, norms=(None, "batch", "layer"), lr: float = 3e-3,
                 momentum: float = 0.9, batch_size: int = 32, widths=(16, 8), bad_init: float | None = None) -> dict:
    """একই ডেটা, একই seed, একই SGD (momentum 0.9), একই loader; শুধু norm আলাদা।
    ``bad_init`` দিলে প্রতিটি Linear-এর weight N(0, bad_init²), bias শূন্য।"""
    # float64: BatchNorm-এর ছোট batch-এ প্রায়-সমান দুটি মানের তফাত ছোট std দিয়ে ভাগ হয়, তাই
    # float32-এর শেষ bit-এর CPU-ভেদ কয়েকশো ধাপে চোখে পড়ার মতো বড় হতো
    split = split_orders()
    X_train, y_train, X_val, y_val = (t.double() for t in (split.X_train, split.y_train, split.X_val, split.y_val))
    histories, models = {}, {}
    for norm in norms:
        torch.manual_seed(0)
        model = NormDeliveryMLP(split.X_train.mean(0), split.X_train.std(0), norm=norm, widths=widths).double()
        if bad_init is not None:
            for layer in model.modules():
                if isinstance(layer, nn.Linear):
                    nn.init.normal_(layer.weight, std=bad_init)
                    nn.init.zeros_(layer.bias)
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
        loader = make_loader(X_train, y_train, batch_size=batch_size, seed=0)
        history = History()
        for _ in range(epochs):
            history.train.append(sig(train_epoch(model, opt, loader)))
            history.val.append(sig(evaluate(model, X_val, y_val)))
        histories[norm], models[norm] = history, model
    return {"histories": histories, "models": models, "epochs": epochs}


def format_norm_compare(r: dict) -> str:
    rows = [f"{'norm':<13}{'epoch 1':>9}{'epoch 5':>9}{'best':>8}{'last':>8}"]
    for norm, h in r["histories"].items():
        rows.append(f"{TABLE_NAMES[norm]:<13}{h.val[0]:>9.3g}{h.val[4]:>9.3g}{min(h.val):>8.3g}{h.val[-1]:>8.3g}")
    return "\n".join(rows)


def affine_demo(trained: nn.Module) -> dict:
    """শেখা BatchNorm-এর γ (weight) আর β (bias): শুরুতে ১ আর ০, শেখার পরে কোথায়।"""
    bn = trained.hidden[1]
    plain = nn.BatchNorm1d(8, affine=False)
    ln_plain = nn.LayerNorm(8, elementwise_affine=False)
    return {"gamma": [sig(v, 2) for v in bn.weight.detach()[:4].tolist()],
            "beta": [sig(v, 2) for v in bn.bias.detach()[:4].tolist()],
            "gamma_moved": sig((bn.weight.detach() - 1).abs().max().item(), 2),
            "plain_params": len(list(plain.parameters())), "plain_buffers": [n for n, _ in plain.named_buffers()],
            "ln_plain_params": len(list(ln_plain.parameters()))}


def format_affine(d: dict) -> str:
    return "\n".join([
        f"শেখার পরে γ (প্রথম চারটি): {d['gamma']}",
        f"শেখার পরে β (প্রথম চারটি): {d['beta']}",
        f"affine=False: parameter {d['plain_params']}টি, buffer {d['plain_buffers']}",
        f"elementwise_affine=False: parameter {d['ln_plain_params']}টি",
    ])


def forgive_stack() -> dict:
    """অংশ ৬: N(0, 0.01²)-এর মরা শুরু, ৩০ স্তর; normalization ছাড়া, BatchNorm আর LayerNorm-সহ।"""
    return {norm: probe(deep_stack("normal-0.01", norm=norm)) for norm in (None, "batch", "layer")}


def forgive_training(epochs: int = 20) -> dict:
    """ছয় স্তরের ডেলিভারি model, প্রতিটি weight N(0, 0.01²): norm ছাড়া আর BatchNorm-সহ।"""
    return norm_compare(epochs=epochs, norms=(None, "batch"), widths=(16, 16, 16, 16, 16, 8), bad_init=0.01)


def format_forgive(stack: dict, train: dict) -> str:
    rows = [f"{TABLE_NAMES[norm]:<12} স্তর 30-এ std {run['std'][-1]:.3g}, স্তর 1-এর gradient {run['grad'][0]:.3g}"
            for norm, run in stack.items()]
    rows += [f"{TABLE_NAMES[norm]:<12} {train['epochs']} epoch পরে validation loss {h.val[-1]:.3g}"
             for norm, h in train["histories"].items()]
    return "\n".join(rows)


# ---------------------------------------------------------------- ছবি

#: রেখার ধাঁচ: রং আর দাগ দুটোই আলাদা, যাতে ধূসর ছাপাতেও পড়া যায়
LOOKS = ({"color": "#b3261e", "ls": "--", "marker": "^"}, {"color": "#7a7a7a", "ls": ":", "marker": "v"},
         {"color": "#1f5fa8", "ls": "-", "marker": "o"})


def _style() -> None:
    try:
        import courseplot
    except ImportError:  # কোর্সের zip-এ courseplot না থাকলেও ছবি আঁকা চলে
        return
    courseplot.use_style()


def _powers_of_ten(ax) -> None:
    """log অক্ষের দাগ ১০-এর ঘাতে (10⁻²⁰ … 10²⁰): সাধারণ সংখ্যায় লিখলে ২১টি শূন্যের লেবেল হতো।"""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, numticks=6))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"$10^{{{round(math.log10(v))}}}$"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _layer_axes(ax, ylabel: str) -> None:
    _powers_of_ten(ax)
    ax.set_xlabel("স্তর")
    ax.set_ylabel(ylabel)


def plot_scale(r: dict):
    """স্তরে স্তরে activation-এর std (বাঁয়ে) আর gradient-এর norm (ডানে), log স্কেল।"""
    import matplotlib.pyplot as plt

    _style()
    fig, axes = plt.subplots(1, 2)
    for (how, run), look in zip(r["runs"].items(), LOOKS):
        layers = list(range(1, len(run["std"]) + 1))
        axes[0].plot(layers, run["std"], ms=4, markevery=3, label=SCALE_NAMES[how], **look)
        axes[1].plot(layers, run["grad"], ms=4, markevery=3, label=SCALE_NAMES[how], **look)
    _layer_axes(axes[0], "activation-এর std")
    _layer_axes(axes[1], "gradient-এর norm")
    axes[0].set_title("forward")
    axes[1].set_title("backward")
    axes[0].legend(loc="upper left")          # বাঁয়ের ওপরের কোণ ফাঁকা: রেখাগুলো সেখানে যায় না
    return fig


def plot_init_compare(r: dict):
    import matplotlib.pyplot as plt

    _style()
    fig, axes = plt.subplots(1, 2, sharey=True)
    for ax, act in zip(axes, ("tanh", "relu")):
        for (how, std), look in zip(r[act].items(), LOOKS):
            ax.plot(range(1, len(std) + 1), std, ms=4, markevery=3, label=SCALE_NAMES[how], **look)
        _layer_axes(ax, "activation-এর std")
        ax.set_title(f"{act} জাল")
        ax.legend(loc="lower left")
    return fig


def plot_running(r: dict):
    import matplotlib.pyplot as plt

    _style()
    fig, ax = plt.subplots()
    for (momentum, trace), look in zip(r["traces"].items(), LOOKS):
        label = "momentum=None (সোজা গড়)" if momentum is None else f"momentum={momentum}"
        ax.plot(range(1, len(trace) + 1), trace, ms=4, markevery=6, label=label, **look)
    ax.axhline(r["target"], color="#333333", lw=1, label="training অংশের আসল গড়")
    ax.set_xlabel("কতগুলো batch দেখেছে")
    ax.set_ylabel("running_mean (দূরত্ব, km)")
    ax.legend(loc="lower right")
    return fig


def plot_norm_compare(r: dict, title: str | None = None):
    import matplotlib.pyplot as plt

    _style()
    fig, ax = plt.subplots()
    for (norm, h), look in zip(r["histories"].items(), LOOKS):
        ax.plot(range(1, len(h.val) + 1), h.val, ms=4, markevery=3, label=NORMS[norm], **look)
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.set_ylabel("validation loss (MSE)")
    if title:
        ax.set_title(title)
    ax.legend(loc="upper right")
    return fig


def plot_forgive(stack: dict, train: dict):
    import matplotlib.pyplot as plt

    _style()
    fig, axes = plt.subplots(1, 2)
    for (norm, run), look in zip(stack.items(), LOOKS):
        axes[0].plot(range(1, len(run["std"]) + 1), run["std"], ms=4, markevery=3, label=NORMS[norm], **look)
    _layer_axes(axes[0], "activation-এর std")
    axes[0].set_title("ত্রিশ স্তর, N(0, 0.01²)")
    axes[0].legend(loc="lower left")
    for (norm, h), look in zip(train["histories"].items(), LOOKS):
        axes[1].plot(range(1, len(h.val) + 1), h.val, ms=4, markevery=3, label=NORMS[norm], **look)
    _powers_of_ten(axes[1])
    axes[1].set_xlabel("epoch")
    axes[1].set_ylabel("validation loss")
    axes[1].set_title("ছয় স্তরের ডেলিভারি model")
    axes[1].legend(loc="upper right")
    return fig
