"""script যেখান থেকেই চালানো হোক, code/ ফোল্ডারের bazarghar package খুঁজে পাওয়ার ব্যবস্থা।"""

import sys
from pathlib import Path

try:
    import bazarghar  # noqa: F401
except ImportError:  # PYTHONPATH-এ code/ নেই: script-এর দুই ধাপ ওপরের ফোল্ডার যোগ করা
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
