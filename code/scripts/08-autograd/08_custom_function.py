"""পর্ব ০৮ · পরীক্ষা ৮ · নিজের backward: RoundMinutes

চালান:  python 08_custom_function.py

পূর্ণ মিনিটে গোল করা সময়ে loss: torch.round-এর gradient শূন্য, RoundMinutes (straight-through,
০ থেকে ১৮০ মিনিটের ভেতরে) gradient ফেরায়; round ছাড়া যা আসত তার সঙ্গে তুলনা। শেষে হালকা আত্মীয় hook: w-এর gradient log করে আর কাটে।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import autograd as ag
from bazarghar.experiments import autograd_check as check


def clip_hook() -> dict:
    w, b, x = ag.start_tensors()
    seen = []

    def clip(g):
        seen.append(g.clone())      # log: যা এসেছিল
        return g.clamp(-20, 20)     # ফেরত দেওয়া মানটাই জমা হবে

    handle = w.register_hook(clip)
    ((w @ x + b - ag.ACTUAL_MINUTES) ** 2).backward()
    handle.remove()
    print("এসেছিল: ", seen[0])
    print("জমা হলো:", w.grad, "| b.grad:", b.grad)
    return {"seen": seen[0].tolist(), "w_grad": w.grad.tolist()}


def main() -> dict:
    result = check.round_demo()
    print(check.format_round(result))
    result["hook"] = clip_hook()
    return result


if __name__ == "__main__":
    main()
