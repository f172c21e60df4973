"""পর্বের ডেস্কটপ পরীক্ষাগুলো, function হিসেবে।

প্রতিটি module-এ একটি ``*_demo()`` function ফল একটি dict-এ ফেরত দেয়, আর একটি
``format_*()`` সেই ফল ছাপার রূপে লেখে। ``code/scripts/``-এর script আর পর্বের
cell একই function ডাকে, তাই দুই জায়গার সংখ্যা সবসময় এক।
"""

from .tour import module_tour, format_tour, linear_stepper_example
from .registry import Tiny, Forgot, registry_demo, format_registry, persistent_buffer_demo
from .list_trap import LayerStack, list_trap_demo, format_list_trap
from .train_export import train_export_demo, format_train_export
from .state_io import Renamed, state_io_demo, format_state_io, key_error_lines
from .modes import modes_demo, format_modes
from .counting_demo import counting_demo, format_counting
from .exercises import (
    exercise1_classifier,
    exercise2_guess,
    Riddle,
    TwoHead,
    exercise3_two_heads,
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
    "LayerStack",
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
    "exercise2_guess",
    "Riddle",
    "TwoHead",
    "exercise3_two_heads",
    "quiz_numbers",
    "exercises_demo",
    "format_exercises",
]

# পর্ব ১০: training loop আর checkpoint
from .one_step import one_step_setup, one_step_demo, format_one_step
from .zero_grad import (SHOWN_STEPS, accumulate_demo, forgotten_zero_grad_run, zero_grad_demo,
                        format_accumulate, format_forgotten, format_zero_grad)
from .minibatch import minibatch_demo, format_minibatch
from .train_val import (MAIN_LR, MAIN_MOMENTUM, MAIN_EPOCHS, train_val_demo, validation_modes_demo,
                        format_train_val, format_validation_modes)
from .learning_rate import SWEEP_LRS, TRACE_STEPS, dead_units, first_step_with, lr_sweep_demo, format_lr_sweep
from .optim_state import optimizer_state_demo, format_optimizer_state, format_optimizer_sizes
from .checkpoint_demo import RESUME_LR, adam_setup, checkpoint_demo, format_checkpoint
from .resume import (TOTAL_EPOCHS, STOP_EPOCH, SHOWN_EPOCHS, resume_demo, format_resume,
                     resumes_exactly, scheduler_resume_demo, format_scheduler_resume)

__all__ += [
    "one_step_setup", "one_step_demo", "format_one_step",
    "accumulate_demo", "forgotten_zero_grad_run", "zero_grad_demo", "format_accumulate",
    "format_forgotten", "format_zero_grad",
    "minibatch_demo", "format_minibatch",
    "MAIN_LR", "MAIN_MOMENTUM", "MAIN_EPOCHS", "train_val_demo", "validation_modes_demo",
    "format_train_val", "format_validation_modes",
    "SWEEP_LRS", "TRACE_STEPS", "dead_units", "first_step_with", "lr_sweep_demo", "format_lr_sweep",
    "optimizer_state_demo", "format_optimizer_state", "format_optimizer_sizes",
    "RESUME_LR", "adam_setup", "checkpoint_demo", "format_checkpoint",
    "TOTAL_EPOCHS", "STOP_EPOCH", "resume_demo", "format_resume", "resumes_exactly",
    "scheduler_resume_demo", "format_scheduler_resume",
]
from .exercises10 import (exercise_adam_memory, exercise_steps, exercise_accumulation,
                          exercises10_demo, format_exercises10)

__all__ += ["exercise_adam_memory", "exercise_steps", "exercise_accumulation", "exercises10_demo",
            "format_exercises10"]

from .losses import late_labels, late_setup

__all__ += ["late_labels", "late_setup"]

from .update_rules import W0, TARGET, STEPS, update_rules_demo, format_update_rules
from .sanity import MISSING_ROW, sanity_demo, format_sanity

__all__ += ["W0", "TARGET", "STEPS", "update_rules_demo", "format_update_rules",
            "MISSING_ROW", "sanity_demo", "format_sanity"]

from .devices import (as_if_saved_on, map_location_demo, format_map_location, to_order_demo,
                      format_to_order)
from .mid_epoch import (MID_EPOCHS, MID_STOP, run_steps, mid_epoch_checkpoint, resume_mid_epoch,
                        mid_epoch_demo, format_mid_epoch)
from .loader_rng import (JitterOrders, seed_worker, dropout_mask_after, loader_rng_demo,
                         format_loader_rng)

__all__ += ["as_if_saved_on", "map_location_demo", "format_map_location", "to_order_demo",
            "format_to_order", "MID_EPOCHS", "MID_STOP", "run_steps", "mid_epoch_checkpoint",
            "resume_mid_epoch", "mid_epoch_demo", "format_mid_epoch", "JitterOrders",
            "seed_worker", "dropout_mask_after", "loader_rng_demo", "format_loader_rng"]

# পর্ব ০৭: tensor
from .tensors import (MEMORY_EXAMPLE, device_demo, error_text, format_device, format_making,
                      format_memory, format_shape, format_view_or_copy, making_demo, memory_demo,
                      shape_demo, shares_storage, view_or_copy)
from .tensors_dtype import (HALF_TYPES, KM_PER_MILE, dtype_demo, format_dtype, precision_table,
                            promotion_table, running_total, spacing)
from .tensors_broadcast import (LATE_MINUTES, RULE_BASE, RULE_PER_KM, TRIPS_SEED, broadcast_demo,
                                exercises07_demo, format_broadcast, format_exercises07,
                                format_indexing, format_numpy_check, indexing_demo, numpy_check_demo,
                                old_rule, van_trips)

__all__ += ["MEMORY_EXAMPLE", "device_demo", "error_text", "format_device", "format_making",
            "format_memory", "format_shape", "format_view_or_copy", "making_demo", "memory_demo",
            "shape_demo", "shares_storage", "view_or_copy", "HALF_TYPES", "KM_PER_MILE", "dtype_demo",
            "format_dtype", "precision_table", "promotion_table", "running_total", "spacing",
            "LATE_MINUTES", "RULE_BASE", "RULE_PER_KM", "TRIPS_SEED", "broadcast_demo",
            "exercises07_demo", "format_broadcast", "format_exercises07", "format_indexing",
            "format_numpy_check", "indexing_demo", "numpy_check_demo", "old_rule", "van_trips"]
