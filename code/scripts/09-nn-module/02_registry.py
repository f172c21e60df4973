"""পরীক্ষা ২ · nn.Module কী নিবন্ধন করে (__setattr__)

চালান:  python 02_registry.py

Tiny class-এ একটি submodule, একটি Parameter, একটি buffer, list-এ রাখা একটি Linear আর
একটি সাধারণ tensor। কোনটি কোন নিবন্ধন-তালিকায় (_modules/_parameters/_buffers) উঠল,
state_dict-এর key, double()-এর পরে কার dtype বদলাল, আর super().__init__() ভুলে গেলে কী error।
শেষে persistent=False buffer: named_buffers()-এ আছে, state_dict-এ নেই।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_registry, persistent_buffer_demo, registry_demo


def main() -> dict:
    result = registry_demo()
    print(format_registry(result))
    extra = persistent_buffer_demo()
    print()
    print("persistent=False buffer:")
    print("  named_buffers():", extra["named_buffers"])
    print("  state_dict()   :", extra["state_keys"])
    result["persistent"] = extra
    return result


if __name__ == "__main__":
    main()
