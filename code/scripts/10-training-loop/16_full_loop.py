"""পর্ব ১০ · অনুশীলনী ৪ · পুরো loop নিজের হাতে: দেরি হবে কি না

চালান:  python 16_full_loop.py

নতুন model (৩ → ১৬ → Dropout → ২, CrossEntropy, Adam): নিজের generator-এর DataLoader, প্রতি
epoch-এ validation-এর loss আর accuracy, epoch ৩-এ পূর্ণ checkpoint, আর অন্য seed-এর কাঠামোয়
resume — না-থামা run-এর সঙ্গে torch.equal-এ হুবহু এক।
"""

import tempfile
from pathlib import Path

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import _setup_path  # noqa: F401
from bazarghar.experiments import late_setup
from bazarghar.loop import split_orders

EPOCHS, STOP = 6, 3
_, X_tr, X_va, t_tr, t_va = late_setup(split_orders())  # float64, standardize করা
ce = nn.CrossEntropyLoss()


def build(seed):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Dropout(0.2),
                          nn.Linear(16, 2)).double()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    gen = torch.Generator().manual_seed(seed)
    loader = DataLoader(TensorDataset(X_tr, t_tr), batch_size=32,
                        shuffle=True, generator=gen)
    return model, opt, loader


def one_epoch(model, opt, loader):
    model.train()
    for xb, tb in loader:
        loss = ce(model(xb), tb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        logits = model(X_va)
    acc = (logits.argmax(1) == t_va).double().mean().item()
    return [ce(logits, t_va).item(), acc]


def save(path, model, opt, loader, done, history):
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                "epoch": done, "history": history,
                "rng": {"torch": torch.get_rng_state(),
                        "loader": loader.generator.get_state()}}, path)


def resume(path, seed):
    model, opt, loader = build(seed)             # অন্য seed: সব আসবে ফাইল থেকে
    ck = torch.load(path, weights_only=True)
    model.load_state_dict(ck["model"])
    opt.load_state_dict(ck["optimizer"])
    torch.set_rng_state(ck["rng"]["torch"])
    loader.generator.set_state(ck["rng"]["loader"])
    return model, opt, loader, ck["epoch"], ck["history"]


def main(workdir):
    model, opt, loader = build(0)                # না থেমে
    straight = [one_epoch(model, opt, loader) for _ in range(EPOCHS)]
    end = [p.detach().clone() for p in model.parameters()]

    model, opt, loader = build(0)                # থেমে, তারপর আবার
    history = [one_epoch(model, opt, loader) for _ in range(STOP)]
    save(Path(workdir) / "late.pt", model, opt, loader, STOP, history)
    del model, opt, loader
    model, opt, loader, done, history = resume(Path(workdir) / "late.pt", 7)
    history += [one_epoch(model, opt, loader) for _ in range(EPOCHS - done)]

    for e, (loss, acc) in enumerate(history, 1):
        print(f"epoch {e}: validation loss {loss:.4f} | accuracy {acc:.3f}")
    same = torch.equal(torch.tensor(straight), torch.tensor(history))
    params = all(torch.equal(a, b) for a, b in zip(end, model.parameters()))
    print(f"torch.equal(না থেমে, resume): history {same}, parameter {params}")
    return straight, history


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        main(tmp)
