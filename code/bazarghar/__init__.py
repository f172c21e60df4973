"""bazarghar: পর্ব ০৯-এর ডেলিভারি-সময় model, তার ডেটা আর পরীক্ষাগুলো।

    from bazarghar import make_orders, DeliveryMLP, train_delivery_model, bn

উপ-module:
  * ``data``        — seed দিয়ে ৪০০টি কাল্পনিক অর্ডার
  * ``model``       — DeliveryMLP (৩ → ১৬ → ৮ → ১), build_model
  * ``train``       — ছোট নির্ধারিত training
  * ``counting``    — parameter গোনা আর হিসাবযন্ত্র
  * ``export``      — state_dict → JSON, NumPy-তে একই forward
  * ``dropout_np``  — NumPy-র inverted dropout
  * ``bangla``      — বাংলা অঙ্কে সংখ্যা (``bn``)
  * ``experiments`` — পর্বের প্রতিটি ডেস্কটপ পরীক্ষা, function হিসেবে
"""

from . import bangla
from .bangla import bn, bn_digits, bn_sci, bn_shape
from .counting import (
    LayerCount,
    SEED_STACKS,
    bottleneck_ratio,
    count_params,
    layer_breakdown,
    mlp_param_count,
    named_param_table,
    own_param_table,
    param_memory_kib,
    sequential_mlp,
    stack_report,
)
from .data import (
    DATA_SEED,
    DEMO_ORDER,
    FEATURES,
    NOISE_STD,
    SAMPLE_ORDERS,
    make_data,
    make_orders,
    make_orders_np,
    true_time,
)
from .dropout_np import NumpyDropout, dropout_stats_experiment, format_dropout_stats
from .export import (
    diff_report,
    export_state_json,
    load_params_json,
    np_linear,
    numpy_forward,
    param_shapes,
    state_to_lists,
    torch_predict,
)
from .model import N_PARAMS, STATE_KEYS, DeliveryMLP, build_model
from .train import TrainHistory, mse, train_delivery_model, train_model

__version__ = "0.9.0"

__all__ = [
    "bangla",
    "bn",
    "bn_digits",
    "bn_sci",
    "bn_shape",
    "LayerCount",
    "SEED_STACKS",
    "bottleneck_ratio",
    "count_params",
    "layer_breakdown",
    "mlp_param_count",
    "named_param_table",
    "own_param_table",
    "param_memory_kib",
    "sequential_mlp",
    "stack_report",
    "DATA_SEED",
    "DEMO_ORDER",
    "FEATURES",
    "NOISE_STD",
    "SAMPLE_ORDERS",
    "make_data",
    "make_orders",
    "make_orders_np",
    "true_time",
    "NumpyDropout",
    "dropout_stats_experiment",
    "format_dropout_stats",
    "diff_report",
    "export_state_json",
    "load_params_json",
    "np_linear",
    "numpy_forward",
    "param_shapes",
    "state_to_lists",
    "torch_predict",
    "N_PARAMS",
    "STATE_KEYS",
    "DeliveryMLP",
    "build_model",
    "TrainHistory",
    "mse",
    "train_delivery_model",
    "train_model",
]
