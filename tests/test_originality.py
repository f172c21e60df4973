"""Our wording is our own: no run of 8 or more tokens may be shared with the seed page of lecture 09.

Both texts are split on whitespace after a light normalisation applied to both sides alike
(markdown marks and quotes dropped, the Bengali danda read as a full stop, inline
expressions and claim conditions removed). A shared run is reported with its file and text.
The only exceptions are the facts in ALLOWED: each is folded into a single token on both sides
before the comparison, so the words around it are still checked.
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The seed page belongs to lecture 09; every lecture's sources and all course code are compared with
# it (a later lecture must not copy it either). Its exercise answers are checked in lecture 09 only.
SEED = Path("/work/shared/seed/lecture-09-nn-module.txt")
SEED_LECTURE = ROOT / "lectures" / "09-nn-module"
N = 8

# Facts rather than wording: (text, why it has to stay as it is).
ALLOWED = [
    ("nn.Sequential( nn.Linear(3, 16), nn.ReLU(), nn.Dropout(p_drop), nn.Linear(16, 8),",
     "the required DeliveryMLP layout; its positions give the state_dict keys hidden.0 and hidden.3"),
    ('self.a = nn.Linear(4, 2) self.b = [nn.Linear(2, 2)] self.register_buffer("s", torch.ones(2)) '
     "self.c = nn.Sequential(nn.ReLU(), nn.Linear(2, 1))",
     "exercise 3's given class; its answer is the keys ['s','a.weight','a.bias','c.1.weight','c.1.bias'] and 13"),
    ("Expected all tensors to be on the same device",
     "torch's own error message, quoted verbatim"),
    ("সময় = ২০ + ২.৫ × দূরত্ব",
     "the formula the data are generated from"),
    ("Building Models with nn.Module — Registration, nn.Linear, Parameter Counts, Buffers, "
     "state_dict and train/eval",
     "the episode's English title (a name, in index.qmd's front matter)"),
]

INLINE = re.compile(r"(?<!`)`\{python\}[^`\n]*`")
CLAIM = re.compile(r'\{\.claim check="[^"]*"\}')
MARKS = str.maketrans("", "", "`*[]$“”\"'")


def tokens(text):
    text = CLAIM.sub(" ", INLINE.sub(" ", text))
    out = []
    for tok in text.split():
        tok = tok.translate(MARKS).replace("।", ".")
        if tok:
            out.append(tok)
    return out


FACTS = [tokens(text) for text, _ in ALLOWED]


def fold_facts(toks):
    """Each allowed fact becomes one token ⟨fact i⟩."""
    out, i = [], 0
    while i < len(toks):
        for k, fact in enumerate(FACTS):
            if toks[i:i + len(fact)] == fact:
                out.append(f"⟨fact {k}⟩")
                i += len(fact)
                break
        else:
            out.append(toks[i])
            i += 1
    return out


def shared_runs(toks, grams):
    """Maximal runs of toks made of consecutive N-grams found in grams."""
    runs = []
    for i in range(len(toks) - N + 1):
        if tuple(toks[i:i + N]) in grams:
            if runs and i <= runs[-1][1] - N + 1:
                runs[-1][1] = i + N
            else:
                runs.append([i, i + N])
    return [" ".join(toks[a:b]) for a, b in runs]


def sources():
    return sorted((ROOT / "lectures").glob("**/*.qmd")) + sorted((ROOT / "code").glob("**/*.py"))


needs_seed = pytest.mark.skipif(not SEED.exists(), reason="the seed page is not on this machine")


@needs_seed
def test_no_run_of_eight_tokens_shared_with_the_seed():
    seed = fold_facts(tokens(SEED.read_text()))
    grams = {tuple(seed[i:i + N]) for i in range(len(seed) - N + 1)}
    found = []
    for path in sources():
        for run in shared_runs(fold_facts(tokens(path.read_text())), grams):
            found.append(f"{path.relative_to(ROOT)}: {run}")
    assert not found, f"{len(found)} runs shared with the seed:\n" + "\n".join(found)


@needs_seed
def test_every_allowed_fact_is_in_the_seed_and_in_our_sources():
    seed = tokens(SEED.read_text())
    ours = [tokens(path.read_text()) for path in sources()]

    def occurs(fact, toks):
        return any(toks[i:i + len(fact)] == fact for i in range(len(toks) - len(fact) + 1))

    for (text, _), fact in zip(ALLOWED, FACTS):
        assert occurs(fact, seed), f"not in the seed, so not needed: {text}"
        assert any(occurs(fact, toks) for toks in ours), f"not in our sources, so not needed: {text}"


def test_the_detector_flags_copied_text():
    grams = {("a", "b", "c", "d", "e", "f", "g", "h")}
    assert shared_runs("x a b c d e f g h y".split(), grams) == ["a b c d e f g h"]
    assert shared_runs("a b c d e f g".split(), grams) == []
    fact = FACTS[2]
    assert fold_facts(["x", *fact, "y"]) == ["x", "⟨fact 2⟩", "y"]


# Numbers the prose quotes from outputs are inline expressions; the exercise answers above all.
FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
EXERCISE_ANSWERS = {
    3523: ("3523", "3,523", "৩৫২৩", "৩,৫২৩"),
    115: ("115", "১১৫"),
    13: ("13", "১৩"),
}


def prose(text):
    """The text outside code cells, inline expressions and claim conditions."""
    text = FENCE.sub("\n", text)
    return CLAIM.sub(" ", INLINE.sub(" ", text))


def typed(number_forms, text):
    digit = "0-9০-৯"
    hits = []
    for form in number_forms:
        pattern = rf"(?<![{digit}])(?<![{digit}][.,]){re.escape(form)}(?![{digit}])(?![.,][{digit}])"
        hits += [m.group(0) for m in re.finditer(pattern, text)]
    return hits


def test_exercise_answers_are_not_typed():
    text = prose((SEED_LECTURE / "_11-questions.qmd").read_text())
    for answer, forms in EXERCISE_ANSWERS.items():
        assert not typed(forms, text), f"exercise answer {answer} is typed in _11-questions.qmd's prose"


def test_the_typed_number_check_sees_typed_numbers():
    sample = "মোট ৩,৫২৩ আর `{python} bn(115)` আর ১৩৪৪\n```{python}\nx = 13\n```\n"
    assert typed(EXERCISE_ANSWERS[3523], prose(sample)) == ["৩,৫২৩"]
    assert typed(EXERCISE_ANSWERS[115], prose(sample)) == []
    assert typed(EXERCISE_ANSWERS[13], prose(sample)) == []
