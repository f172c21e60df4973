"""পরীক্ষা ৬ · model.train() বনাম model.eval()

চালান:  python 06_modes.py

সেভ করা state_dict নতুন model-এ বসিয়ে বৃষ্টির দিনের নমুনা অর্ডারটি তিনটি করে pass:
train mode-এ (Dropout প্রতিবার আলাদা) আর eval mode-এ (একই উত্তর);
eval-এও requires_grad True, no_grad-এ False; Dropout(0.5) ones(8)-এ; দুই mode-এ MSE;
আর NumPy-তে লেখা inverted dropout-এর পরিসংখ্যান।
"""

import tempfile
from pathlib import Path

import torch

import _setup_path  # noqa: F401
from bazarghar import train_delivery_model
from bazarghar.experiments import format_modes, modes_demo


def main() -> dict:
    model, _, _, _ = train_delivery_model()
    with tempfile.TemporaryDirectory() as workdir:
        state_path = Path(workdir) / "delivery_mlp.pt"
        torch.save(model.state_dict(), state_path)
        result = modes_demo(state_path, seed=7)
    print(format_modes(result))
    return result


if __name__ == "__main__":
    main()
