"""পর্ব ১০ · পরীক্ষা ১১: SGD-momentum আর Adam-এর নিয়ম হাতে, NumPy-তে — ``opt.step()``-এর সঙ্গে মিলিয়ে।"""

from __future__ import annotations

import numpy as np
import torch

#: শুরুর weight আর লক্ষ্য: loss = Σ (w − target)², তাই gradient = 2 (w − target)
W0 = (0.5, -1.0, 2.0)
TARGET = (1.5, 0.5, -0.5)
STEPS = 5


def _torch_run(make_opt) -> list:
    w = torch.tensor(W0, dtype=torch.float64, requires_grad=True)
    target = torch.tensor(TARGET, dtype=torch.float64)
    opt = make_opt([w])
    out = []
    for _ in range(STEPS):
        loss = ((w - target) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(w.detach().numpy().copy())
    return out


def sgd_momentum_numpy(lr: float, momentum: float) -> list:
    w, target = np.array(W0), np.array(TARGET)
    buf, out = None, []
    for _ in range(STEPS):
        g = 2 * (w - target)
        buf = g.copy() if buf is None else momentum * buf + g   # ক্ষয়িষ্ণু যোগফল
        w = w - lr * buf
        out.append(w.copy())
    return out


def adam_numpy(lr: float, betas=(0.9, 0.999), eps: float = 1e-8) -> list:
    w, target = np.array(W0), np.array(TARGET)
    m, v, out = np.zeros(3), np.zeros(3), []
    b1, b2 = betas
    for t in range(1, STEPS + 1):
        g = 2 * (w - target)
        m = b1 * m + (1 - b1) * g                  # gradient-এর চলমান গড়
        v = b2 * v + (1 - b2) * g * g              # বর্গের চলমান গড়
        m_hat, v_hat = m / (1 - b1 ** t), v / (1 - b2 ** t)   # bias correction
        w = w - lr * m_hat / (np.sqrt(v_hat) + eps)
        out.append(w.copy())
    return out


def update_rules_demo(lr_sgd: float = 0.1, momentum: float = 0.9, lr_adam: float = 0.1) -> dict:
    sgd_np = sgd_momentum_numpy(lr_sgd, momentum)
    sgd_t = _torch_run(lambda p: torch.optim.SGD(p, lr=lr_sgd, momentum=momentum))
    adam_np = adam_numpy(lr_adam)
    adam_t = _torch_run(lambda p: torch.optim.Adam(p, lr=lr_adam))
    close = lambda a, b: all(np.allclose(x, y, rtol=0, atol=1e-12) for x, y in zip(a, b))  # noqa: E731
    return {"sgd_np": sgd_np, "sgd_torch": sgd_t, "adam_np": adam_np, "adam_torch": adam_t,
            "sgd_close": close(sgd_np, sgd_t), "adam_close": close(adam_np, adam_t),
            "adam_first_move": float(abs(adam_np[0][0] - W0[0])), "lr_adam": lr_adam}


def format_update_rules(r: dict) -> str:
    lines = ["ধাপ   SGD-momentum w[0]: NumPy / torch     Adam w[0]: NumPy / torch"]
    for i in (0, 1, STEPS - 1):  # প্রথম দুটি আর শেষটি
        lines.append(f"{i + 1:3d}   {r['sgd_np'][i][0]:9.6f} / {r['sgd_torch'][i][0]:9.6f}"
                     f"        {r['adam_np'][i][0]:9.6f} / {r['adam_torch'][i][0]:9.6f}")
    lines.append(f"সব ধাপে, তিনটি weight-এই মিল (1e-12-এর মধ্যে): SGD {r['sgd_close']}, Adam {r['adam_close']}")
    return "\n".join(lines)
