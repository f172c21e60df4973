"""পর্ব ১০ · পরীক্ষা ১০ · loss function বাছাই

চালান:  python 10_loss_functions.py

(১) শেখানো delivery model-এর validation-এ MSE, MAE, Huber — আর একটি অর্ডার দুই ঘণ্টা দেরিতে
হলে কোনটি কতটা লাফায়; RMSE মিনিটে। (২) reduction: mean, sum, none। (৩) একই ডেটায়
দেরি/সময়মতো: CrossEntropy, শুরুর loss বনাম ln 2, validation-এর accuracy।
"""

import math

import torch
from torch import nn

import _setup_path  # noqa: F401
from bazarghar import experiments as ex


def main() -> None:
    tv = ex.train_val_demo()                         # অংশ ৪-এর training (script 04)
    split = tv["split"]

    # (১) একই prediction, তিনটি loss
    model = tv["model"].eval()
    with torch.no_grad():
        pred = model(split.X_val)
    y = split.y_val
    late = y.clone()
    late[0] += 120                                   # একটি অর্ডার দুই ঘণ্টা দেরিতে
    losses = {"MSE": nn.MSELoss(), "MAE": nn.L1Loss(), "Huber": nn.HuberLoss(delta=5.0)}
    for name, f in losses.items():
        print(f"{name:5s} {f(pred, y).item():8.3f} → একটি দেরিতে {f(pred, late).item():8.3f}")
    rmse = losses["MSE"](pred, y).sqrt().item()
    print(f"RMSE  {rmse:8.3f} মিনিট")

    # (২) reduction
    per = nn.MSELoss(reduction="none")(pred, y)
    total = nn.MSELoss(reduction="sum")(pred, y)
    worst = per.argmax().item()
    print(tuple(per.shape), f"| mean {per.mean().item():.3f} | sum {total.item():.1f}")
    print(f"সবচেয়ে বড় ভুল: অর্ডার {worst}, {per[worst].sqrt().item():.2f} মিনিট")

    # (৩) দেরি না সময়মতো: CrossEntropy, float64-এ full batch
    clf, X_tr, X_va, t_tr, t_va = ex.late_setup(split)
    ce = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(clf.parameters(), lr=0.01)
    with torch.no_grad():
        first = ce(clf(X_tr), t_tr).item()
    for _ in range(300):
        loss = ce(clf(X_tr), t_tr)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        logits = clf(X_va)
    acc = (logits.argmax(1) == t_va).double().mean().item()
    print(f"শুরুতে {first:.4f} (ln 2 = {math.log(2):.4f}) | শেষে {loss.item():.4f}")
    print(f"validation: loss {ce(logits, t_va).item():.4f} | accuracy {acc:.3f}")


if __name__ == "__main__":
    main()
