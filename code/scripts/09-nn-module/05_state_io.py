"""পরীক্ষা ৫ · save, load, strict আর weights_only

চালান:  python 05_state_io.py

শেখানো model-এর state_dict সেভ করে: default torch.load, strict load, head-এর নাম
বদলালে Missing/Unexpected key, strict=False-এর ফেরত তালিকা, আকারের অমিল, আর পুরো
model torch.save করে default torch.load-এ UnpicklingError (weights_only), শেষে নিজের
ফাইলে weights_only=False। সব ফাইল একটি অস্থায়ী ফোল্ডারে।
"""

import tempfile
from pathlib import Path

import torch

import _setup_path  # noqa: F401
from bazarghar import train_delivery_model
from bazarghar.experiments import format_state_io, state_io_demo


def main() -> dict:
    model, history, _, _ = train_delivery_model()
    with tempfile.TemporaryDirectory() as workdir:
        state_path = Path(workdir) / "delivery_mlp.pt"
        torch.save(model.state_dict(), state_path)
        result = state_io_demo(state_path, workdir)
    print(format_state_io(result))
    return result


if __name__ == "__main__":
    main()
