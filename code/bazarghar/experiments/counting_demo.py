"""অংশ ৪-এর হিসাবযন্ত্র: পাঁচটি Linear-এর stack হাতে গোনা, আর nn.Sequential বানিয়ে মেলানো।"""

from __future__ import annotations

from ..counting import (
    SEED_STACKS,
    bottleneck_ratio,
    count_params,
    layer_breakdown,
    mlp_param_count,
    param_memory_kib,
    sequential_mlp,
    stack_report,
)


def counting_demo() -> dict:
    """ফেরত dict: ``stacks`` (প্রতিটি stack-এর sizes, bias, স্তর, মোট, KiB, nn.Sequential-এ
    গোনা), ``ratio`` (চওড়া ÷ bottleneck ≈ ৭.৯), ``first_layer_share`` (৭৮৪-এর stack-এ
    প্রথম স্তরের ভাগ), ``bias_saving`` (৭৮৪-এর stack-এ bias বাদে কমে কত)।"""
    stacks = []
    for sizes, bias in SEED_STACKS:
        total = mlp_param_count(sizes, bias)
        stacks.append(
            {
                "sizes": list(sizes),
                "bias": bias,
                "layers": layer_breakdown(sizes, bias),
                "total": total,
                "kib": param_memory_kib(total),
                "torch_total": count_params(sequential_mlp(sizes, bias)),
                "report": stack_report(sizes, bias),
            }
        )
    mnist = layer_breakdown((784, 256, 128, 10))
    return {
        "stacks": stacks,
        "ratio": bottleneck_ratio(),
        "first_layer_share": mnist[0].total / mlp_param_count((784, 256, 128, 10)),
        "bias_saving": mlp_param_count((784, 256, 128, 10)) - mlp_param_count((784, 256, 128, 10), False),
    }


def format_counting(r: dict) -> str:
    lines = []
    for s in r["stacks"]:
        lines.append(s["report"])
        lines.append(f"  (nn.Sequential বানিয়ে count_params: {s['torch_total']:,})")
    lines.append(f"সরু মাঝখানে সাশ্রয়: {r['ratio']:.1f} ভাগের এক ভাগ")
    lines.append(f"[784, 256, 128, 10]-এ প্রথম স্তরের ভাগ: {100 * r['first_layer_share']:.1f}%")
    lines.append(f"bias বাদ দিলে কমে: {r['bias_saving']}")
    return "\n".join(lines)
