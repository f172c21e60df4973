"""bazarghar package: পর্ব ০৯-এর ডেটা-নিরপেক্ষ সংখ্যা, বাংলা অঙ্ক, NumPy-র forward আর script।"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import bazarghar
from bazarghar import (
    DeliveryMLP,
    NumpyDropout,
    STATE_KEYS,
    bn,
    bn_digits,
    bn_sci,
    bn_shape,
    bottleneck_ratio,
    build_model,
    count_params,
    diff_report,
    dropout_stats_experiment,
    export_state_json,
    layer_breakdown,
    make_orders,
    make_orders_np,
    mlp_param_count,
    numpy_forward,
    param_memory_kib,
    sequential_mlp,
    stack_report,
    torch_predict,
    train_delivery_model,
)
from bazarghar import experiments as ex
from bazarghar.export import state_to_lists

from helpers import STUDENT_SCRIPTS as SCRIPTS, script_id

ROOT = Path(__file__).resolve().parents[1]
CODE = ROOT / "code"


@pytest.fixture(scope="session")
def trained():
    return train_delivery_model()


@pytest.fixture(scope="session")
def state_file(trained, tmp_path_factory):
    path = tmp_path_factory.mktemp("state") / "delivery_mlp.pt"
    torch.save(trained[0].state_dict(), path)
    return path


# ---------------------------------------------------------------- ডেটা


def test_orders_shapes_and_dtypes():
    X, y = make_orders()
    assert X.shape == (400, 3) and y.shape == (400,)
    assert X.dtype == torch.float32 and y.dtype == torch.float32


def test_orders_are_seeded_and_sensible():
    X1, y1 = make_orders(seed=42)
    X2, y2 = make_orders(seed=42)
    assert torch.equal(X1, X2) and torch.equal(y1, y2)
    X3, _ = make_orders(seed=1)
    assert not torch.equal(X1, X3)
    Xn, yn = make_orders_np()
    assert Xn.dtype == np.float64
    assert 0.5 <= Xn[:, 0].min() and Xn[:, 0].max() <= 12.0
    assert set(np.unique(Xn[:, 1])) <= {1.0, 2.0, 3.0, 4.0, 5.0}
    assert set(np.unique(Xn[:, 2])) == {0.0, 1.0}
    resid = yn - bazarghar.true_time(Xn[:, 0], Xn[:, 1], Xn[:, 2])
    assert 3.0 < resid.var() < 5.0  # noise-এর variance ≈ 4


# ---------------------------------------------------------------- model


def test_model_structure_keys_and_count():
    model = build_model()
    assert tuple(model.state_dict().keys()) == STATE_KEYS
    assert count_params(model) == 209 == bazarghar.N_PARAMS
    assert [n for n, _ in model.named_buffers()] == ["x_mean", "x_std"]
    assert [p.numel() for p in model.parameters()] == [48, 16, 128, 8, 8, 1]
    assert model(torch.zeros(5, 3)).shape == (5,)


def test_model_zero_arg_and_import_path():
    m = DeliveryMLP()
    assert torch.equal(m.x_mean, torch.zeros(3)) and torch.equal(m.x_std, torch.ones(3))
    assert DeliveryMLP.__module__ == "bazarghar" and bazarghar.DeliveryMLP is DeliveryMLP


def test_build_model_is_deterministic():
    a, b = build_model(seed=42), build_model(seed=42)
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert ka == kb and torch.equal(va, vb)


def test_tour_numbers():
    r = ex.module_tour(seed=42)
    assert r["total"] == 209
    assert r["weight_shape"] == (16, 3) and r["bias_shape"] == (16,)
    assert r["linear_max_diff"] == 0.0
    assert r["max_abs_weight"] == 0.5702
    assert r["init_bound"] == 0.5774
    assert [row[0] for row in r["params"]] == list(STATE_KEYS[2:])


# ---------------------------------------------------------------- নিবন্ধন আর list-এর ফাঁদ


def test_registry_demo():
    r = ex.registry_demo()
    assert r["modules"] == ["fc"] and r["parameters"] == ["scale"] and r["buffers"] == ["mu"]
    assert r["state_keys"] == ["scale", "mu", "fc.weight", "fc.bias"]
    assert r["extra_in_dict"] and r["mu2_in_dict"]
    assert r["dtypes_after_double"] == (torch.float64, torch.float32, torch.float32)
    assert r["forgot_error"] == ("AttributeError", "cannot assign module before Module.__init__() call")
    p = ex.persistent_buffer_demo()
    assert "scratch" in p["named_buffers"] and "scratch" not in p["state_keys"]


def test_list_trap():
    plain, fixed = ex.list_trap_demo()
    assert (plain["holder"], plain["out_shape"], plain["n_params"], plain["n_keys"]) == ("list", (4, 1), 0, 0)
    assert plain["optimizer_error"] == "optimizer got an empty parameter list"
    assert (fixed["holder"], fixed["out_shape"], fixed["n_params"], fixed["n_keys"]) == ("nn.ModuleList", (4, 1), 209, 6)
    assert fixed["optimizer_error"] is None


# ---------------------------------------------------------------- গোনা


@pytest.mark.parametrize(
    "sizes, bias, total",
    [
        ((3, 16, 8, 1), True, 209),
        ((784, 256, 128, 10), True, 235_146),
        ((784, 256, 128, 10), False, 234_752),
        ((1024, 1024), True, 1_049_600),
        ((1024, 64, 1024), True, 132_160),
        ((10, 5, 2), True, 67),
        ((20, 64, 32, 3), True, 3523),
    ],
)
def test_stack_counts_match_torch(sizes, bias, total):
    assert mlp_param_count(sizes, bias) == total
    assert count_params(sequential_mlp(sizes, bias)) == total


def test_breakdown_memory_and_ratio():
    assert [layer.total for layer in layer_breakdown((3, 16, 8, 1))] == [64, 136, 9]
    assert [layer.total for layer in layer_breakdown((784, 256, 128, 10))] == [200_960, 32_896, 1_290]
    assert [layer.total for layer in layer_breakdown((1024, 64, 1024))] == [65_600, 66_560]
    assert round(param_memory_kib(209), 1) == 0.8
    assert round(param_memory_kib(235_146), 1) == 918.5
    assert round(param_memory_kib(234_752), 1) == 917.0
    assert round(param_memory_kib(1_049_600), 1) == 4100.0
    assert round(param_memory_kib(132_160), 1) == 516.2
    assert round(bottleneck_ratio(), 1) == 7.9
    report = stack_report((784, 256, 128, 10))
    assert "Linear(784, 256): 200,704 + 256 = 200,960" in report
    assert "মোট 235,146 ≈ 918.5 KiB (float32)" in report
    r = ex.counting_demo()
    assert r["bias_saving"] == 394 and r["first_layer_share"] > 0.85


def test_count_params_trainable_only():
    model = build_model()
    for p in model.hidden.parameters():
        p.requires_grad_(False)
    assert count_params(model) == 209 and count_params(model, trainable_only=True) == 9


def test_breakdown_rejects_bad_sizes():
    with pytest.raises(ValueError):
        layer_breakdown([3])
    with pytest.raises(ValueError):
        layer_breakdown([3, 0, 1])


# ---------------------------------------------------------------- অনুশীলন আর quiz


def test_exercise_answers():
    e1 = ex.exercise1_classifier()
    assert e1["per_layer"] == [("0", 1344), ("3", 2080), ("5", 99)]
    assert e1["total"] == e1["by_hand"] == 3523 and e1["bytes"] == 14_092
    assert round(e1["kib"], 1) == 13.8
    assert e1["keys"] == ["0.weight", "0.bias", "3.weight", "3.bias", "5.weight", "5.bias"]

    e2 = ex.exercise2_guess()
    assert e2["keys"] == ["shift", "scale", "trunk.1.weight", "trunk.1.bias", "out.weight", "out.bias"]
    assert e2["n_params"] == 1 + (4 * 3 + 4) + (1 * 4 + 1) == 22

    e3 = ex.exercise3_two_heads()
    assert e3["per_layer"] == [("body.0", "Linear", 64), ("heads.time", "Linear", 17), ("heads.late", "Linear", 34)]
    assert e3["total"] == 115
    assert e3["out_shapes"] == {"time": (5, 1), "late": (5, 2)}
    assert "heads.time.weight" in e3["keys"]

    q = ex.quiz_numbers()
    assert q == {"linear_128_10_shape": (10, 128), "linear_128_10_params": 1290,
                 "linear_3_32_shape": (32, 3), "linear_3_32_params": 32 * 3 + 32,
                 "mlp_6_4_1": (4 * 6 + 4) + (1 * 4 + 1)}


# ---------------------------------------------------------------- training আর export


def test_training_reaches_noise_level(trained):
    model, history, X, y = trained
    assert not model.training
    assert len(history.losses) == history.epochs
    assert history.losses[-1] < history.losses[0]
    assert 3.0 < history.final_train_mse < 5.5  # noise-এর variance ৪-এর কাছে


def test_training_is_deterministic(trained, kernel_trainings):
    """A training in a fresh process (the machine's kernels, the same environment) ends on this
    process's trained model bit for bit: the same weights and the same final loss."""
    model, history, _, _ = trained
    assert kernel_trainings["native"][1:] == [f"{history.final_train_mse:.6f}", state_digest(model)]


def test_numpy_forward_matches_torch(trained, tmp_path):
    model, _, X, _ = trained
    path = tmp_path / "m.json"
    n_bytes = export_state_json(model, path)
    assert n_bytes == path.stat().st_size > 1000
    orders = np.array(bazarghar.SAMPLE_ORDERS)
    d64 = diff_report(numpy_forward(path, orders, np.float64), torch_predict(model, orders, torch.float64))
    assert d64["max_abs"] < 1e-10
    d32 = diff_report(numpy_forward(path, orders, np.float32), torch_predict(model, orders, torch.float32))
    assert d32["max_ulps"] <= 4  # BLAS-এর যোগের ক্রম CPU-ভেদে বদলায়; পর্বের দাবি করা সীমা
    # পুরো ৪০০টি অর্ডারে: float64 প্রায় হুবহু, float32 কয়েক ulp-এর ভেতরে
    Xa = X.numpy().astype(np.float64)
    assert diff_report(numpy_forward(path, Xa), torch_predict(model, Xa, torch.float64))["max_abs"] < 1e-10
    assert diff_report(numpy_forward(path, Xa, np.float32), torch_predict(model, Xa))["max_ulps"] <= 8
    assert model.training is False and next(model.parameters()).dtype == torch.float32


def test_diff_report_counts_ulps():
    b = np.array([40.0], dtype=np.float32)
    a = np.nextafter(b, np.float32(100))
    r = diff_report(a, b)
    assert r["max_ulps"] == 1.0 and r["max_abs"] == 2.0**-18


def test_train_export_demo(trained, tmp_path):
    r = ex.train_export_demo(tmp_path, trained=trained)
    assert [k for k, _ in r["shapes"]] == list(STATE_KEYS)
    assert r["diff64"]["max_abs"] < 1e-10 and r["diff32"]["max_ulps"] <= 4
    assert r["diff64_printed"]["max_abs"] <= 5e-13
    assert (tmp_path / "delivery_mlp.json").exists() and (tmp_path / "delivery_mlp.pt").exists()


# ---------------------------------------------------------------- state_dict I/O


def test_state_io(state_file, tmp_path, trained):
    r = ex.state_io_demo(state_file, tmp_path)
    assert r["sd_type"] == "OrderedDict" and r["keys"] == list(STATE_KEYS)
    assert r["weights_only_default"] is None
    assert r["load_result"] == "<All keys matched successfully>"
    expected = round(torch_predict(trained[0], np.array([bazarghar.DEMO_ORDER]))[0].item(), 4)
    assert r["prediction"] == expected
    assert 'Missing key(s) in state_dict: "out.weight", "out.bias".' in r["renamed_error"]
    assert 'Unexpected key(s) in state_dict: "head.weight", "head.bias".' in r["renamed_error"]
    assert r["renamed_lenient"] == (
        "_IncompatibleKeys(missing_keys=['out.weight', 'out.bias'], "
        "unexpected_keys=['head.weight', 'head.bias'])"
    )
    assert not r["out_weight_changed"]
    assert r["size_error"].startswith("size mismatch for head.bias")
    assert r["size_error_lenient"] is not None
    assert r["unpickling_type"] == "UnpicklingError"
    assert len(r["unpickling_lines"]) == 3
    assert "GLOBAL bazarghar.DeliveryMLP" in r["unpickling_lines"][2]
    assert r["whole_type"] == "DeliveryMLP"


# ---------------------------------------------------------------- mode আর dropout


def test_modes(state_file):
    r = ex.modes_demo(state_file, seed=7)
    assert r["flags_train"] == (True, True) and r["flags_eval"] == (False, False)
    assert len(set(r["eval_runs"])) == 1
    assert len(set(r["train_runs"])) > 1
    assert r["eval_requires_grad"] is True and r["no_grad_requires_grad"] is False
    assert r["dropout_ones8"] == [0.0, 0.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0]
    assert r["mse_train_mode"] > 2 * r["mse_eval"]


def test_numpy_dropout_matches_lecture_numbers():
    r = dropout_stats_experiment(42)
    assert r["train_1"] == [2, 0, 2, 2, 0, 2, 2, 2]
    assert r["train_2"] == [0, 0, 0, 2, 2, 2, 0, 0]
    assert r["eval"] == [1.0] * 8
    assert f"{r['stats'][0.1]['zero_frac']:.3f}" == "0.099"
    assert f"{r['stats'][0.1]['mean']:.4f}" == "2.0018"
    assert f"{r['stats'][0.5]['zero_frac']:.3f}" == "0.501"
    assert f"{r['stats'][0.5]['mean']:.4f}" == "1.9956"
    assert f"{r['unscaled_mean']:.4f}" == "0.9952"


def test_numpy_dropout_modes():
    drop = NumpyDropout(0.3, np.random.default_rng(0))
    h = np.arange(1.0, 7.0)
    assert drop.eval()(h) is h or np.array_equal(drop(h), h)
    out = drop.train()(h)
    kept = out != 0
    assert np.allclose(out[kept], h[kept] / 0.7)
    assert np.array_equal(NumpyDropout(0.0, np.random.default_rng(0))(h), h)
    with pytest.raises(ValueError):
        NumpyDropout(1.0, np.random.default_rng(0))


# ---------------------------------------------------------------- বাংলা অঙ্ক


@pytest.mark.parametrize(
    "value, expected",
    [
        (0, "০"),
        (209, "২০৯"),
        (1024, "১,০২৪"),
        (14_092, "১৪,০৯২"),
        (132_160, "১,৩২,১৬০"),
        (235_146, "২,৩৫,১৪৬"),
        (1_049_600, "১০,৪৯,৬০০"),
        (-1_234_567, "−১২,৩৪,৫৬৭"),
        (12_34_56_789, "১২,৩৪,৫৬,৭৮৯"),
    ],
)
def test_bn_integers(value, expected):
    assert bn(value) == expected


def test_bn_decimals_and_options():
    assert bn(0.5702, 4) == "০.৫৭০২"
    assert bn(0.57735, 4) == "০.৫৭৭৪"
    assert bn(918.5, 1) == "৯১৮.৫"
    assert bn(4100.0, 1) == "৪,১০০.০"
    assert bn(-0.5) == "−০.৫"
    assert bn(-0.0001, 2) == "০.০০"
    assert bn(2.0018) == "২.০০১৮"
    assert bn(4.0) == "৪"
    assert bn(235146, sep=False) == "২৩৫১৪৬"
    assert bn(np.float32(0.5)) == "০.৫" and bn(torch.tensor(209)) == "২০৯" and bn(np.int64(1024)) == "১,০২৪"
    assert bn(3.8e-13) == "৩.৮ × ১০⁻¹³"
    with pytest.raises(TypeError):
        bn(True)
    with pytest.raises(TypeError):
        bn("12")


def test_bn_sci_and_shape():
    assert bn_sci(3.8e-13) == "৩.৮ × ১০⁻¹³"
    assert bn_sci(3.8147e-6) == "৩.৮ × ১০⁻⁶"
    assert bn_sci(2.0**-18, 3) == "৩.৮১ × ১০⁻⁶"
    assert bn_sci(-2.5e7) == "−২.৫ × ১০⁷"
    assert bn_sci(9.96e-5) == "১.০ × ১০⁻⁴"
    assert bn_sci(0.00038, None) == "৩.৮ × ১০⁻⁴"
    assert bn_sci(4.5) == "৪.৫" and bn_sci(0) == "০"
    assert bn_shape((16, 3)) == "(১৬, ৩)"
    assert bn_shape(torch.Size([16])) == "(১৬,)"
    assert bn_shape(()) == "()"
    assert bn_digits("hidden.3.weight (8, 16)") == "hidden.৩.weight (৮, ১৬)"
    assert bazarghar.bangla.bn is bn


# ---------------------------------------------------------------- script


@pytest.mark.parametrize("script", SCRIPTS, ids=script_id)
def test_script_runs(script, script_runs):
    """From an empty folder, without code/ on PYTHONPATH: the script's own path setup finds the
    package, it prints, and it leaves no file behind (its run is shared: helpers.ScriptRuns)."""
    run = script_runs.of(script)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip()
    assert run.left == []  # script ফাইল রেখে যায় না


def test_scripts_cover_experiments():
    names = {s.name for s in SCRIPTS if s.parent.name == "09-nn-module"}
    for expected in (
        "01_module_tour.py",
        "02_registry.py",
        "03_list_trap.py",
        "04_train_export.py",
        "05_state_io.py",
        "06_modes.py",
    ):
        assert expected in names


def test_linear_stepper_example():
    r = ex.linear_stepper_example()
    assert r["dots"] == [4.5, -0.5]
    assert r["y_layer"] == r["y_by_hand"] == [4.6, -0.7]
    assert r["n_params"] == 8


def state_digest(model) -> str:
    """SHA-256 of the model's weights as exported (every float's exact value)."""
    return hashlib.sha256(json.dumps(state_to_lists(model)).encode()).hexdigest()


_STATE_DIGEST = """
import hashlib, json, torch
from bazarghar import train_delivery_model
from bazarghar.export import state_to_lists
model, history, _, _ = train_delivery_model()
print(torch.backends.cpu.get_cpu_capability(), f"{history.final_train_mse:.6f}",
      hashlib.sha256(json.dumps(state_to_lists(model)).encode()).hexdigest())
"""


@pytest.fixture(scope="module")
def kernel_trainings():
    """The lecture's model trained in two fresh processes at once, under the machine's own kernels
    ("native") and ATen's portable ones ("default"): [capability, final loss, weights digest]."""
    started = {}
    for name, capability in (("native", None), ("default", "default")):
        env = {k: v for k, v in os.environ.items() if k != "ATEN_CPU_CAPABILITY"}
        env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[1] / "code"), env.get("PYTHONPATH", "")])
        if capability:
            env["ATEN_CPU_CAPABILITY"] = capability
        started[name] = subprocess.Popen([sys.executable, "-c", _STATE_DIGEST], env=env, text=True,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    runs = {}
    for name, proc in started.items():
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
        runs[name] = out.split()
    return runs


def test_trained_weights_are_the_same_under_every_cpu_kernel(kernel_trainings):
    """The lecture's trained model, bit for bit, under ATen's portable kernels and the machine's own
    (float32 training would differ in the last bits and, after 800 steps, in printed digits)."""
    runs = kernel_trainings
    assert runs["default"][0] == "DEFAULT" and runs["native"][0] != "DEFAULT"
    assert runs["default"][1:] == runs["native"][1:]


# ---------------------------------------------------------------- checkpoint (পর্ব ১০)


def test_checkpoint_round_trip_restores_every_state(tmp_path):
    from bazarghar.checkpoint import CHECKPOINT_KEYS, load_checkpoint, save_checkpoint
    from bazarghar.experiments import adam_setup
    from bazarghar.loop import fit

    split, model, opt, loader = adam_setup()
    history = fit(model, opt, loader, split, 2)
    path = save_checkpoint(tmp_path / "c.pt", model, opt, 2, loader, history)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.pt"], "no temporary file left behind"
    assert list(torch.load(path, weights_only=True)) == list(CHECKPOINT_KEYS)
    rng_after_save = torch.get_rng_state()

    _, other, other_opt, other_loader = adam_setup(model_seed=7, loader_seed=7)
    done, restored = load_checkpoint(path, other, other_opt, other_loader)
    assert done == 2 and restored.train == history.train and restored.val == history.val
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), other.state_dict().values()))
    assert other_opt.state_dict()["state"][0]["step"] == opt.state_dict()["state"][0]["step"]
    assert torch.equal(torch.get_rng_state(), rng_after_save)
    assert torch.equal(other_loader.generator.get_state(), loader.generator.get_state())

    # Left out on purpose: the optimizer keeps its empty state, the loader its own generator.
    _, third, third_opt, third_loader = adam_setup(model_seed=8, loader_seed=8)
    load_checkpoint(path, third, third_opt, third_loader, optimizer=False, rng=False)
    assert third_opt.state_dict()["state"] == {}
    assert not torch.equal(third_loader.generator.get_state(), loader.generator.get_state())


def test_resume_audit_passes_for_the_course_checkpoint():
    from bazarghar.experiments import resumes_exactly

    assert resumes_exactly(epochs=1)
