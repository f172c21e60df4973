"""পর্ব ০৮ · পরীক্ষা ৫ · ছয়টি ফাঁদ

চালান:  python 05_traps.py

প্রতিটি ফাঁদ আসল error বা আসল ভুল সংখ্যা হিসেবে: leaf-এ in-place, রাখা tensor-এ in-place,
.data, শূন্যে sqrt আর abs, int tensor, আর মাঝপথে Python সংখ্যা (গল্পের বাগ); শেষে প্রথম
backward-এর পরের যাচাই।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import autograd_traps as traps


def main() -> dict:
    result = traps.traps_demo()
    print(traps.format_traps(result))
    audit = traps.audit_demo()
    print(traps.format_audit(audit))
    return {"traps": result, "audit": audit}


if __name__ == "__main__":
    main()
