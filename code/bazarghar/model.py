"""DeliveryMLP: বাজারঘরের ডেলিভারি সময় অনুমানের MLP (স্তর ৩ → ১৬ → ৮ → ১)।"""

from __future__ import annotations

import torch
from torch import nn

from .data import DATA_SEED, make_orders

__all__ = ["DeliveryMLP", "build_model", "STATE_KEYS", "N_PARAMS"]

#: state_dict-এর key, ক্রমসহ
STATE_KEYS = (
    "x_mean",
    "x_std",
    "hidden.0.weight",
    "hidden.0.bias",
    "hidden.3.weight",
    "hidden.3.bias",
    "head.weight",
    "head.bias",
)
#: মোট শেখার যোগ্য parameter: 64 + 136 + 9
N_PARAMS = 209


class DeliveryMLP(nn.Module):
    """আগে input standardize, তারপর স্তর ৩ → ১৬ → ৮ → ১; output-এর আকার (N,)।

    ``x_mean`` আর ``x_std`` buffer: ফাইলে আর .to()/.double()-এ model-এর সঙ্গী,
    optimizer-এর তালিকায় (parameters()) অনুপস্থিত। কোনো আর্গুমেন্ট না দিলে গড় ০ আর std ১।
    """

    # pickle-এ class-এর পথ "bazarghar.DeliveryMLP" (package থেকেই import করা যায়)
    __module__ = "bazarghar"

    def __init__(self, x_mean=None, x_std=None, p_drop: float = 0.1):
        super().__init__()
        if x_mean is None:
            x_mean = torch.zeros(3)
        if x_std is None:
            x_std = torch.ones(3)
        self.register_buffer("x_mean", torch.as_tensor(x_mean, dtype=torch.float32).clone())
        self.register_buffer("x_std", torch.as_tensor(x_std, dtype=torch.float32).clone())
        self.hidden = nn.Sequential(
            nn.Linear(3, 16),
            nn.ReLU(),
            nn.Dropout(p_drop),
            nn.Linear(16, 8),
            nn.ReLU(),
        )
        self.head = nn.Linear(8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        standardized = (x - self.x_mean) / self.x_std
        features = self.hidden(standardized)
        return self.head(features).squeeze(-1)


def build_model(seed: int = DATA_SEED, n: int = 400, p_drop: float = 0.1) -> DeliveryMLP:
    """``make_orders(n, seed)``-এর গড় আর std দিয়ে model বানায়, weight আসে
    ``torch.manual_seed(seed)``-এর পরে। একই seed-এ প্রতিবার হুবহু একই model।

    (পর্বের run: seed 42-এ প্রথম Linear-এর সবচেয়ে বড় |weight| ০.৫৭০২।)
    """
    X, _ = make_orders(n=n, seed=seed)
    torch.manual_seed(seed)
    # গড় আর std float64-এ: float32-এর যোগফল CPU-র vector-প্রস্থের ওপর নির্ভর করে
    X = X.double()
    return DeliveryMLP(X.mean(0).float(), X.std(0).float(), p_drop=p_drop)
