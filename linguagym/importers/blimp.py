"""BLiMP (Warstadt et al. 2020) into suites: one suite per paradigm (``UID``), an item per minimal pair.

A BLiMP file is JSON Lines, one pair a line: ``sentence_good``, ``sentence_bad``, ``UID`` (the paradigm),
``linguistics_term``, ``field``, ``pairID`` (``pair_id`` on the Hugging Face hub) and method flags. Each suite
has conditions ``good`` and ``bad``, one region (the whole sentence) and the prediction that the good sentence
is the less surprising: BLiMP's own measure (the full-sentence "simple LM method"), so a suite's accuracy is the
paradigm's accuracy as the paper reports it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from linguagym.importers.common import checked, input_error, json_lines, pair_suite, text_field, whole_number
from linguagym.suites.model import Suite

REFERENCE = ("Warstadt, Parrish, Liu, Mohananey, Peng, Wang & Bowman (2020). BLiMP: The Benchmark of Linguistic "
             "Minimal Pairs for English. TACL 8.")

# The paper's 12 phenomena, in its order, with the short names of its tables.
PHENOMENA = {
    "anaphor_agreement": ("Anaphor agreement", "Ana. agr"),
    "argument_structure": ("Argument structure", "Arg. str"),
    "binding": ("Binding", "Binding"),
    "control_raising": ("Control/raising", "Ctrl. rais"),
    "determiner_noun_agreement": ("Determiner-noun agreement", "D-N agr"),
    "ellipsis": ("Ellipsis", "Ellipsis"),
    "filler_gap_dependency": ("Filler-gap", "Filler gap"),
    "irregular_forms": ("Irregular forms", "Irregular"),
    "island_effects": ("Island effects", "Island"),
    "npi_licensing": ("NPI licensing", "NPI"),
    "quantifiers": ("Quantifiers", "Quantifiers"),
    "subject_verb_agreement": ("Subject-verb agreement", "S-V agr"),
}

# Each paradigm's phenomenon as the paper groups them (raw_results/summary/models_summary.jsonl of
# github.com/alexwarstadt/blimp). The data files' own linguistics_term differs for some paradigms (the
# animate_subject ones say "s-selection", grouped under argument structure), so it is kept in meta, not used here.
PARADIGMS = {
    "anaphor_agreement": ("anaphor_gender_agreement", "anaphor_number_agreement"),
    "argument_structure": ("animate_subject_passive", "animate_subject_trans", "causative", "drop_argument",
                           "inchoative", "intransitive", "passive_1", "passive_2", "transitive"),
    "binding": ("principle_A_c_command", "principle_A_case_1", "principle_A_case_2", "principle_A_domain_1",
                "principle_A_domain_2", "principle_A_domain_3", "principle_A_reconstruction"),
    "control_raising": ("existential_there_object_raising", "existential_there_subject_raising",
                        "expletive_it_object_raising", "tough_vs_raising_1", "tough_vs_raising_2"),
    "determiner_noun_agreement": ("determiner_noun_agreement_1", "determiner_noun_agreement_2",
                                  "determiner_noun_agreement_irregular_1", "determiner_noun_agreement_irregular_2",
                                  "determiner_noun_agreement_with_adj_2",
                                  "determiner_noun_agreement_with_adj_irregular_1",
                                  "determiner_noun_agreement_with_adj_irregular_2",
                                  "determiner_noun_agreement_with_adjective_1"),
    "ellipsis": ("ellipsis_n_bar_1", "ellipsis_n_bar_2"),
    "filler_gap_dependency": ("wh_questions_object_gap", "wh_questions_subject_gap",
                              "wh_questions_subject_gap_long_distance", "wh_vs_that_no_gap",
                              "wh_vs_that_no_gap_long_distance", "wh_vs_that_with_gap",
                              "wh_vs_that_with_gap_long_distance"),
    "irregular_forms": ("irregular_past_participle_adjectives", "irregular_past_participle_verbs"),
    "island_effects": ("adjunct_island", "complex_NP_island", "coordinate_structure_constraint_complex_left_branch",
                       "coordinate_structure_constraint_object_extraction", "left_branch_island_echo_question",
                       "left_branch_island_simple_question", "sentential_subject_island", "wh_island"),
    "npi_licensing": ("matrix_question_npi_licensor_present", "npi_present_1", "npi_present_2",
                      "only_npi_licensor_present", "only_npi_scope", "sentential_negation_npi_licensor_present",
                      "sentential_negation_npi_scope"),
    "quantifiers": ("existential_there_quantifiers_1", "existential_there_quantifiers_2", "superlative_quantifiers_1",
                    "superlative_quantifiers_2"),
    "subject_verb_agreement": ("distractor_agreement_relational_noun", "distractor_agreement_relative_clause",
                               "irregular_plural_subject_verb_agreement_1",
                               "irregular_plural_subject_verb_agreement_2",
                               "regular_plural_subject_verb_agreement_1", "regular_plural_subject_verb_agreement_2"),
}
PHENOMENON_OF = {uid: phenomenon for phenomenon, uids in PARADIGMS.items() for uid in uids}
ALL_UIDS = tuple(PHENOMENON_OF)  # the 67 paradigms


def phenomenon(uid: str, linguistics_term: str | None) -> str:
    """A paradigm's phenomenon: the paper's grouping for BLiMP's 67 paradigms, else the file's linguistics_term."""
    return PHENOMENON_OF.get(uid) or linguistics_term or "unknown"


def blimp_suites(rows: Iterable[tuple[int, dict]], source: str) -> list[Suite]:
    """Suites from BLiMP records (each with the line it came from), one per UID in order of first appearance."""
    by_uid: dict[str, list[tuple[int, dict]]] = {}
    for line, record in rows:
        uid = record.get("UID")
        if not isinstance(uid, str) or not uid.strip():
            raise input_error(source, line, "no UID (the paradigm's name)",
                              hint="BLiMP records carry UID, sentence_good and sentence_bad")
        by_uid.setdefault(uid.strip(), []).append((line, record))
    if not by_uid:
        raise input_error(source, None, "holds no records", hint="a BLiMP file has one JSON object a line")
    return [_paradigm(uid, records, source) for uid, records in by_uid.items()]


def _paradigm(uid: str, records: list[tuple[int, dict]], source: str) -> Suite:
    pairs: list[tuple[int, str, str]] = []
    lines_of: dict[int, int] = {}  # pairID -> the line that gave it
    for position, (line, record) in enumerate(records):
        good = text_field(source, line, record, ("sentence_good",))
        bad = text_field(source, line, record, ("sentence_bad",))
        raw_id = record.get("pairID", record.get("pair_id"))
        number = whole_number(raw_id) if raw_id is not None else position
        if number is None:
            raise input_error(source, line, f"pairID {raw_id!r} is not a whole number")
        if number in lines_of:
            raise input_error(source, line, f"pairID {number} of {uid} was already given on line {lines_of[number]}",
                              hint="each pair of a paradigm needs its own pairID")
        lines_of[number] = line
        pairs.append((number, good, bad))
    first = records[0][1]
    term = first.get("linguistics_term") if isinstance(first.get("linguistics_term"), str) else None
    extra = {
        "source": "BLiMP",
        "reference": REFERENCE,
        "uid": uid,
        "phenomenon": phenomenon(uid, term),
        "linguistics_term": term or "",
        "field": first.get("field") if isinstance(first.get("field"), str) else "",
        "imported_from": Path(source).name,
    }
    # item numbers are BLiMP's pairIDs, so an item in the results is the pair of that ID in the data
    return checked(pair_suite(uid, pairs, extra), f"{source} ({uid})")


def read_blimp(path: str | Path) -> list[Suite]:
    """The suites of one BLiMP JSON Lines file (one per paradigm it holds; BLiMP's files hold one each)."""
    return blimp_suites(json_lines(path), str(path))
