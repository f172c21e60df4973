"""পর্ব ১০ · পরীক্ষা ১৫ · DataLoader-এর RNG: generator আর worker

চালান:  python 15_loader_rng.py

generator ছাড়া loader global RNG থেকে টানে (Dropout-এর mask বদলায়); দুই worker-এ dataset-এর
নিজের RNG হুবহু কপি হয়, worker_init_fn (seed_worker) তাকে আলাদা আর পুনরাবৃত্তিযোগ্য করে।
"""

import _setup_path  # noqa: F401
from bazarghar.experiments import format_loader_rng, loader_rng_demo


def main() -> dict:
    result = loader_rng_demo()
    print(format_loader_rng(result))
    return result


if __name__ == "__main__":
    main()
