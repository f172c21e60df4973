"""বাজারঘরের কাল্পনিক ডেলিভারি অর্ডার: seed দিয়ে বানানো, তাই প্রতিবার একই।

প্রতিটি অর্ডারে তিনটি feature:
  * দূরত্ব (km): সমবণ্টন U(0.5, 12)
  * পণ্যের সংখ্যা: ১ থেকে ৫, সমান সম্ভাবনায়
  * বৃষ্টি: ০ বা ১, বৃষ্টির সম্ভাবনা ০.৩

ডেলিভারির সময় (মিনিট) =
    20 + 2.5·দূরত্ব + 6·√পণ্য + 8·বৃষ্টি + 0.05·দূরত্ব² + noise,  noise ~ N(0, 2²)
অর্থাৎ noise-এর variance ৪: কোনো model-ই গড়ে এর চেয়ে ভালো MSE আশা করতে পারে না।
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = [
    "FEATURES",
    "NOISE_STD",
    "DATA_SEED",
    "SAMPLE_ORDERS",
    "DEMO_ORDER",
    "true_time",
    "make_orders_np",
    "make_orders",
    "make_data",
]

#: feature-এর নাম, X-এর কলামের ক্রমে
FEATURES = ("distance_km", "items", "rain")
#: noise-এর standard deviation (variance = 4)
NOISE_STD = 2.0
#: সারা পর্বের ডেটার seed
DATA_SEED = 42

#: পর্বের তিনটি নমুনা অর্ডার: (দূরত্ব, পণ্য, বৃষ্টি)
SAMPLE_ORDERS = ((2.0, 1.0, 0.0), (8.5, 3.0, 1.0), (11.0, 5.0, 0.0))
#: train/eval আর load-এর পরীক্ষায় ব্যবহৃত একটি অর্ডার: ৮.৫ km, ৩টি পণ্য, বৃষ্টি
DEMO_ORDER = (8.5, 3.0, 1.0)


def true_time(distance, items, rain):
    """noise ছাড়া আসল সময় (মিনিট); numpy array বা সংখ্যা দুটোই চলে।"""
    distance = np.asarray(distance, dtype=np.float64)
    items = np.asarray(items, dtype=np.float64)
    rain = np.asarray(rain, dtype=np.float64)
    return 20.0 + 2.5 * distance + 6.0 * np.sqrt(items) + 8.0 * rain + 0.05 * distance**2


def make_orders_np(n: int = 400, seed: int = DATA_SEED):
    """NumPy রূপ: X (n, 3) আর y (n,), দুটিই float64।"""
    if n < 1:
        raise ValueError("অন্তত একটি অর্ডার চাই")
    rng = np.random.default_rng(seed)
    distance = rng.uniform(0.5, 12.0, size=n)
    items = rng.integers(1, 6, size=n).astype(np.float64)
    rain = (rng.random(n) < 0.3).astype(np.float64)
    noise = rng.normal(0.0, NOISE_STD, size=n)
    X = np.column_stack([distance, items, rain])
    y = true_time(distance, items, rain) + noise
    return X, y


def make_orders(n: int = 400, seed: int = DATA_SEED):
    """PyTorch রূপ: X (n, 3) আর y (n,), দুটিই float32 tensor।"""
    X, y = make_orders_np(n, seed)
    return (torch.tensor(X, dtype=torch.float32), torch.tensor(y, dtype=torch.float32))


#: পর্বের পাতায় যে নামে ডাকা হয়
make_data = make_orders
