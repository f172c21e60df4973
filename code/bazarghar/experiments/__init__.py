"""পর্বের ডেস্কটপ পরীক্ষাগুলো, function হিসেবে।

প্রতিটি module-এ একটি ``*_demo()`` function ফল একটি dict-এ ফেরত দেয়, আর একটি
``format_*()`` সেই ফল ছাপার রূপে লেখে। ``code/scripts/``-এর script আর পর্বের
cell একই function ডাকে, তাই দুই জায়গার সংখ্যা সবসময় এক।
"""

from .tour import module_tour, format_tour, linear_stepper_example
from .registry import Tiny, Forgot, registry_demo, format_registry, persistent_buffer_demo
from .list_trap import ListMLP, FixedMLP, list_trap_demo, format_list_trap
from .train_export import train_export_demo, format_train_export
from .state_io import Renamed, state_io_demo, format_state_io, key_error_lines
from .modes import modes_demo, format_modes
from .counting_demo import counting_demo, format_counting
from .exercises import (
    exercise1_classifier,
    exercise3_guess,
    M,
    TwoHead,
    exercise4_two_heads,
    quiz_numbers,
    exercises_demo,
    format_exercises,
)

__all__ = [
    "module_tour",
    "format_tour",
    "linear_stepper_example",
    "Tiny",
    "Forgot",
    "registry_demo",
    "format_registry",
    "persistent_buffer_demo",
    "ListMLP",
    "FixedMLP",
    "list_trap_demo",
    "format_list_trap",
    "train_export_demo",
    "format_train_export",
    "Renamed",
    "state_io_demo",
    "format_state_io",
    "key_error_lines",
    "modes_demo",
    "format_modes",
    "counting_demo",
    "format_counting",
    "exercise1_classifier",
    "exercise3_guess",
    "M",
    "TwoHead",
    "exercise4_two_heads",
    "quiz_numbers",
    "exercises_demo",
    "format_exercises",
]
