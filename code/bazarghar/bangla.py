"""সংখ্যাকে বাংলা অঙ্কে লেখা: ভারতীয় রীতির কমা (২,৩৫,১৪৬), দশমিক, ঋণাত্মক চিহ্ন,
বৈজ্ঞানিক রূপ (৩.৮ × ১০⁻¹³) আর tensor-এর আকার ((১৬, ৩))।

সব function বিশুদ্ধ: input বদলায় না, শুধু string ফেরত দেয়।
"""

from __future__ import annotations

import math
from decimal import Decimal
from numbers import Integral, Real

__all__ = ["bn", "bn_sci", "bn_shape", "bn_digits", "group_indian", "MINUS"]

_BN_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")

#: ছাপার ঋণাত্মক চিহ্ন (U+2212), hyphen নয়
MINUS = "\u2212"


def bn_digits(text) -> str:
    """যেকোনো string-এর ASCII অঙ্ক (0–9) বাংলা অঙ্কে বদলায়; বাকি সব অক্ষর যেমন ছিল।"""
    return str(text).translate(_BN_DIGITS)


def group_indian(digits: str) -> str:
    """অঙ্কের একটি string-এ ভারতীয় রীতিতে কমা: শেষে তিনটি, তারপর দুটি-দুটি।

    >>> group_indian("1049600")
    '10,49,600'
    """
    if not digits.isdigit():
        raise ValueError(f"শুধু অঙ্ক চাই, পাওয়া গেল {digits!r}")
    if len(digits) <= 3:
        return digits
    head, tail = digits[:-3], digits[-3:]
    pairs = []
    while len(head) > 2:
        pairs.insert(0, head[-2:])
        head = head[:-2]
    if head:
        pairs.insert(0, head)
    return ",".join(pairs + [tail])


def _as_number(x):
    """torch/numpy-র scalar হলে সাধারণ Python সংখ্যায় আনা।"""
    if isinstance(x, bool):
        raise TypeError("bool সংখ্যা হিসেবে ছাপা হয় না")
    if hasattr(x, "item") and not isinstance(x, (int, float)):
        x = x.item()
    if isinstance(x, Integral):
        return int(x)
    if isinstance(x, Real):
        return float(x)
    raise TypeError(f"সংখ্যা চাই, পাওয়া গেল {type(x).__name__}")


def _join(sign: str, int_part: str, frac_part: str, sep: bool) -> str:
    grouped = group_indian(int_part) if sep else int_part
    body = grouped + ("." + frac_part if frac_part else "")
    return bn_digits(sign + body)


def bn(x, decimals: int | None = None, sep: bool = True) -> str:
    """একটি সংখ্যাকে বাংলা অঙ্কে লেখে।

    * পূর্ণসংখ্যা: ``bn(235146)`` → ``"২,৩৫,১৪৬"`` (ভারতীয় রীতির কমা; ``sep=False`` দিলে কমা নেই)
    * ``decimals`` দিলে ঠিক ততগুলো দশমিক ঘর: ``bn(0.5702, 4)`` → ``"০.৫৭০২"``
    * ``decimals`` না দিলে float-এর সবচেয়ে ছোট সঠিক রূপ (Python-এর ``repr``);
      খুব বড় বা খুব ছোট হলে (যেখানে repr-এ e আসে) বৈজ্ঞানিক রূপ, :func:`bn_sci` দেখুন
    * ঋণাত্মক সংখ্যায় ছাপার minus চিহ্ন (−)
    """
    x = _as_number(x)
    if isinstance(x, float) and not math.isfinite(x):
        if math.isnan(x):
            return "NaN"
        return (MINUS if x < 0 else "") + "∞"
    if decimals is not None:
        if decimals < 0:
            raise ValueError("decimals ঋণাত্মক হতে পারে না")
        text = f"{x:.{decimals}f}"
    elif isinstance(x, int):
        text = str(x)
    else:
        text = repr(x)
        if "e" in text or "E" in text:
            return bn_sci(x, sig=None)
        if text.endswith(".0"):
            text = text[:-2]
    sign = ""
    if text.startswith("-"):
        text = text[1:]
        # "-0.00"-এর মতো শূন্যে চিহ্ন রাখার মানে নেই
        if any(ch not in "0." for ch in text):
            sign = MINUS
    int_part, _, frac_part = text.partition(".")
    return _join(sign, int_part, frac_part, sep)


def bn_sci(x, sig: int | None = 2) -> str:
    """বৈজ্ঞানিক রূপ: ``bn_sci(3.8e-13)`` → ``"৩.৮ × ১০⁻¹³"``।

    ``sig`` হলো mantissa-র significant অঙ্কের সংখ্যা (``None`` দিলে Python-এর
    সবচেয়ে ছোট সঠিক রূপ)। ঘাত ০ হলে শুধু mantissa: ``bn_sci(4.5)`` → ``"৪.৫"``।
    """
    x = _as_number(x)
    x = float(x)
    if not math.isfinite(x):
        return bn(x)
    if x == 0:
        return bn_digits("0")
    if sig is None:
        r = repr(x)
        mant, _, exp = r.partition("e") if "e" in r else _split_exact(x)
    else:
        if sig < 1:
            raise ValueError("sig অন্তত ১")
        mant, _, exp = f"{x:.{sig - 1}e}".partition("e")
    exponent = int(exp)
    sign = ""
    if mant.startswith("-"):
        sign, mant = MINUS, mant[1:]
    mant_bn = bn_digits(sign + mant)
    if exponent == 0:
        return mant_bn
    return f"{mant_bn} × ১০{str(exponent).translate(_SUPERSCRIPT)}"


def _split_exact(x: float):
    """repr-এর সবচেয়ে ছোট সঠিক অঙ্কগুলো থেকে mantissa আর ঘাত (যেমন 0.00038 → 3.8, −4)।"""
    sign, digits, exp = Decimal(repr(x)).normalize().as_tuple()
    text = "".join(map(str, digits))
    mant = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return ("-" if sign else "") + mant, "e", str(exp + len(text) - 1)


def bn_shape(shape) -> str:
    """Tensor-এর আকার বাংলা অঙ্কে, Python tuple-এর রূপে: ``(16, 3)`` → ``"(১৬, ৩)"``,
    ``(16,)`` → ``"(১৬,)"``, ``()`` → ``"()"``। torch.Size বা list-ও চলে।"""
    dims = [int(d) for d in shape]
    if len(dims) == 1:
        return bn_digits(f"({dims[0]},)")
    return bn_digits("(" + ", ".join(str(d) for d in dims) + ")")
