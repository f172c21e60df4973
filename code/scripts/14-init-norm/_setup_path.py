"""script যেখান থেকেই চালানো হোক, bazarghar package খুঁজে পাওয়ার ব্যবস্থা: রিপোজিটরিতে সে
আছে দুই ধাপ ওপরে (code/), কোডের zip-এ এক ধাপ ওপরে।"""

import sys
from pathlib import Path

try:
    import bazarghar  # noqa: F401
except ImportError:  # PYTHONPATH-এ নেই: ওপরের যে ফোল্ডারে bazarghar আছে, সেটি যোগ করা
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "bazarghar" / "__init__.py").is_file():
            sys.path.insert(0, str(parent))
            break
