"""modtree: the module-tree figure, checked against real torch and a real `dot`."""

from __future__ import annotations

import base64
import itertools
import os
import re
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[1]

import modtree  # noqa: E402  (from code/, pytest's pythonpath)
from modtree import style  # noqa: E402
from modtree.__main__ import main  # noqa: E402

# nn.Transformer() warns about nested tensors on construction; not this module's concern.
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor")


# ---------------------------------------------------------------- models


class DeliveryMLP(nn.Module):
    """The lecture's model, as defined in the lecture (the real one lives in bazarghar)."""

    def __init__(self, x_mean, x_std, p_drop=0.1):
        super().__init__()
        self.register_buffer("x_mean", x_mean)
        self.register_buffer("x_std", x_std)
        self.hidden = nn.Sequential(
            nn.Linear(3, 16), nn.ReLU(), nn.Dropout(p_drop), nn.Linear(16, 8), nn.ReLU()
        )
        self.head = nn.Linear(8, 1)


class TwoHeads(nn.Module):
    """Exercise 4: one trunk, two heads in a ModuleDict."""

    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(3, 8), nn.ReLU())
        self.heads = nn.ModuleDict({"time": nn.Linear(8, 1), "late": nn.Linear(8, 1)})


class WithCache(nn.Module):
    """A parameter on the module itself, a persistent buffer and a non-persistent one."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(4))
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))
        self.register_buffer("cache", torch.zeros(4), persistent=False)
        self.body = nn.Linear(4, 2)


class SharedTrunk(nn.Module):
    """One submodule under three names: two attributes and a ModuleList slot."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
        self.alias = self.encoder
        self.blocks = nn.ModuleList([self.encoder[0], nn.Linear(4, 2)])


class RenamingStateDict(nn.Module):
    """Overrides state_dict naming; the drawing must not call it, so must not crash."""

    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(2, 2)

    def state_dict(self, *args, **kwargs):
        raise RuntimeError("custom naming")


class WithExtraState(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def get_extra_state(self):
        return {"version": 2}

    def set_extra_state(self, state):
        pass


def delivery_mlp() -> DeliveryMLP:
    return DeliveryMLP(torch.zeros(3), torch.ones(3))


@pytest.fixture(scope="module")
def transformer() -> nn.Transformer:
    torch.manual_seed(0)
    return nn.Transformer()


# ---------------------------------------------------------------- reading the DOT back

RED_SPAN = re.compile(rf'<FONT COLOR="{style.KEY_RED}"[^>]*>(.*?)</FONT>')
RANGE = re.compile(r"^(\d+)–(\d+)$")


def drawn_keys(source: str) -> list[tuple[str, str | None]]:
    """Every red label in the DOT's boxes as (key, shape); keys with ranges are expanded. (The
    legend's sample key is red too, and no key.)"""
    found = []
    for text in RED_SPAN.findall("\n".join(boxes(source))):
        text = text.replace("&#x27;", "'").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        key, _, shape = text.partition(" ")
        for expanded in expand(key):
            found.append((expanded, shape or None))
    return found


def expand(key: str) -> list[str]:
    choices = []
    for part in key.split("."):
        match = RANGE.match(part)
        if match:
            choices.append([str(i) for i in range(int(match[1]), int(match[2]) + 1)])
        else:
            choices.append([part])
    return [".".join(parts) for parts in itertools.product(*choices)]


def boxes(source: str) -> list[str]:
    return re.findall(r"^  n\d+ \[label=<(.*)>\];$", source, re.M)


def arrows(source: str) -> list[str]:
    return re.findall(r"^  n\d+:h:e -> n\d+:h:w.*;$", source, re.M)


def assert_keys_match(model: nn.Module, source: str) -> None:
    expected = {key: str(tuple(value.shape)) for key, value in nn.Module.state_dict(model).items()
                if isinstance(value, torch.Tensor)}
    drawn = drawn_keys(source)
    counts = Counter(key for key, _ in drawn)
    assert [k for k, n in counts.items() if n > 1] == [], "a key drawn more than once"
    assert set(counts) - set(nn.Module.state_dict(model)) == set(), "red label that is no key"
    assert set(nn.Module.state_dict(model)) - set(counts) == set(), "key missing from the drawing"
    for key, shape in drawn:
        if key in expected:
            assert shape == expected[key], key


# ---------------------------------------------------------------- keys


@pytest.mark.parametrize("make", [delivery_mlp, TwoHeads, WithCache, SharedTrunk, WithExtraState])
def test_every_state_dict_key_is_drawn_exactly_once(make):
    model = make()
    assert_keys_match(model, modtree.draw(model).source)


def test_transformer_keys_collapsed_and_expanded(transformer):
    collapsed = modtree.draw(transformer).source
    assert_keys_match(transformer, collapsed)
    expanded = modtree.draw(transformer, expand=True).source
    assert_keys_match(transformer, expanded)
    assert len(boxes(expanded)) == len(list(transformer.modules()))
    assert len(boxes(collapsed)) < 40 < len(boxes(expanded))


def test_delivery_mlp_keys_shapes_and_the_gap():
    source = modtree.draw(delivery_mlp()).source
    assert drawn_keys(source) == [
        ("x_mean", "(3,)"), ("x_std", "(3,)"),
        ("hidden.0.weight", "(16, 3)"), ("hidden.0.bias", "(16,)"),
        ("hidden.3.weight", "(8, 16)"), ("hidden.3.bias", "(8,)"),
        ("head.weight", "(1, 8)"), ("head.bias", "(1,)"),
    ]
    headers = [re.search(r"<B>(.*?)</B>", b)[1] for b in boxes(source)]
    names = [re.sub(r"<[^>]+>", "", h) for h in headers]
    assert names == ["DeliveryMLP", "hidden", "0", "1", "2", "3", "4", "head"]
    grey = [b for b in boxes(source) if f'COLOR="{style.GREY[1]}"' in b]
    assert [re.sub(r"<[^>]+>", "", re.search(r"<B>(.*?)</B>", b)[1]) for b in grey] == ["1", "2", "4"]
    amber = re.findall(rf'BGCOLOR="{style.AMBER[0]}">(.*?)</TD>', source)
    assert [re.sub(r"<[^>]+>", "", a) for a in amber] == ["x_mean", "x_mean (3,)", "x_std", "x_std (3,)"]
    # Shapes as well as colours, for a greyscale copy: parameter-less boxes dashed, buffer rows dotted.
    assert all('STYLE="rounded,dashed"' in b for b in grey)
    assert not any("dashed" in b for b in boxes(source) if b not in grey)
    assert source.count('SIDES="B" STYLE="dotted"') == 4 + 1  # two buffer rows of two cells, the legend


def test_module_dict_names_become_keys():
    source = modtree.draw(TwoHeads()).source
    keys = [k for k, _ in drawn_keys(source)]
    assert keys[2:] == ["heads.time.weight", "heads.time.bias", "heads.late.weight", "heads.late.bias"]
    assert ">time</FONT></B>" in source and ">late</FONT></B>" in source


def test_non_persistent_buffer_drawn_but_not_a_key():
    model = WithCache()
    source = modtree.draw(model).source
    assert "cache" not in nn.Module.state_dict(model)
    assert ">cache</FONT>" in source  # the row is there ...
    assert all("cache" not in key for key, _ in drawn_keys(source))  # ... its key is not
    assert "persistent=False" in source and style.WORDS["bn"]["absent"] in source
    assert ("scale", "(4,)") in drawn_keys(source)  # a parameter on the model itself
    assert ("steps", "()") in drawn_keys(source)


def test_shared_submodule_drawn_once_with_every_name():
    model = SharedTrunk()
    source = modtree.draw(model).source
    # state_dict() lists the shared tensors under every prefix; named_modules() only once.
    assert "alias.0.weight" in nn.Module.state_dict(model)
    assert len(boxes(source)) == len(list(model.modules()))
    registrations = sum(len(m._modules) for m in model.modules())
    assert len(arrows(source)) == registrations
    labelled = [a for a in arrows(source) if "label=" in a]
    assert sorted(re.search(r'label="(.*?)"', a)[1] for a in labelled) == ["0", "0", "alias", "encoder"]
    shared_linear = next(b for b in boxes(source) if "encoder.0.weight" in b)
    assert "alias.0.weight" in shared_linear and "blocks.0.weight" in shared_linear


def test_overridden_state_dict_does_not_crash():
    figure = modtree.draw(RenamingStateDict())
    assert [k for k, _ in drawn_keys(figure.source)] == ["inner.weight", "inner.bias"]
    assert "<svg" in figure.svg()


def test_lazy_module_shape_unknown():
    source = modtree.draw(nn.Sequential(nn.LazyLinear(3))).source
    assert ("0.weight", "(?)") in drawn_keys(source)


# ---------------------------------------------------------------- big models


def test_transformer_runs_collapse_to_ranges(transformer):
    figure = modtree.draw(transformer)
    source = figure.source
    assert "encoder.layers.0–5.linear1.weight (2048, 512)" in RED_SPAN.findall(source)
    assert "<B><FONT" in source and ">layers.0–5</FONT></B>  ×6 TransformerEncoderLayer" in source
    assert ">layers.0–5</FONT></B>  ×6 TransformerDecoderLayer" in source
    width, height = svg_size(figure.svg())
    print(f"\nnn.Transformer() figure: {width:.0f} × {height:.0f} pt, {len(boxes(source))} boxes")
    assert 1.2 < width / height < 2.4, "not a slide-shaped figure"


def svg_size(svg: str) -> tuple[float, float]:
    match = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    return float(match[1]), float(match[2])


@pytest.mark.parametrize("kind", ["linear", "blocks"])
def test_thousand_layers_render_in_seconds(kind):
    torch.manual_seed(0)
    if kind == "linear":
        model = nn.Sequential(*[nn.Linear(8, 8) for _ in range(1000)])
    else:
        model = nn.Sequential(*[nn.Sequential(nn.Linear(8, 8), nn.ReLU()) for _ in range(1000)])
    start = time.perf_counter()
    figure = modtree.draw(model)
    svg = figure.svg()
    seconds = time.perf_counter() - start
    print(f"\n1,000-layer Sequential ({kind}): draw + dot -Tsvg in {seconds:.2f} s, "
          f"{len(boxes(figure.source))} boxes")
    assert "<svg" in svg
    assert "0–999" in figure.source and "×1000" in figure.source
    assert len(boxes(figure.source)) <= 4  # model, the run, and the run's children
    assert_keys_match(model, figure.source)
    assert seconds < 30


def test_runs_never_swallow_shared_modules():
    torch.manual_seed(0)
    same = nn.Linear(2, 2)
    repeated = nn.Sequential(same, same, same, same)  # one module under four numbers
    source = modtree.draw(repeated).source
    assert_keys_match(repeated, source)
    assert "–" not in source.split("label=<<TABLE BORDER=\"0\"")[0] and len(boxes(source)) == 2
    assert len(arrows(source)) == 4

    class Tapped(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(nn.Linear(2, 2) for _ in range(7))
            self.tap = self.layers[3]  # the middle layer is also reachable by another name

    model = Tapped()
    source = modtree.draw(model).source
    assert_keys_match(model, source)
    assert ">0–2</FONT>" in source and ">4–6</FONT>" in source
    assert ">3 / tap</FONT>" in source


def test_depth_folds_deeper_modules(transformer):
    figure = modtree.draw(transformer, depth=2, lang="en")
    keys = [k for k, _ in drawn_keys(figure.source)]
    assert keys == ["encoder.norm.weight", "encoder.norm.bias", "decoder.norm.weight", "decoder.norm.bias"]
    assert "60 more submodules, 72 keys inside" in figure.source
    assert "84 more submodules, 108 keys inside" in figure.source
    root_only = modtree.draw(transformer, depth=0).source
    assert len(boxes(root_only)) == 1 and drawn_keys(root_only) == []


def test_counts_are_computed(transformer):
    source = modtree.draw(transformer, counts=True, lang="en").source
    total = sum(p.numel() for p in transformer.parameters())
    assert f"parameters: {total:,}" in source
    each = sum(p.numel() for p in transformer.encoder.layers[0].parameters())
    assert f"parameters: {each:,} each, {6 * each:,} in all" in source


def test_parameter_table():
    model = delivery_mlp()
    table = modtree.parameter_table(model, lang="en")
    assert [r.name for r in table] == [n for n, _ in model.named_modules()]
    assert [r.type for r in table][:3] == ["DeliveryMLP", "Sequential", "Linear"]
    by_name = {r.name: r for r in table}
    assert (by_name["hidden.0"].own, by_name["hidden.0"].total) == (16 * 3 + 16, 16 * 3 + 16)
    assert (by_name["hidden"].own, by_name["hidden"].total) == (0, 64 + 136)
    assert table.total == sum(p.numel() for p in model.parameters()) == 209
    assert "hidden.3  Linear" in table.text() and "total: 209" in table.text()
    assert "| `hidden.3` | Linear | 136 | 136 |" in table.markdown()
    shared = modtree.parameter_table(SharedTrunk())
    assert shared.total == sum(p.numel() for p in SharedTrunk().parameters())
    assert shared.rows[2].name == "encoder.0 = alias.0 = blocks.0"
    assert len(modtree.parameter_table(model, depth=1)) == 3


# ---------------------------------------------------------------- output


def test_same_model_gives_identical_dot_svg_and_pdf():
    model = delivery_mlp()
    first, second = modtree.draw(model), modtree.draw(model)
    other = modtree.draw(delivery_mlp())
    assert first.source == second.source == other.source
    assert first.svg() == second.svg() == other.svg()
    assert first.pdf() == second.pdf()
    assert not re.search(r"0x[0-9a-fA-F]{6,}", first.source + first.svg())


def test_transformer_drawings_identical(transformer):
    assert modtree.draw(transformer).svg() == modtree.draw(nn.Transformer()).svg()


def test_mimebundle_for_jupyter():
    figure = modtree.draw(delivery_mlp(), caption="ছবি ৯.১")
    bundle = figure._repr_mimebundle_()
    assert set(bundle) == {"image/svg+xml", "application/pdf", "text/vnd.graphviz", "text/plain"}
    assert bundle["image/svg+xml"].lstrip().startswith("<?xml") and "</svg>" in bundle["image/svg+xml"]
    assert base64.b64decode(bundle["application/pdf"]).startswith(b"%PDF")
    assert bundle["text/vnd.graphviz"] == figure.source
    assert bundle["text/plain"] == figure.alt
    assert set(figure._repr_mimebundle_(include=["text/plain"])) == {"text/plain"}
    assert "application/pdf" not in figure._repr_mimebundle_(exclude=["application/pdf"])


def test_alt_text_names_every_key():
    figure = modtree.draw(delivery_mlp())
    assert figure.alt.startswith("DeliveryMLP-এর module গাছ; state_dict-এ 8টি key।")
    for key in nn.Module.state_dict(delivery_mlp()):
        assert key in figure.alt
    assert "1: ReLU (parameter নেই)" in figure.alt


def test_bengali_legend_and_fonts():
    figure = modtree.draw(WithCache(), caption="ছবি ৯.১ — নাম থেকে key")
    for text in ["নীল: submodule", "হলুদ: buffer", "ধূসর: parameter নেই", "লাল: state_dict-এর key আর আকার",
                 "persistent=False: state_dict-এ নেই"]:
        assert text in figure.source
    svg = figure.svg()
    assert 'font-family="Noto Sans Bengali,' in svg and "DejaVu Sans Mono" in svg
    assert "ছবি ৯.১ — নাম থেকে key" in svg
    assert "নীল" not in modtree.draw(WithCache(), legend=False).source
    assert "blue: submodule" in modtree.draw(WithCache(), lang="en").source


def test_missing_dot_is_a_clear_error(monkeypatch, tmp_path):
    figure = modtree.draw(delivery_mlp())
    monkeypatch.setenv("PATH", str(tmp_path))
    assert figure.source  # the DOT needs no Graphviz
    with pytest.raises(modtree.GraphvizNotFoundError, match="apt-get install graphviz"):
        figure.svg()


def test_save_by_extension(tmp_path):
    figure = modtree.draw(TwoHeads())
    assert figure.save(tmp_path / "a.png").read_bytes().startswith(b"\x89PNG")
    assert figure.save(tmp_path / "a.pdf").read_bytes().startswith(b"%PDF")
    assert figure.save(tmp_path / "a.dot").read_text(encoding="utf-8") == figure.source
    with pytest.raises(ValueError, match="unknown figure format"):
        figure.save(tmp_path / "a.jpeg")


# ---------------------------------------------------------------- CLI


def test_cli_wrapper_writes_svg(tmp_path):
    out = tmp_path / "figures" / "transformer.svg"
    done = subprocess.run([str(ROOT / "scripts" / "modtree"), "torch.nn:Transformer", "-o", str(out)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == modtree.draw(nn.Transformer()).svg()


def test_cli_dot_table_and_options(tmp_path, capsys):
    out = tmp_path / "mlp.dot"
    assert main([f"{__name__}:delivery_mlp", "-o", str(out), "--counts", "--table", "--lang", "en"]) == 0
    assert out.read_text(encoding="utf-8") == modtree.draw(delivery_mlp(), counts=True, lang="en").source
    printed = capsys.readouterr().out
    assert "hidden.3  Linear" in printed and "total: 209" in printed
    assert main(["torch.nn:Transformer", "--depth", "1"]) == 0
    assert capsys.readouterr().out == modtree.draw(nn.Transformer(), depth=1).source


@pytest.mark.parametrize("spec, message", [
    ("torch.nn.Transformer", "package.module:Name"),
    ("no_such_package:Model", "cannot import 'no_such_package'"),
    ("torch.nn:NoSuchLayer", "has no attribute 'NoSuchLayer'"),
    ("torch.nn:Linear", "zero-argument factory"),
])
def test_cli_bad_import_path(spec, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main([spec])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


# ---------------------------------------------------------------- any model a student may bring


def test_frozen_parameters_are_marked():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    model[0].weight.requires_grad_(False)
    fig = modtree.draw(model, lang="en")
    rows = [line for line in fig.source.splitlines() if line.startswith("  n")]
    first = next(line for line in rows if "0.weight" in line)
    assert "requires_grad=False" in first
    assert sum("requires_grad=False" in line for line in rows) == 1  # 0.bias and 2.* stay trainable
    assert "frozen" in fig.alt and "0.weight" in fig.alt.split("frozen")[1][:200]
    fig.svg()


def test_torch_compile_wrapper_is_unwrapped():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
    compiled = torch.compile(model)
    assert "_orig_mod" in dict(compiled.named_children())  # what a naive walk would draw
    fig = modtree.draw(compiled)
    assert "_orig_mod" not in fig.source and "_orig_mod" not in fig.alt
    assert fig.source == modtree.draw(model).source


def test_repeated_groups_of_layers_collapse():
    model = nn.Sequential(*[layer for _ in range(200) for layer in (nn.Linear(8, 8), nn.ReLU())])
    fig = modtree.draw(model)
    boxes = [line for line in fig.source.splitlines() if re.match(r"  n\d+ \[label=", line)]
    assert len(boxes) <= 4, len(boxes)  # the model, one Linear and one ReLU (standing for 200 each)
    assert "×200" in fig.source or "× 200" in fig.source or "200" in fig.source
    fig.png()  # a PNG far from cairo's size limit
    # A period broken in the middle is not merged across the break.
    layers = [layer for _ in range(5) for layer in (nn.Linear(8, 8), nn.ReLU())] + [nn.Tanh()]
    layers += [layer for _ in range(5) for layer in (nn.Linear(8, 8), nn.ReLU())]
    source = modtree.draw(nn.Sequential(*layers)).source
    assert "Tanh" in source
    keys = set(nn.Sequential(*layers).state_dict())
    drawn = modtree.draw(nn.Sequential(*layers), expand=True).alt
    assert all(key in drawn for key in keys)


def test_very_deep_nests_are_bounded():
    model = nn.Linear(2, 2)
    for _ in range(3000):
        model = nn.Sequential(model)
    started = time.perf_counter()
    fig = modtree.draw(model)
    boxes = [line for line in fig.source.splitlines() if re.match(r"  n\d+ \[label=", line)]
    assert len(boxes) <= 40, len(boxes)
    assert time.perf_counter() - started < 20
    fig.svg()


class Broken(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(2, 2)

    def named_modules(self, *args, **kwargs):
        raise RuntimeError("half-built model")

    def parameters(self, recurse=True):
        raise RuntimeError("half-built model")


def test_a_model_that_cannot_be_walked_is_one_line(capsys, monkeypatch):
    # The tree is drawn from the registrations, not named_modules(): it still draws.
    assert "body" in modtree.draw(Broken()).source
    # Counts need parameters(): one line naming the model and the cause.
    with pytest.raises(modtree.ModTreeError) as caught:
        modtree.draw(Broken(), counts=True)
    assert "\n" not in str(caught.value) and "Broken" in str(caught.value) and "half-built" in str(caught.value)
    monkeypatch.setitem(__import__("sys").modules, "brokenmodel", type(__import__("sys"))("brokenmodel"))
    __import__("sys").modules["brokenmodel"].Broken = Broken
    assert main(["brokenmodel:Broken", "--counts"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "modtree:" in err and "Traceback" not in err, err
