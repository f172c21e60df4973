"""পর্ব ১০ · পরীক্ষা ৮ · থেমে আবার শুরু

চালান:  python 08_resume.py

২০ epoch না থেমে, আর ১০-এ checkpoint রেখে নতুন করে শুরু: loss আর parameter
torch.equal-এ হুবহু এক। optimizer-এর state বা RNG-এর অবস্থা বাদ দিলে কতটা সরে যায়।
শেষে learning rate scheduler-সহ একই পরীক্ষা: scheduler-এর state রাখলে আবার হুবহু এক।
"""

import tempfile

import _setup_path  # noqa: F401
from bazarghar.experiments import (format_resume, format_scheduler_resume, resume_demo,
                                   scheduler_resume_demo)


def main() -> dict:
    with tempfile.TemporaryDirectory() as workdir:
        result = resume_demo(workdir)
        scheduled = scheduler_resume_demo(workdir)
    print(format_resume(result))
    print(format_scheduler_resume(scheduled))
    return result


if __name__ == "__main__":
    main()
