from linguagym.printable import printable


def test_terminal_steering_characters_are_shown_escaped():
    hostile = "a\x1b[31mb\x07c\x08d\re\x9b2Jf\u202eg\u2066h\u2028i\ud800j\x00k\x7f"
    shown = printable(hostile)
    assert shown == "a\\x1b[31mb\\x07c\\x08d\\x0de\\x9b2Jf\\u202eg\\u2066h\\u2028i\\ud800j\\x00k\\x7f"
    assert shown.isprintable()
    shown.encode("utf-8")  # no lone surrogate left to fail on


def test_ordinary_text_is_unchanged_and_kept_characters_stay():
    text = "Die Katze schläft. 猫が寝ている。 [bold] ∅ – “x” 😀 e\u0301 \u200d"
    assert printable(text) == text
    assert printable("one\n\ttwo\x1b", keep="\n\t") == "one\n\ttwo\\x1b"
