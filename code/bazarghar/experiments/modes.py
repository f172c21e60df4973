"""পরীক্ষা ৬: model.train() বনাম model.eval() — শুধু একটি flag, কিন্তু ফল বদলায়।"""

from __future__ import annotations

from pathlib import Path

import torch

from ..data import DEMO_ORDER, make_orders
from ..dropout_np import dropout_stats_experiment
from ..model import DeliveryMLP
from ..train import mse


def _round_list(values, nd=2):
    return [round(v, nd) for v in values]


def modes_demo(state_path, seed: int = 7, data_seed: int = 42) -> dict:
    """``state_path``-এর state_dict নতুন model-এ load করে ``DEMO_ORDER``-কে প্রথমে
    train mode-এ, তারপর eval mode-এ, প্রতিবার তিনটি pass দেয়। ``torch.manual_seed(seed)`` ঠিক
    train-এর তিনটি pass-এর আগে।

    ফেরত dict: ``flags_train``, ``train_runs``, ``flags_eval``, ``eval_runs``,
    ``eval_requires_grad``, ``no_grad_requires_grad``, ``dropout_ones8``,
    ``mse_eval``, ``mse_train_mode``, ``numpy_dropout`` (NumPy inverted dropout-এর পরীক্ষা)।
    """
    model = DeliveryMLP(torch.zeros(3), torch.ones(3))
    model.load_state_dict(torch.load(Path(state_path)))
    order = torch.tensor([DEMO_ORDER])
    torch.manual_seed(seed)
    r: dict = {}

    model.train()  # নতুন model এমনিতেই train mode-এ
    r["flags_train"] = (model.training, model.hidden[2].training)
    r["train_runs"] = _round_list(model(order).item() for _ in range(3))
    model.eval()
    r["flags_eval"] = (model.training, model.hidden[2].training)
    r["eval_runs"] = _round_list(model(order).item() for _ in range(3))
    r["eval_requires_grad"] = model(order).requires_grad
    with torch.no_grad():
        r["no_grad_requires_grad"] = model(order).requires_grad
    drop = torch.nn.Dropout(p=0.5).train()
    r["dropout_ones8"] = drop(torch.ones(8)).tolist()

    X, y = make_orders(seed=data_seed)
    r["mse_eval"] = mse(model, X, y, train_mode=False)
    r["mse_train_mode"] = mse(model, X, y, train_mode=True)
    r["numpy_dropout"] = dropout_stats_experiment(42)
    return r


def format_modes(r: dict) -> str:
    from ..dropout_np import format_dropout_stats

    lines = [
        "training flags: {} {}".format(*r["flags_train"]),
        f"train mode, 3 বার: {r['train_runs']}",
        "training flags: {} {}".format(*r["flags_eval"]),
        f"eval mode, 3 বার: {r['eval_runs']}",
        f"eval mode-এর output-এ requires_grad: {r['eval_requires_grad']}",
        f"no_grad()-এর ভেতরের output-এ requires_grad: {r['no_grad_requires_grad']}",
        f"Dropout(0.5) on ones(8): {r['dropout_ones8']}",
        f"গড় বর্গ-ভুল, সব অর্ডার ধরে → eval {r['mse_eval']:.3f}, train {r['mse_train_mode']:.3f}",
        "",
        "— NumPy-র inverted dropout (np.random.default_rng(42)) —",
        format_dropout_stats(r["numpy_dropout"]),
    ]
    return "\n".join(lines)
