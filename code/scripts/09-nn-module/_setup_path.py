"""script যেখান থেকেই চালানো হোক, bazarghar package খুঁজে পাওয়ার ব্যবস্থা।

কোডের zip-এ package থাকে scripts/-এর পাশে, আর প্রকল্পে code/scripts/09-nn-module/ থেকে দুই ধাপ
ওপরে code/-এ: তাই script-এর ফোল্ডার থেকে ওপরের দিকে প্রথম যে ফোল্ডারে bazarghar/ আছে, সেটিই।
"""

import sys
from pathlib import Path

try:
    import bazarghar  # noqa: F401
except ImportError:  # PYTHONPATH-এ code/ নেই
    here = Path(__file__).resolve().parent
    found = next(p for p in here.parents if (p / "bazarghar" / "__init__.py").is_file())
    sys.path.insert(0, str(found))
