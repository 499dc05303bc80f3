"""Phrase structure from a dependency parse (spaCy's ClearNLP-style labels), in the Penn Treebank's style.

Each head word projects a phrase of the category its tag gives (nouns NP, adjectives ADJP, adverbs ADVP,
prepositions PP, particles PRT, verbs VP inside S). The rules follow the PTB bracketing guidelines where a
dependency parse holds enough to do so: base noun phrases are flat (``NP -> DT JJ NN``) and post-modifiers
nest them (``NP -> NP PP``); single-word premodifiers stay bare tags; auxiliaries nest verb phrases
(``VP -> VBZ VP``); a clause is ``S -> NP VP .`` with sentence-level adverbials beside the subject;
complementisers and relative pronouns open ``SBAR`` (``WHNP``/``WHADVP``); coordination gives
``X -> X CC X``. Empty elements (traces) are not produced: the gold trees are compared after ``-NONE-`` is
dropped. ``benchmarks/parsers.py`` measures the result against the treebank.
"""

from __future__ import annotations

from linguagym.capabilities.syntax.trees import PUNCTUATION_TAGS, Tree

VERSION = "1"  # bump when the rules change: cached grammars and parses depend on it
SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
_NOMINAL_ROLES = frozenset({"nsubj", "nsubjpass", "dobj", "pobj", "attr", "dative", "npadvmod", "appos", "expl",
                            "oprd", "ROOT", "conj", "dep", "nmod"})
_WH_TAGS = frozenset({"WDT", "WP", "WP$", "WRB"})
_NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "PRP", "EX", "WP", "CD", "DT", "FW", "ADD", "XX", "$", "SYM"})
_TAG_MAP = {"HYPH": ":", "NFP": ":", "ADD": "NN", "XX": "FW", "AFX": "JJ", "_SP": ":", "": "NN"}
# dependents that stay bare tags inside their head's phrase when they have no dependents of their own
_BARE_IN = {
    "NP": frozenset({"det", "amod", "compound", "nummod", "poss", "predet", "nmod", "quantmod", "case", "punct",
                     "cc", "preconj", "neg", "advmod", "prt", "aux", "dep"}),
    "ADJP": frozenset({"advmod", "neg", "punct", "cc", "det", "npadvmod", "quantmod", "preconj", "nummod"}),
    "ADVP": frozenset({"advmod", "neg", "punct", "cc", "det", "preconj"}),
    "PP": frozenset({"punct", "cc", "advmod", "neg", "preconj"}),
}
_FLATTEN = frozenset({"compound", "nmod"})  # multi-word modifiers folded into a flat base NP


def tag_of(token) -> str:
    return _TAG_MAP.get(token.tag_, token.tag_)


def leaf(token) -> Tree:
    return Tree(tag_of(token), [token.text])


def category(token) -> str:
    tag = tag_of(token)
    if tag.startswith("VB") or tag == "MD":
        return "S"
    if tag.startswith("JJ"):
        return "NP" if token.dep_ in ("nsubj", "dobj", "pobj") else "ADJP"
    if tag in ("RB", "RBR", "RBS", "WRB"):
        return "ADVP"
    if tag in ("IN", "TO"):
        return "PP" if any(c.dep_ in ("pobj", "pcomp") for c in token.children) else "ADVP" if tag == "IN" else "PP"
    if tag == "RP":
        return "PRT"
    if tag == "UH":
        return "INTJ"
    return "NP"


def doc_to_tree(doc) -> Tree:
    """One tree for a spaCy ``Doc``: each sentence's tree; several sentences are joined under ``S``."""
    trees = [convert(sent.root) for sent in doc.sents]
    trees = [t if t.label != "VP" else Tree("S", [t]) for t in trees]
    return trees[0] if len(trees) == 1 else Tree("S", list(trees))


def convert(token, role: str | None = None) -> Tree:
    """The phrase headed by ``token`` (its whole subtree)."""
    role = role or token.dep_
    if category(token) == "S":
        return _clause(token, role)
    return _phrase(token, role)


def _is_bare(token) -> bool:
    return not any(True for _ in token.children)


def _child(token, parent_category: str) -> Tree:
    """A dependent inside a phrase of ``parent_category``: a bare tag or its own phrase."""
    if _is_bare(token):
        if token.dep_ in _BARE_IN.get(parent_category, ()) or tag_of(token) in PUNCTUATION_TAGS:
            return leaf(token)
        if parent_category == "NP" and token.dep_ == "amod":
            return leaf(token)
        if category(token) == "S" and token.dep_ in ("acl", "amod", "advcl", "xcomp", "ccomp", "pcomp", "relcl"):
            return Tree("VP", [leaf(token)])
    return convert(token)


def _phrase(token, role: str) -> Tree:
    cat = category(token)
    children = list(token.children)
    conjuncts = [c for c in children if c.dep_ == "conj"]
    if conjuncts:
        return _coordinate(token, cat, role)
    left = [c for c in children if c.i < token.i]
    right = [c for c in children if c.i > token.i]
    if cat == "NP":
        return _noun_phrase(token, left, right, role)
    items: list[Tree | str] = [*(_child(c, cat) for c in left), leaf(token), *(_child(c, cat) for c in right)]
    if cat == "PP" and len(items) == 1 and role in ("prep", "agent", "dative"):
        return Tree("PP", items)
    return Tree(cat, items)


def _noun_phrase(token, left, right, role: str) -> Tree:
    base: list[Tree | str] = []
    for c in left:
        if c.dep_ in _FLATTEN and not any(g.dep_ in ("prep", "relcl", "acl", "conj") for g in c.children):
            base.extend(leaf(t) for t in c.subtree)
        elif c.dep_ == "poss" and not _is_bare(c):
            base.append(convert(c))
        else:
            base.append(_child(c, "NP"))
    base.append(leaf(token))
    post: list[Tree | str] = []
    for c in right:
        if c.dep_ in ("prep", "relcl", "acl", "appos", "advcl", "ccomp", "punct", "cc", "prt", "dep", "npadvmod",
                      "advmod", "nmod", "conj", "quantmod") and (post or not _is_bare(c)
                                                                  or c.dep_ in ("prep", "appos", "acl", "relcl")):
            post.append(_child(c, "NP") if c.dep_ != "appos" else convert(c))
        elif post:
            post.append(_child(c, "NP"))
        else:
            base.append(_child(c, "NP"))
    if not post:
        return Tree("NP", base)
    # trailing punctuation right after the base belongs outside
    return Tree("NP", [Tree("NP", base), *post])


def _coordinate(token, cat: str, role: str) -> Tree:
    """``X -> X , X CC X``: the head's own phrase (without its conjuncts), then the rest in order."""
    children = sorted(token.children, key=lambda c: c.i)
    conj = [c for c in children if c.dep_ == "conj"]
    first_conj = conj[0].i
    inner = [c for c in children if c.dep_ not in ("conj", "cc", "preconj")
             and not (c.dep_ == "punct" and c.i > token.i and c.i < conj[-1].i)]
    outer = [c for c in children if c not in inner]
    head = _Restricted(token, inner)
    head_tree = _clause(head, role) if cat == "S" else _phrase(head, role)
    pieces: list[tuple[int, Tree]] = [(token.i, head_tree)]
    for c in outer:
        if c.dep_ == "conj":
            pieces.append((c.i, convert(c, "conj") if category(c) != "S" else _clause(c, "conj")))
        else:
            pieces.append((c.i, leaf(c) if _is_bare(c) else convert(c)))
    pieces.sort(key=lambda p: p[0])
    trees = [t for _, t in pieces]
    label = head_tree.label
    if all(t.is_preterminal or t.label in PUNCTUATION_TAGS for t in trees) and first_conj:
        return Tree(cat if cat != "S" else "VP", [*trees])
    return Tree(label, [*trees])


class _Restricted:
    """A token seen with only some of its dependents (for the first conjunct of a coordination)."""

    def __init__(self, token, children) -> None:
        self._token = token
        self._children = children

    def __getattr__(self, name):
        return getattr(self._token, name)

    @property
    def children(self):
        return iter(self._children)

    @property
    def subtree(self):
        out = [self._token]
        for c in self._children:
            out.extend(c.subtree)
        return sorted(out, key=lambda t: t.i)


def _clause(token, role: str) -> Tree:
    children = sorted(token.children, key=lambda c: c.i)
    if any(c.dep_ == "conj" for c in children):
        return _coordinate_clause(token, role, children)
    subjects = [c for c in children if c.dep_ in SUBJECTS]
    marks = [c for c in children if c.dep_ == "mark" and c.i < token.i]
    wh = None
    first_left = next((c for c in children if c.i < token.i and c.dep_ not in ("punct", "mark", "cc")), None)
    if first_left is not None and role in ("relcl", "ccomp", "advcl", "acl", "pcomp", "ROOT", "xcomp") and (
            tag_of(first_left) in _WH_TAGS or (role == "relcl" and any(tag_of(t) in _WH_TAGS
                                                                       for t in first_left.subtree))):
        wh = first_left
    if wh is not None:
        subjects = [s for s in subjects if s is not wh]
    # split the dependents: S-level left (before the subject or the first verb), the VP material, trailing punct
    auxiliaries = [c for c in children if c.dep_ in ("aux", "auxpass") and c.i < token.i]
    verb_start = min([a.i for a in auxiliaries] + [token.i])
    trailing: list = []
    for c in reversed(children):
        if c.i > token.i and c.dep_ == "punct" and tag_of(c) in PUNCTUATION_TAGS:
            trailing.insert(0, c)
        else:
            break
    outside = set(marks) | set(trailing) | ({wh} if wh is not None else set())
    s_left = [c for c in children if c.i < verb_start and c not in outside]
    vp_children = [c for c in children if c.i >= verb_start and c not in outside and c.dep_ not in SUBJECTS]
    vp = _verb_phrase(token, auxiliaries, vp_children)
    s_items: list[Tree | str] = [*(_child_in_clause(c) for c in s_left), vp, *(_child_in_clause(c) for c in trailing)]
    has_subject = bool(subjects)
    to_infinitive = any(tag_of(a) == "TO" for a in auxiliaries)
    if has_subject or role in ("ROOT", "ccomp", "advcl", "csubj", "parataxis") or to_infinitive or wh is not None \
            or marks or role == "relcl":
        clause = Tree("S", s_items)
    elif len(s_items) == 1:
        clause = vp
    else:
        clause = Tree("S", s_items)
    if wh is not None:
        wh_label = "WHADVP" if tag_of(wh) == "WRB" else "WHPP" if category(wh) == "PP" else "WHNP"
        wh_tree = Tree(wh_label, [leaf(t) for t in wh.subtree]) if category(wh) != "PP" else convert(wh)
        return Tree("SBAR", [*[leaf(m) for m in marks], wh_tree, clause])
    if marks:
        return Tree("SBAR", [*[leaf(m) if _is_bare(m) else convert(m) for m in marks], clause])
    if role in ("ccomp", "relcl") and clause.label == "S":
        return Tree("SBAR", [clause])
    return clause


def _child_in_clause(c) -> Tree:
    tag = tag_of(c)
    if _is_bare(c):
        if tag in PUNCTUATION_TAGS or c.dep_ in ("cc", "punct", "preconj"):
            return leaf(c)
        if c.dep_ in ("advmod", "neg") or category(c) == "ADVP":
            return Tree("ADVP", [leaf(c)])
        if c.dep_ == "intj":
            return Tree("INTJ", [leaf(c)])
        if c.dep_ in ("aux", "auxpass"):
            return leaf(c)
        if c.dep_ == "prep":
            return Tree("PP", [leaf(c)])
        if c.dep_ in ("acomp",):
            return Tree("ADJP", [leaf(c)])
        if c.dep_ == "prt":
            return Tree("PRT", [leaf(c)])
        if category(c) == "S":
            return Tree("VP", [leaf(c)])
        if category(c) == "NP":
            return Tree("NP", [leaf(c)])
        return leaf(c)
    return convert(c)


def _verb_phrase(token, auxiliaries: list, children: list) -> Tree:
    """Nested VPs: ``VP -> aux VP`` for each auxiliary, the head verb's VP innermost."""
    chain = [*auxiliaries, token]
    layers: list[list[Tree]] = [[] for _ in chain]
    for c in children:
        if c in auxiliaries:
            continue
        # a dependent goes to the layer of the last verb before it (right dependents: the head's layer)
        level = len(chain) - 1
        for k, verb in enumerate(chain):
            if c.i < verb.i:
                level = max(k - 1, 0) if k > 0 else 0
                break
        layers[level].append(_child_in_clause(c))
    inner: Tree | None = None
    for k in range(len(chain) - 1, -1, -1):
        verb = chain[k]
        items: list[Tree | str] = [leaf(verb), *layers[k]] if inner is None else [leaf(verb), *layers[k], inner]
        inner = Tree("VP", items)
    assert inner is not None
    return inner


def _coordinate_clause(token, role: str, children: list) -> Tree:
    conj = [c for c in children if c.dep_ == "conj"]
    conj_has_subject = any(any(g.dep_ in SUBJECTS for g in c.children) for c in conj)
    if conj_has_subject or category(conj[0]) != "S":
        return _coordinate(token, "S", role)
    # VP coordination under one subject: S -> NP (VP VP CC VP) .
    last = conj[-1].i
    inner = [c for c in children if c.dep_ not in ("conj", "cc", "preconj") and not (
        c.dep_ == "punct" and token.i < c.i < last)]
    coordinated = [c for c in children if c not in inner]
    subjects = [c for c in inner if c.dep_ in SUBJECTS]
    auxiliaries = [c for c in inner if c.dep_ in ("aux", "auxpass") and c.i < token.i]
    verb_start = min([a.i for a in auxiliaries] + [token.i])
    trailing: list = []  # spaCy tokens
    for c in reversed(inner):
        if c.i > last and c.dep_ == "punct":
            trailing.insert(0, c)
        else:
            break
    marks = [c for c in inner if c.dep_ == "mark" and c.i < token.i]
    s_left = [c for c in inner if c.i < verb_start and c not in trailing and c not in marks]
    head_vp = _verb_phrase(token, auxiliaries, [c for c in inner if c.i >= verb_start and c not in trailing
                                                and c.dep_ not in SUBJECTS and c not in marks])
    pieces = [(token.i, head_vp)]
    for c in coordinated:
        pieces.append((c.i, _clause(c, "conj") if c.dep_ == "conj" else leaf(c) if _is_bare(c) else convert(c)))
    pieces.sort(key=lambda p: p[0])
    vp = Tree("VP", [t if t.label != "S" or t.is_preterminal else Tree("VP", t.children) if all(
        x.label == "VP" for x in t.children if isinstance(x, Tree)) and len(t.children) == 1 else t
        for _, t in pieces])
    items: list[Tree | str] = [*(_child_in_clause(c) for c in s_left), vp, *(leaf(c) for c in trailing)]
    clause = Tree("S", items) if subjects or role in ("ROOT", "ccomp", "advcl") or marks else (
        vp if len(items) == 1 else Tree("S", items))
    if marks:
        return Tree("SBAR", [*[leaf(m) for m in marks], clause])
    return clause
