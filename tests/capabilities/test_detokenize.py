from __future__ import annotations

import pytest

from linguagym.capabilities.data.detokenize import detokenize, recase


@pytest.mark.parametrize(("tokens", "text"), [
    ("I did n't like it .", "I didn't like it."),
    ("It ca n't be , and it wo n't be !", "It can't be, and it won't be!"),
    ("the 21st Century 's new `` Conan '' and", 'the 21st Century\'s new "Conan" and'),
    ("a film -LRB- sort of -RRB- that works", "a film (sort of) that works"),
    ('he said " hi " to me', 'he said "hi" to me'),
    ("it costs $ 5 ... really ?", "it costs $5... really?"),
    ("we 're here ; they 've gone : 50 %", "we're here; they've gone: 50%"),
    ("Already clean text, isn't it?", "Already clean text, isn't it?"),
])
def test_detokenize(tokens, text):
    assert detokenize(tokens) == text


def test_recase_capitalises_first_letter_and_pronoun_i():
    assert recase("i think i'm right, and i did it.") == "I think I'm right, and I did it."
    assert recase("it's in italy") == "It's in italy"
