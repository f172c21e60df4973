"""Parameter গোনা: model থেকে, আর হাতে (Linear-এর stack-এর হিসাবযন্ত্র)।

নিয়ম: nn.Linear(in, out)-এ weight (out, in) আর bias (out,), তাই out·in + out
(bias=False হলে শুধু out·in)। ReLU, Dropout-এ parameter নেই।
Memory: float32-এ প্রতিটি parameter ৪ byte।
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

__all__ = [
    "LayerCount",
    "count_params",
    "layer_breakdown",
    "mlp_param_count",
    "param_memory_kib",
    "stack_report",
    "bottleneck_ratio",
    "sequential_mlp",
    "own_param_table",
    "named_param_table",
    "SEED_STACKS",
]

#: পর্বের হিসাবযন্ত্রে চালানো পাঁচটি stack: (sizes, bias)
SEED_STACKS = (
    ((3, 16, 8, 1), True),  # বাজারঘরের ডেলিভারি MLP
    ((784, 256, 128, 10), True),  # 28×28 ছবি → ১০টি শ্রেণি
    ((784, 256, 128, 10), False),
    ((1024, 1024), True),  # একটি চওড়া স্তর
    ((1024, 64, 1024), True),  # সরু মাঝখান (bottleneck)
)


@dataclass(frozen=True)
class LayerCount:
    """একটি nn.Linear(in_features, out_features)-এর গোনা।"""

    in_features: int
    out_features: int
    weights: int
    biases: int

    @property
    def total(self) -> int:
        return self.weights + self.biases

    @property
    def label(self) -> str:
        return f"Linear({self.in_features}, {self.out_features})"


def count_params(model: nn.Module, trainable_only: bool = False) -> int:
    """model-এর নিবন্ধিত সব parameter-এর মোট ঘর (numel)। buffer গোনায় আসে না।

    ``trainable_only=True`` দিলে শুধু ``requires_grad`` থাকা parameter (freeze করা বাদ)।
    """
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def layer_breakdown(sizes, bias: bool = True) -> list[LayerCount]:
    """``sizes``: input থেকে output পর্যন্ত স্তরের চওড়া; পরপর দুটি চওড়া মিলে একটি nn.Linear।"""
    sizes = [int(s) for s in sizes]
    if len(sizes) < 2:
        raise ValueError("অন্তত দুটি আকার চাই: [in, out]")
    if any(s < 1 for s in sizes):
        raise ValueError("প্রতিটি আকার ধনাত্মক হতে হবে")
    return [
        LayerCount(a, b, weights=a * b, biases=b if bias else 0)
        for a, b in zip(sizes, sizes[1:])
    ]


def mlp_param_count(sizes, bias: bool = True) -> int:
    """Linear stack-এর মোট parameter: [3, 16, 8, 1] → 209।"""
    return sum(layer.total for layer in layer_breakdown(sizes, bias))


def param_memory_kib(n_params: int, bytes_per: int = 4) -> float:
    """parameter-এর memory KiB-এ (float32-এ ৪ byte প্রতিটি; 1 KiB = 1024 byte)।"""
    return n_params * bytes_per / 1024


def stack_report(sizes, bias: bool = True, bytes_per: int = 4) -> str:
    """হিসাবযন্ত্রের ছাপা রূপ: প্রতিটি স্তরে weight + bias = মোট, শেষে মোট আর KiB।"""
    rows = [f"{list(sizes)}  bias={bias}"]
    total = 0
    for layer in layer_breakdown(sizes, bias):
        total += layer.total
        rows.append(f"  {layer.label}: {layer.weights:,} + {layer.biases} = {layer.total:,}")
    rows.append(f"  মোট {total:,} ≈ {param_memory_kib(total, bytes_per):,.1f} KiB (float32)")
    return "\n".join(rows)


def bottleneck_ratio(wide=(1024, 1024), thin=(1024, 64, 1024)) -> float:
    """চওড়া stack-এর parameter ÷ সরু মাঝখানের stack-এর parameter (১০২৪-এ ≈ ৭.৯)।"""
    return mlp_param_count(wide) / mlp_param_count(thin)


def sequential_mlp(sizes, bias: bool = True) -> nn.Sequential:
    """হিসাবযন্ত্রের stack-টি সত্যিকারের nn.Sequential হিসেবে (Linear-এর মাঝে ReLU),
    যাতে হাতের গোনা :func:`count_params`-এর সঙ্গে মেলানো যায়।"""
    layers: list[nn.Module] = []
    for i, layer in enumerate(layer_breakdown(sizes, bias)):
        if i:
            layers.append(nn.ReLU())
        layers.append(nn.Linear(layer.in_features, layer.out_features, bias=bias))
    return nn.Sequential(*layers)


def named_param_table(model: nn.Module) -> list[tuple[str, tuple, int]]:
    """``named_parameters()``-এর প্রতিটি সারি: (নাম, আকার, ঘরের সংখ্যা)।"""
    return [(name, tuple(p.shape), p.numel()) for name, p in model.named_parameters()]


def own_param_table(model: nn.Module) -> list[tuple[str, str, int]]:
    """``named_modules()`` ধরে প্রতিটি module-এর *নিজের* parameter (recurse=False),
    শুধু যাদের আছে: (পথ, class-এর নাম, সংখ্যা)। recurse=False-এ প্রতিটি module শুধু নিজের
    পকেট দেখায়; ওটা ছাড়া container আর root নিচের স্তরগুলোর সংখ্যা দ্বিতীয়বার লিখত।"""
    rows = []
    for path, mod in model.named_modules():
        count = sum(t.numel() for t in mod.parameters(recurse=False))
        if count:
            rows.append((path, type(mod).__name__, count))
    return rows
