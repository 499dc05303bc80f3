"""Turn tokenised text (Penn Treebank style, as in the SST and sentence-polarity files) into ordinary text.

``did n't`` -> ``didn't``, ``-LRB- a -RRB-`` -> ``(a)``, ````` `` a '' ````` -> ``"a"``, no space before
``, . ! ? ; : %`` and closing brackets. Straight double quotes are paired left to right. Text that is not
tokenised passes through unchanged apart from runs of spaces.
"""

from __future__ import annotations

import re

_BRACKETS = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}"}
_CLITICS = {"n't", "'s", "'re", "'ve", "'ll", "'d", "'m", "'", "’s", "n’t"}
_NO_SPACE_BEFORE = {",", ".", "!", "?", ";", ":", "%", ")", "]", "}", "...", "…"}
_NO_SPACE_AFTER = {"(", "[", "{", "$", "#"}


def detokenize(text: str) -> str:
    """Ordinary text from a whitespace-tokenised sentence."""
    tokens = text.replace("``", ' " ').replace("''", ' " ').split()
    tokens = [_BRACKETS.get(token, token) for token in tokens]  # "ca n't" and "wo n't" just join
    out: list[str] = []
    glue_next = False  # no space before the next token (after an opening bracket or quote)
    quote_open = False
    for token in tokens:
        if token == "`":
            token = "'"
        if token == '"':
            if quote_open:
                out.append(token)  # closing: attach to the previous token
                quote_open = False
                glue_next = False
                continue
            quote_open = True
            out.append(" " + token if out else token)
            glue_next = True
            continue
        lower = token.lower()
        if out and (lower in _CLITICS or token in _NO_SPACE_BEFORE or glue_next):
            out.append(token)
        else:
            out.append(" " + token if out else token)
        glue_next = token in _NO_SPACE_AFTER
    return re.sub(r"\s+", " ", "".join(out)).strip()


def normalise_space(text: str) -> str:
    """Collapse runs of whitespace (the Rotten Tomatoes file keeps several spaces where a dash was) and drop
    spaces before , ; : ! ? and a period (it writes "Italian , Chinese" where hyphens were removed)."""
    return re.sub(r"\s+([,;:!?]|\.(?!\.))", r"\1", re.sub(r"\s+", " ", text)).strip()


def recase(text: str) -> str:
    """Capitalise the first letter and the pronoun "I" of a lower-cased sentence (names stay lower case)."""
    text = re.sub(r"(?<![\w'])i(?=$|[\s,.;:!?'’])", "I", text)
    return text[:1].upper() + text[1:]
