"""tensorfig: the memory-layout and broadcasting figures, checked against real torch and a real `dot`.

The memory figure is drawn from what a tensor says about itself (shape, stride, storage offset,
storage), never from what a caller claims: every tensor here is made by torch's own view
operations on a storage whose values are their own cell numbers (`arange`), so torch's indexing
gives the right answer to compare with — contiguous, transposed, sliced, expanded (stride 0) and a
permuted 3-d tensor. The broadcasting plan is compared with `torch.broadcast_shapes` and
`Tensor.expand` on every pair of small shapes."""

from __future__ import annotations

import itertools
import re

import pytest
import torch

import tensorfig  # noqa: E402  (from code/, pytest's pythonpath)
from tensorfig import style  # noqa: E402
from tensorfig.shapes import contiguous_stride  # noqa: E402

BN = str.maketrans("০১২৩৪৫৬৭৮৯", "0123456789")


def base(n: int = 24) -> torch.Tensor:
    """A storage whose value in every cell is that cell's number."""
    return torch.arange(n)


# Views made by torch, none drawn by hand: (name, tensor).
VIEWS = [
    ("contiguous", lambda: base(6).reshape(2, 3)),
    ("transposed", lambda: base(6).reshape(2, 3).T),
    ("sliced", lambda: base(6).reshape(2, 3)[:, 1:]),
    ("strided slice", lambda: base(20).reshape(4, 5)[1:, ::2]),
    ("expanded", lambda: base(3).expand(4, 3)),
    ("permuted 3-d", lambda: base(24).reshape(2, 3, 4).permute(2, 0, 1)),
    ("unsqueezed", lambda: base(6).reshape(2, 3).unsqueeze(1)),
    ("0-d", lambda: base(6)[4]),
]


@pytest.mark.parametrize("name, make", VIEWS, ids=[n for n, _ in VIEWS])
def test_each_element_is_read_from_the_storage_cell_torch_reads(name, make):
    view = make()
    lay = tensorfig.layout(view)
    # The storage holds 0, 1, 2 …, so the value torch shows at each place is its cell number.
    own = view.reshape(-1).tolist() if view.ndim else [view.item()]
    assert list(lay.positions) == own, name
    assert lay.shape == tuple(view.shape) and lay.stride == view.stride()
    assert lay.offset == view.storage_offset() and lay.contiguous == view.is_contiguous()
    assert lay.storage == tuple(range(len(lay.storage)))


def test_the_formula_gives_the_positions():
    view = base(24).reshape(2, 3, 4).permute(2, 0, 1)
    lay = tensorfig.layout(view)
    formula = [view.storage_offset() + sum(i * s for i, s in zip(index, view.stride()))
               for index in itertools.product(*map(range, view.shape))]
    assert list(lay.positions) == formula
    assert lay.stride == (1, 12, 4) and not lay.contiguous


def test_an_expanded_tensor_reads_each_cell_once_per_row():
    lay = tensorfig.layout(base(3).expand(4, 3))
    assert lay.stride == (0, 1) and len(lay.storage) == 3
    assert lay.visits == {0: [1, 4, 7, 10], 1: [2, 5, 8, 11], 2: [3, 6, 9, 12]}


def test_views_share_a_storage_and_copies_do_not():
    t = base(6).reshape(2, 3).float()
    keys = {tensorfig.layout(v).storage_key for v in (t, t.T, t[:, 1:], t.view(3, 2))}
    assert len(keys) == 1
    assert tensorfig.layout(t.T.contiguous()).storage_key not in keys
    assert tensorfig.layout(t.clone()).storage_key not in keys


def rows_of(source: str) -> list[str]:
    return re.findall(r"<TR>.*?</TR>", source)


def order_cells(row: str) -> list[str]:
    """The visit-order cells of a tensor's row in the memory figure (Bengali digits → western)."""
    cells = re.findall(r'<TD(?: BGCOLOR="[^"]+")?>(?:<B>([^<]*)</B>)?</TD>', row)
    return [c.translate(BN) for c in cells]


def test_the_memory_figure_shows_the_order_each_tensor_reads_the_storage():
    t = torch.tensor([[11, 12, 13], [21, 22, 23]])
    figure = tensorfig.memory(t, t.T, t[:, 1:], names=["t", "t.T", "t[:, 1:]"])
    source = figure.source
    tensor_rows = [r for r in rows_of(source) if "stride (" in r]
    assert len(tensor_rows) == 3 and "offset 1" in tensor_rows[2]
    assert order_cells(tensor_rows[0])[:6] == ["1", "2", "3", "4", "5", "6"]
    assert order_cells(tensor_rows[1])[:6] == ["1", "3", "5", "2", "4", "6"]   # t.T jumps
    assert order_cells(tensor_rows[2])[:6] == ["", "1", "2", "", "3", "4"]     # two cells unread
    assert "stride (1, 3)" in source and "contiguous: না" in source
    # One table: the three tensors share one storage.
    assert source.count("<TABLE") - source.count('CELLPADDING="2"') == 1
    assert "t.T: আকার (3, 2), stride (1, 3)" in figure.alt


def test_the_figure_changes_with_the_tensor():
    t = torch.tensor([[11, 12, 13], [21, 22, 23]])
    assert tensorfig.memory(t).source != tensorfig.memory(t.T).source
    assert tensorfig.memory(t).source != tensorfig.memory(t + 1).source
    assert tensorfig.memory(t).source == tensorfig.memory(t.clone()).source


def test_separate_storages_are_separate_tables():
    row = torch.tensor([6.25, 3.0, 0.5])
    source = tensorfig.memory(row.expand(3, 3), row.repeat(3, 1), names=["e", "r"]).source
    assert source.count("storage-এর ঘর") == 2 and "n0 -> n1 [style=invis]" in source
    assert "(৩টি ঘর, float32, ১২ byte)" in source and "(৯টি ঘর, float32, ৩৬ byte)" in source


def test_a_3d_tensor_is_drawn_as_a_row_of_grids():
    source = tensorfig.memory(base(12).reshape(2, 3, 2).permute(2, 0, 1), names=["p"]).source
    assert "[0]" in source and "[1]" in source and "stride (1, 6, 2)" in source


def test_a_long_storage_draws_the_window_the_tensors_read():
    big = base(200)
    source = tensorfig.memory(big[100:110:3], names=["s"]).source
    assert ">100<" in source and ">109<" in source and ">99<" not in source and "…" in source


@pytest.mark.parametrize("make, message", [
    (lambda: torch.ones(3, device="meta"), "meta"),
    (lambda: torch.ones(2, 2, 2, 2), "3 dimensions"),
    (lambda: torch.ones(100), "too many"),
    (lambda: torch.ones(0), "no elements"),
    (lambda: torch.ones(3).to_sparse(), "strided"),
], ids=["meta", "4-d", "large", "empty", "sparse"])
def test_what_cannot_be_drawn_is_refused_with_a_reason(make, message):
    with pytest.raises(ValueError, match=message):
        tensorfig.layout(make())


def test_a_view_spread_over_too_much_storage_is_refused():
    with pytest.raises(ValueError, match="storage cells"):
        tensorfig.memory(base(400)[::30][:5])


SIZES = [(), (1,), (3,), (2, 1), (1, 3), (2, 3), (3, 1, 2), (1, 1, 3), (2, 2)]


@pytest.mark.parametrize("a, b", list(itertools.product(SIZES, SIZES)))
def test_the_broadcast_plan_agrees_with_torch(a, b):
    try:
        want = tuple(torch.broadcast_shapes(a, b))
    except RuntimeError:
        want = None
    if not a and not b:
        want = ()
    plan = tensorfig.broadcast_plan(a, b)
    assert plan.result == want
    assert (plan.conflict is None) == (want is not None)
    if want is not None:
        for k, shape in enumerate((a, b)):
            assert plan.stretched_stride(k) == torch.empty(shape).expand(want).stride()
        assert contiguous_stride(want) == torch.empty(want).stride()


def test_the_broadcast_figure_marks_stretched_and_clashing_columns():
    silent = tensorfig.broadcast((400, 1), (400,), names=["guess", "y"])
    assert silent.source.count(style.USED_FILL) == 2 and "ফলের আকার (400, 400)" in silent.source
    assert "(400, 400) · stride (1, 0)" in silent.source and "(400, 400) · stride (0, 1)" in silent.source
    clash = tensorfig.broadcast((7, 4), (7,), names=["trips", "day"])
    assert 'BORDER="3"' in clash.source and "মেলে না: মাত্রা −১-এ 4 বনাম 7" in clash.source
    assert "মেলে না" in clash.alt and "ফলের আকার" not in clash.source
    same = tensorfig.broadcast(torch.zeros(400, 3), torch.zeros(3), names=["X", "mu"])
    assert same.source.count(style.USED_FILL) == 1 and "সমান" in same.source


def luma(hex_colour: str) -> float:
    r, g, b = (int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_marks_survive_greyscale():
    """Fills differ in lightness, and each mark also has a word or a border."""
    fills = [style.USED_FILL, style.CLASH_FILL, style.HEAD_FILL, "#ffffff"]
    lumas = sorted(luma(f) for f in fills)
    assert all(b - a >= 0.05 for a, b in zip(lumas, lumas[1:])), lumas
    clash = tensorfig.broadcast((7, 4), (7,)).source
    assert 'BORDER="3"' in clash  # the clashing column is also drawn thick


def test_slides_get_paths_and_the_handout_a_pdf(tmp_path):
    t = torch.tensor([[11, 12, 13], [21, 22, 23]])
    figure = tensorfig.memory(t, t.T, names=["t", "t.T"])
    svg = figure.svg()
    assert "<text" not in svg and "<path" in svg  # glyphs as paths: the viewer's fonts play no part
    width, height, box = re.search(r'width="([\d.]+)pt" height="([\d.]+)pt" viewBox="0 0 ([\d.]+)', svg).groups()
    assert abs(float(width) / float(box) - 1.25) < 0.01
    # Labels at 1.25 × 14 pt show at ≥ 18 px before the slide scales the picture.
    assert style.TEXT_PT * 1.25 * 4 / 3 >= 18 and style.SMALL_PT * 1.25 * 4 / 3 >= 18
    assert figure.svg() == svg and figure.source == tensorfig.memory(t, t.T, names=["t", "t.T"]).source
    pdf = figure.save(tmp_path / "m.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and b"/CreationDate (D:20000101000000" in pdf
    bundle = figure._repr_mimebundle_()
    assert set(bundle) == {"image/svg+xml", "application/pdf", "text/vnd.graphviz", "text/plain"}
