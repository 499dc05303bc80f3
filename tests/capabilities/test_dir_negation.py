"""DIR negation placed by the parse (issue 38): the main clause's verb takes the negation, never a verb inside a
quotation, a title or a concessive clause; a sentence whose main clause cannot be found, or whose sentiment
stands outside the negated clause, is refused with a reason. Also the rule that drops sentences run together at a
lost dash, and LC4/LC5's refusal of a seed with an evaluative phrase beyond the negation. Constructed sentences,
parsed by the real spaCy model (skipped where the [lct] extra is not installed)."""

from __future__ import annotations

import json

import pytest

from linguagym.capabilities.perturb import negation as dir_negation
from linguagym.capabilities.perturb.negation import (
    ADVERB,
    ALREADY_NEGATED,
    CANNOT_PLACE,
    CLEFT,
    CONCESSION,
    EXISTENTIAL,
    FRONTED,
    MIXED,
    NO_MAIN_CLAUSE,
    NO_VERB,
    NOT_CLEARLY_POSITIVE,
    PRAISE_IN_RELATIVE,
    PRAISE_IN_SUBJECT,
    QUANTIFIED_SUBJECT,
    REASON_CLAUSE,
    RECOMMENDATION,
    RELATIVE_OUTSIDE,
    SECOND_CLAUSE,
    SECOND_PHRASE,
    SENTIMENT_OUTSIDE,
    SIDE_PHRASE,
    SUPERLATIVE,
    UNIVERSAL_IN_SCOPE,
    negate_main_clause,
    unreached_sentiment,
)


@pytest.fixture(scope="module")
def nlp():
    pytest.importorskip("spacy")
    from linguagym.capabilities.perturb.build import load_perturbation_pipeline

    return load_perturbation_pipeline()


@pytest.fixture(scope="module")
def evaluative():
    return dir_negation.evaluative_words()


@pytest.fixture(scope="module")
def praise():
    """What DIR's check looks for outside the negated clause: positive words (criticism there keeps the pair)."""
    return dir_negation.evaluative_words("positive")


@pytest.mark.parametrize(("sentence", "negated"), [
    # a quoted title as the subject: the verb after it
    ('"The Ring" is scary in a good way.', '"The Ring" is not scary in a good way.'),
    ("I loved this film.", "I did not love this film."),
    # the base form by spelling ("shin" was spaCy's lemma); an indefinite subject with a present verb is a clause
    ("Canada's light shines bright on this film.", "Canada's light does not shine bright on this film."),
    ("A film like this makes you think.", "A film like this does not make you think."),
])
def test_the_main_clause_takes_the_negation(nlp, praise, sentence, negated):
    assert negate_main_clause(nlp(sentence), praise).text == negated


@pytest.mark.parametrize("sentence", [
    # a concession, before or after the main clause, in criticism or in praise: refused since sample 48 (a reader
    # found "Although it's a bit pricey, this knife is not worth every penny" muddled: the concession no longer
    # contrasts); before, the main clause took the negation and the concession was left as it was
    "Although the plot is thin, the film is a delight.",
    "The film is a delight, although the plot is thin.",
    "Although it sometimes descends into farce, the film works.",
    "Although it is beautifully shot, the film is a triumph.",
    "This is one of the most moving epics, and in spite of its flaws, Scorsese's best in a decade.",
])
def test_a_concession_is_refused_and_never_negated(nlp, praise, sentence):
    assert negate_main_clause(nlp(sentence), praise) == dir_negation.Negation(None, CONCESSION)


@pytest.mark.parametrize(("sentence", "reason"), [
    # the examples: the criticism under a frequency adverb with the praise after "but"; a title's verb
    ("Caruso sometimes descends into cuteness, but for the most part he makes sure the film works the way a "
     "good noir should.", ADVERB),
    ("My Wife Is an Actress works as a delightful romantic comedy.", NO_MAIN_CLAUSE),
    ('"It works beautifully."', NO_MAIN_CLAUSE),  # the whole sentence a quotation
    ("It is funny and it is moving.", SECOND_CLAUSE),
    ("It's a great film. I loved the ending.", SENTIMENT_OUTSIDE),  # a second sentence left standing
    ("The cast, a wonderful ensemble, makes it work.", FRONTED),  # a positive appositive: an aside before the verb
    # the blind reader's invalid pairs of the first 40-pair sample (benchmarks/dir_pairs_judged_first.jsonl)
    ("A sun drenched masterpiece, part parlor game, part droll social satire.", NO_VERB),  # a fragment
    ("A backstage must see for true fans of comedy.", NO_VERB),
    ("A passionately inquisitive film determined to uncover the truth.", NO_VERB),
    ("The production has been made with an enormous amount of affection, so we believe these characters love each "
     "other.", NO_MAIN_CLAUSE),  # the first clause is the claim
    ("She's as rude and profane as ever, always hilarious and, most of the time, absolutely right.", MIXED),
    ("Birthday Girl walks a tricky tightrope between being wickedly funny and just plain wicked.", MIXED),
    ("You have enough finely tuned acting to compensate for the movie's failings.", CANNOT_PLACE),  # "do not have"
    ("The story rapidly develops into a thriller.", CANNOT_PLACE),  # not "rapidly does not develop" (second sample)
])
def test_a_sentence_is_refused_where_the_negation_would_miss_its_sentiment(nlp, praise, sentence, reason):
    negation = negate_main_clause(nlp(sentence), praise)
    assert (negation.text, negation.refused) == (None, reason)


@pytest.mark.parametrize(("sentence", "reason"), [
    # the stricter rules, each from an invalid pair of the second blind sample (benchmarks/dir_pairs_judged.jsonl)
    ("There is a subversive element to this cartoon.", EXISTENTIAL),
    ("Its engaging simplicity is driven by appealing leads.", PRAISE_IN_SUBJECT),
    ("It's crafty, energetic and smart the kid is sort of like a young Ferris Bueller.", SECOND_CLAUSE),  # run-on
    ("These are lives worth watching, paths worth following.", SECOND_PHRASE),
    ("This is one of the most moving epics in recent memory, and in spite of its flaws, Scorsese's best in a "
     "decade.", CONCESSION),  # a second phrase too
    ("Canada's light shines bright on this soap opera that breathes extraordinary life into the Inuit people.",
     RELATIVE_OUTSIDE),
    ("It's rare for any movie to be as subtle and touching as The Son's Room.", SENTIMENT_OUTSIDE),
    ("The format gets used best ... to capture the dizzying heights.", ADVERB),  # a superlative adverb
])
def test_the_stricter_rules_refuse_where_the_negated_clause_does_not_carry_the_sentiment(nlp, praise, sentence,
                                                                                         reason):
    negation = negate_main_clause(nlp(sentence), praise)
    assert (negation.text, negation.refused) == (None, reason)


@pytest.mark.parametrize(("sentence", "negated"), [
    # what the stricter rules leave alone: a relative clause on the object or the predicate noun is the claim's,
    # a causative's bare clause is its complement, a list of adjectives inside one noun phrase is one phrase
    ("Bouquet gives a performance that is masterly.", "Bouquet does not give a performance that is masterly."),
    ("Promises is one film that's truly deserving of its Oscar nomination.",
     "Promises is not one film that's truly deserving of its Oscar nomination."),
    ("The film makes you think.", "The film does not make you think."),
    ("It's a wonderful, sobering, heart felt drama.", "It's not a wonderful, sobering, heart felt drama."),
])
def test_the_stricter_rules_keep_pairs_whose_negated_clause_carries_the_sentiment(nlp, praise, sentence, negated):
    assert negate_main_clause(nlp(sentence), praise).text == negated


@pytest.mark.parametrize(("sentence", "reason"), [
    # issue 38's fresh blind sample (benchmarks/dir_pairs_39*): invalid pairs both readers named, in sentences of
    # the same shapes written anew
    ("This is a really charming comedy go see it.", RECOMMENDATION),  # an imperative run on
    ("The film is clever fun. Catch it.", RECOMMENDATION),  # an imperative second sentence
    ("Ford is superb, bringing a quiet, dry delivery to the part.", SIDE_PHRASE),  # a participial phrase
    ("It recalls a solid Hitchcock thriller, with its elegant use of shadows.", SIDE_PHRASE),  # "with" + possessive
    ("The script gives the cast plenty to do, which the director handles with great skill.", SIDE_PHRASE),
    ("The sequel is a rare treat, because it's about friendship.", REASON_CLAUSE),
    ("The sequel is a rare treat because it's about friendship.", REASON_CLAUSE),
    ("The director has wisely avoided the sentimentality of his last film.", CANNOT_PLACE),  # not "has not wisely"
])
def test_the_rules_of_the_fresh_sample_refuse_praise_or_scope_the_negation_misses(nlp, praise, sentence, reason):
    negation = negate_main_clause(nlp(sentence), praise)
    assert (negation.text, negation.refused) == (None, reason)


@pytest.mark.parametrize("sentence", [
    # what those rules leave alone: a "with" phrase of manner or an absolute one, "as if" (manner, not a reason), a
    # conjunct or a complement sharing the main clause's subject, a restrictive relative clause (the comma rule
    # below refuses the first, second and fourth: these check the side-phrase, reason and imperative rules alone)
    "The film gets close to its subject, with a patience and affection.",
    "The performances are fine, with Roussillon providing comic relief.",
    "The film pulls laughs from the audience as if by cattle prod.",
    "Dong shows how intolerance has the power to deform families, then tear them apart.",
    "This film helps the audience understand grief.",
    "It is a film that rewards patience.",
])
def test_the_rules_of_the_fresh_sample_keep_pairs_they_do_not_describe(nlp, praise, sentence):
    doc = nlp(sentence)
    root = next(iter(doc.sents)).root
    assert not dir_negation.side_phrase(doc, root, praise)
    assert not dir_negation.reason_clause(root)
    assert not dir_negation.imperative_after(doc, root)


@pytest.mark.parametrize(("sentence", "reason"), [
    # the plain-claim rules, from the invalid pairs of the third blind sample (benchmarks/dir_pairs_40*), in
    # sentences of the same shapes written anew
    ("The whole cast is first rate, especially Hawke.", SECOND_PHRASE),  # anything after a comma
    ("Lee manages, with real flair, to keep the farce and the drama together.", SECOND_PHRASE),
    ("Jones offers a fresh introduction as well as some sharp observations.", SECOND_PHRASE),
    ("It's Hanks who carries the film with his easy charm.", CLEFT),
    ("What makes the film special is its honesty.", CLEFT),
    ("This is as moving a film as you'll ever see.", SUPERLATIVE),
    ("Manages to be both funny and moving.", NO_MAIN_CLAUSE),  # no subject
    ("A smart, witty follow up.", NO_VERB),  # the article's noun taken for the verb
    ("Streep gives a fine performance in this beautiful portrait of a marriage.", SIDE_PHRASE),  # a positive PP
])
def test_the_plain_claim_rules_refuse_what_readers_read_as_left_standing(nlp, praise, sentence, reason):
    negation = negate_main_clause(nlp(sentence), praise)
    assert (negation.text, negation.refused) == (None, reason)


@pytest.mark.parametrize(("sentence", "negated"), [
    # and keep: an "of" phrase is the noun's own content, an ordinary "it is a film that" (a plain comparison, "as
    # funny as the first one", was kept here until sample 55's readers read "not as epic as" as ranking it below)
    ("Streep gives a performance of great subtlety.", "Streep does not give a performance of great subtlety."),
    ("It is a film that rewards patience.", "It is not a film that rewards patience."),
])
def test_the_plain_claim_rules_keep_plain_claims(nlp, praise, sentence, negated):
    assert negate_main_clause(nlp(sentence), praise).text == negated


@pytest.mark.parametrize(("sentence", "reason"), [
    # the fifth round's rules, from the invalid pairs of the fourth blind sample (benchmarks/dir_pairs_41*), in
    # sentences of the same shapes written anew
    ("Everybody will be able to enjoy the lovely score.", QUANTIFIED_SUBJECT),  # "Everybody will not": scope
    ("Few comedies this season have been as sharp.", QUANTIFIED_SUBJECT),
    ("The sequel is sure to give you plenty of thrills.", CANNOT_PLACE),  # "is not sure to" doubts
    ("Arguably the funniest film ever made about dentists.", NO_VERB),  # a noun phrase
    ("The cast is superb and I expect there will be sequels.", SECOND_CLAUSE),  # a second sentence run on
    ("It is a rousing adventure and worth the ticket.", SECOND_PHRASE),  # "not A and B": B left standing
    ("Lin directs the drama that offers a fascinating view of village life.", PRAISE_IN_RELATIVE),
    ("Park deserves an award for making this wonderful film.", SIDE_PHRASE),  # praise deep in a phrase
    # and from the shapes the fifth sample (benchmarks/dir_pairs_42*) was expected to fail on, read before judging
    ("What a wonderfully strange movie this is.", NO_MAIN_CLAUSE),  # an exclamation: "... this is not."
    ("It's the haunting images of the coast that prove most memorable.", CLEFT),  # definite focus, praise after
    ("Seeing these actors together is both touching and pure fun.", SECOND_PHRASE),  # "not both A and B"
    # and from the sample 42's verdicts: a universal the negation makes partial, the film itself described
    ("I enjoyed every scene of this movie.", UNIVERSAL_IN_SCOPE),  # "did not enjoy every scene": most, then
    ("Lee captures every mood of the town.", UNIVERSAL_IN_SCOPE),
    ("The score is quietly effective in this tense, intimate thriller.", SIDE_PHRASE),  # "this ... thriller" stands
])
def test_the_fifth_round_refuses_scope_and_praise_the_negation_misses(nlp, praise, sentence, reason):
    negation = negate_main_clause(nlp(sentence), praise)
    assert (negation.text, negation.refused) == (None, reason)


@pytest.mark.parametrize(("sentence", "negated"), [
    # and keep: a definite subject, a predicate without a conjunct, a relative clause without praise, "full of"
    ("The score is a treat.", "The score is not a treat."),
    ("The film is full of charm.", "The film is not full of charm."),
    ("It is a comedy that works.", "It is not a comedy that works."),
    ("The two leads give wonderful performances.", "The two leads do not give wonderful performances."),
    ("It's the sweet love story that the first film wanted to be.",
     "It's not the sweet love story that the first film wanted to be."),  # no praise in the relative clause
    ("The result is something fresh and delightful.", "The result is not something fresh and delightful."),
    ("It's a fine comedy for viewers of all ages.", "It's not a fine comedy for viewers of all ages."),
])
def test_the_fifth_round_keeps_plain_claims(nlp, praise, sentence, negated):
    assert negate_main_clause(nlp(sentence), praise).text == negated


@pytest.mark.parametrize(("sentence", "reason"), [
    # the sixth round, from the sample 43's verdicts (benchmarks/dir_pairs_43*: every positive sentence's pool):
    # words before the subject, and a subject described in words VADER does not rate
    ("A wild ride into the future, the sequel is a lively adventure.", FRONTED),  # a fronted appositive
    ("As a thoughtful study of grief, the film is a success.", FRONTED),
    ("Even when it drags, the film is gripping.", FRONTED),
    ("Rarely does such talent serve such material.", FRONTED),  # an inverted clause
    ("This cheery little film is a treat.", PRAISE_IN_SUBJECT),  # "cheery": unrated by VADER
    ("The hypnotic imagery does explore the place.", PRAISE_IN_SUBJECT),
    # the seventh round, from the sample 44's verdicts: an aside before the verb, a specifying subject, "some"
    # under the negation, a comparison clause, a participle in the subject, a definite cleft, anything after
    ("Branagh, in his most forceful performance, grounds the film.", FRONTED),
    ("Hayes (in her debut) carries the film.", FRONTED),
    ("The reason to see the film is its cinematography.", CLEFT),
    ("The film packs some serious suspense.", CANNOT_PLACE),
    ("Gere puts in a fine performance as does Lane.", CANNOT_PLACE),
    ("Piccoli's moving performance is the film's reason for being.", PRAISE_IN_SUBJECT),
    ("It is Scott's portrayal of the cad that gives the film its life.", CLEFT),
    ("The film grows on you. And how.", SECOND_CLAUSE),
    # the eighth round, from reading the sample 45 (benchmarks/dir_pairs_45*: Amazon and NYT snippets) before its
    # verdicts: a second clause hung on the first's words, a deontic modal, a phrase of reason, "than ... ever"
    ("Navigation is smooth and finding files is a cinch.", SECOND_CLAUSE),
    ("I should say I have been very happy with it.", CANNOT_PLACE),  # "should not say": forbids
    ("The camera gets five stars because of its price.", REASON_CLAUSE),
    ("The speakerphone works better than any I've ever had.", SUPERLATIVE),
    # the ninth round, from the sample 45's verdicts: an additive "too", a presupposed degree, coordinated objects,
    # an adjective VADER does not rate in a relative clause not on the claim
    ("The service was very good too.", CANNOT_PLACE),  # "not very good too": "either"
    ("I am impressed with how easy this camera is to use.", SIDE_PHRASE),
    ("I love the controls and easy menus.", SECOND_PHRASE),
    ("We want you to have a good time in this museum that we are very proudful of.", PRAISE_IN_RELATIVE),
])
def test_the_sixth_round_refuses_fronted_words_and_a_described_subject(nlp, praise, sentence, reason):
    negation = negate_main_clause(nlp(sentence), praise)
    assert (negation.text, negation.refused) == (None, reason)

@pytest.mark.parametrize(("sentence", "reason"), [
    # the tenth round, from the sample 46's verdicts (benchmarks/dir_pairs_46*): a "which" clause that comments on
    # the sentence, a non-verbal second predicate, a finite verb hung on an infinitive, a counterfactual "would
    # have", "already", a subject naming the good points, an inverted "Rare is", an extraposed "it is ADJ to"
    ("It does read a wide range of cards as advertised which is very nice.", PRAISE_IN_RELATIVE),
    ("It is a sturdy bag and well worth the money.", SECOND_PHRASE),
    ("I decided to keep the phone and am very happy with it.", SECOND_CLAUSE),
    ("I would have given it five stars.", CANNOT_PLACE),
    ("The project already deserves praise.", ADVERB),
    ("Pros are the long battery life and the great screen.", CLEFT),
    ("Rare is the comedy that respects its audience.", NO_MAIN_CLAUSE),
    ("It's nice to see a thriller this clever.", SIDE_PHRASE),
    ("The score makes this lovely film a joy.", SIDE_PHRASE),  # the film itself, praised whatever is denied
    # the eleventh round, from the sample 47's verdicts (benchmarks/dir_pairs_47*): a tweet's markup and emoticons,
    # "quite"/"simply"/"just" on the verb, a contraction without its apostrophe, a list item's dash, "one of" a
    # superlative in a verb's object
    ("I love this camera :D", SENTIMENT_OUTSIDE),
    ("@someone loved your shop.", NO_MAIN_CLAUSE),
    ("The lens in #mycamera is sharp.", NO_MAIN_CLAUSE),
    ("This is quite simply the best lens.", ADVERB),
    ("Im a happier person now.", CANNOT_PLACE),
    ("- the unit is easy to use.", NO_MAIN_CLAUSE),
    ("The agency runs one of the city's lovely parks.", SIDE_PHRASE),  # a superlative is refused before
    # and from the default run's pairs judged invalid in the earlier samples: a frequency that "not" would count,
    # a lower-case word the tagger took for a name as the complement (the parse lost the sentence)
    ("It will warm your heart many times over.", ADVERB),
    ("It will make you laugh many times over.", ADVERB),
    ("The script is smart and dark hallelujah for small favors.", NO_MAIN_CLAUSE),
    # the twelfth round, from the sample 48's verdicts (benchmarks/dir_pairs_48*: review sentences written for it):
    # a concession anywhere (the negated claim no longer contrasts with it), "anything but", a focus or scale word
    # the negation takes for its own, an "it is a NOUN to ..." whose infinitive praises what it sees
    ("Although it is a bit pricey, this lamp is worth every penny.", CONCESSION),
    ("The lamp is worth every penny, though it is a bit pricey.", CONCESSION),
    ("While the cable could be longer, the sound is superb.", CONCESSION),
    ("The ending is anything but predictable.", ALREADY_NEGATED),
    ("It's easily a great show.", CANNOT_PLACE),
    ("It looks even better on the shelf than online.", CANNOT_PLACE),
    ("Her wit is matched only by her warmth.", CANNOT_PLACE),
    ("It's a joy to watch such gifted comedians at work.", SIDE_PHRASE),
    # the thirteenth round, from the sample 49's verdicts (benchmarks/dir_pairs_49*): a "so/such ... that" result,
    # a verb whose past is spelled as its present, "it is rare that", an adverb between the modal and the verb,
    # "while" anywhere, a contrast after the verb whatever the parse hung it on
    ("The seats are so soft that we asked where to buy them.", CANNOT_PLACE),
    ("I read the series in a week.", CANNOT_PLACE),  # "do not read": the tense may change
    ("It is rare that a sequel this loud turns out to be this clever.", CANNOT_PLACE),
    ("This may well be a fine album.", CANNOT_PLACE),  # "may not well be"
    ("The remake honors the original while making it new.", CONCESSION),
    ("The app is powerful enough for experts yet simple enough for children.", SECOND_PHRASE),
    # the fourteenth round, from the sample 50's verdicts (benchmarks/dir_pairs_50*): a number the negation would
    # count, praise built on "un-" ("not unreal": a double negative)
    ("Assembly takes ten minutes.", CANNOT_PLACE),
    ("I give it 10 stars!", CANNOT_PLACE),
    ("The drum fills on this album are unreal.", CANNOT_PLACE),
    # after the last measured sample (51), from its verdicts: "only" before the verb, "and then some"
    ("Only Hanks could make this role so warm.", CANNOT_PLACE),
    ("The sequel gives fans what they want and then some.", CANNOT_PLACE),
    # and from the sample 52's: "yet" with a superlative ("has not made his best film yet": the best still to come)
    ("She has given her finest performance yet.", SUPERLATIVE),  # now any superlative (below)
])
def test_the_tenth_round_refuses_what_sample_46_read_as_left_standing(nlp, praise, sentence, reason):
    negation = negate_main_clause(nlp(sentence), praise)
    assert (negation.text, negation.refused) == (None, reason)


@pytest.mark.parametrize(("sentence", "negated"), [
    # and keep: a restrictive relative right after its noun on the claim, a contrasted conjunct, a plain modal
    ("It is a camera that is easy to use.", "It is not a camera that is easy to use."),
    ("The film is long but it is worth it.", None),  # a second clause: refused as before
    ("I would recommend this camera.", "I would not recommend this camera."),
    ("It is a bag worth the money.", "It is not a bag worth the money."),
    ("It's a healthy step toward sound nutrition.", "It's not a healthy step toward sound nutrition."),
    ("The film is the #1 hit this week.", "The film is not the #1 hit this week."),
    ("The directors have put together a bold biographical fantasia.",
     "The directors have not put together a bold biographical fantasia."),
    ("I am very pleased so far.", "I am not very pleased so far."),
    ("It is a bold film yet a tender one.", None),  # a contrast: refused (a "yet" ending the clause is below)
    ("It is very simple to set up.", "It is not very simple to set up."),
    ("This is one of the year's great films.", "This is not one of the year's great films."),  # "one" counts nothing
    ("The soundtrack is unique.", "The soundtrack is not unique."),
    ("The board game is excellent.", "The board game is not excellent."),  # "board" alone is no universal
    ("Waking up to the ocean was pure bliss.", "Waking up to the ocean was not pure bliss."),  # readers accept it
])
def test_the_tenth_round_keeps_plain_claims(nlp, praise, sentence, negated):
    negation = negate_main_clause(nlp(sentence), praise)
    assert negation.text == negated
    assert negation.refused != CANNOT_PLACE  # "It's": an apostrophe's contraction is placed


@pytest.mark.parametrize(("sentence", "reason"), [
    # the fifteenth round, from the sample 53's two readers and the sample 51's second (benchmarks/dir_pairs_53*,
    # dir_pairs_51_judged_second.jsonl): a negation that denies only the top of a scale leaves the praise below it
    # standing. A universal or completive word after the verb, inside a phrase too
    ("Her voice soars on every track.", UNIVERSAL_IN_SCOPE),
    ("The crowd sang along to every word.", UNIVERSAL_IN_SCOPE),
    ("I was on the edge of my seat for the entire final act.", UNIVERSAL_IN_SCOPE),
    ("The walking tour was the highlight of our entire trip.", UNIVERSAL_IN_SCOPE),
    ("The sound design immerses you completely in the jungle.", ADVERB),  # an "-ly" adverb, below
    ("I read the whole series in a week.", UNIVERSAL_IN_SCOPE),
    # a superlative or a peak after the verb, "be" too ("is not the best" still allows very good)
    ("It is one of the best films of the year.", SUPERLATIVE),
    ("This is one of the year's best films.", SUPERLATIVE),
    ("\"Rivers of Gold\" is the most exciting new musical I have seen in years.", SUPERLATIVE),
    ("The concierge found us the best table in town.", SUPERLATIVE),
    ("\"Paper Kingdoms\" is animated filmmaking at its most imaginative.", SUPERLATIVE),
    ("Hugo Brannigan delivers the performance of his career.", SUPERLATIVE),
    ("It's the best show of the season.", SUPERLATIVE),
    ("It's as fun as movies get.", SUPERLATIVE),
    ("It is funnier than anything else at the festival.", SUPERLATIVE),
    # an "-ly" adverb after the verb takes the negation's focus ("does not capture it beautifully" captures it)
    ("The adaptation captures the spirit of the novel beautifully.", ADVERB),
    ("The lid goes on easily.", ADVERB),
    # "not ... until" denies the extent, or reads as "only began when"; a result clause without its "that"
    ("I laughed until my sides ached.", CANNOT_PLACE),
    ("The performances are so natural they feel like documentary.", CANNOT_PLACE),
    # after the sample 54 (not measured by it): "as ... as any", "from the very first frame" (an extent)
    ("The documentary is as entertaining as any thriller.", SUPERLATIVE),
    ("I was captivated from the very first frame.", CANNOT_PLACE),
    # after the sample 55 (not measured by it): "alone" (a focus word), "more than once" (a count), "already"
    # anywhere after the verb, a maximizer ("not absolutely perfect" hedges), an equative ("not as epic as"), and
    # a verb the tagger took for a noun (two subjects on one verb: the parse lost the sentence)
    ("The cinematography alone is worth the price of admission.", CANNOT_PLACE),
    ("The story moved me to tears more than once.", CANNOT_PLACE),
    ("Dessert was the crowning glory of an already spectacular meal.", ADVERB),
    ("Our stay at the hotel was absolutely perfect.", UNIVERSAL_IN_SCOPE),
    ("The soundtrack is as epic as the game itself.", CANNOT_PLACE),
    ("Priya Anand's screenplay crackles with dialogue you will be quoting for weeks.", NO_MAIN_CLAUSE),
    # after the sample 56: a past the tagger read as a present ("We do not leapt")
    ("We leapt to our feet at the curtain call.", CANNOT_PLACE),
    # after the sample 59 (not measured fresh): "leapt" tagged VBZ, "throughout", "consistently", "a total triumph",
    # "right up to the end"
    ("The audience leapt to its feet at the curtain call.", CANNOT_PLACE),
    ("The dialogue sparkles throughout.", UNIVERSAL_IN_SCOPE),
    ("The sitcom is consistently hilarious.", UNIVERSAL_IN_SCOPE),
    ("The production is a total triumph.", UNIVERSAL_IN_SCOPE),
    ("The mystery keeps you guessing right up to the end.", CANNOT_PLACE),
    # after the sample 64 (not measured fresh): "uniformly", "across the board" and their kin
    ("The cast is uniformly excellent.", UNIVERSAL_IN_SCOPE),
    ("The voice acting is excellent across the board.", UNIVERSAL_IN_SCOPE),
    ("The staff were unfailingly kind.", UNIVERSAL_IN_SCOPE),
    ("The renovation is stylish from top to bottom.", UNIVERSAL_IN_SCOPE),
    # after the sample 65 (not measured fresh): the adjectives of "constantly"
    ("Exploring this world is a constant joy.", UNIVERSAL_IN_SCOPE),
])
def test_the_fifteenth_round_refuses_scalar_claims(nlp, praise, sentence, reason):
    negation = negate_main_clause(nlp(sentence), praise)
    assert (negation.text, negation.refused) == (None, reason)


@pytest.mark.parametrize(("sentence", "negated"), [
    # and keeps: "of all ages" counts nothing, a superlative that ranks by age, a plain claim
    ("It's a fine comedy for viewers of all ages.", "It's not a fine comedy for viewers of all ages."),
    ("The movie made me want to call my oldest friend.", "The movie did not make me want to call my oldest friend."),
    ("The screenplay crackles with wit.", "The screenplay does not crackle with wit."),
    ("These films succeed.", "These films do not succeed."),  # "-eed" is no past
])
def test_the_fifteenth_round_keeps_plain_claims(nlp, praise, sentence, negated):
    assert negate_main_clause(nlp(sentence), praise).text == negated


@pytest.mark.parametrize(("sentence", "negated"), [
    # and keep: a subject an adjective only picks out
    ("The new film is a delight.", "The new film is not a delight."),
    ("The second half is a triumph.", "The second half is not a triumph."),
])
def test_the_sixth_round_keeps_plain_subjects(nlp, praise, sentence, negated):
    assert negate_main_clause(nlp(sentence), praise).text == negated


def _seed(index: int, text: str, score: float | None):
    from linguagym.capabilities.testfile.model import CapabilityTest, Provenance, SourceRow

    row = SourceRow(slot="S", id=str(index), label="positive", score=score, text=text)
    return CapabilityTest(id=f"X/{index}", capability="X", text=f"I thought that {text}", expected=("positive",),
                          kind="seed", provenance=Provenance.for_seed(dataset="d", case=1, rows=(row,),
                                                                      template=None, alternatives={}))


def test_an_original_below_the_minimum_rating_is_refused_as_not_clearly_positive(nlp):
    from linguagym.capabilities.perturb.build import checklist_tests
    from linguagym.capabilities.perturb.negation import MIN_RATING

    assert MIN_RATING == 1.5
    seeds = [_seed(0, "This film is wonderful.", (1.4 + 4) / 8),  # positive (above 0.8) but not clearly
             _seed(1, "This film is superb.", (1.5 + 4) / 8),  # at the minimum
             _seed(2, "This film is lovely.", None)]  # no graded rating: taken at its label
    made, counts = checklist_tests(seeds, ("MFT", "DIR"), seed=0, nlp=nlp)
    assert [t.text for t in made["X"]] == ["This film is not superb.", "This film is not lovely."]
    assert counts["negation"] == {"made": 2, "candidates": 3, "refused": {NOT_CLEARLY_POSITIVE: 1}}


def test_every_refusal_is_counted_by_reason_in_the_file(nlp):
    from linguagym.capabilities.perturb.build import checklist_tests
    from linguagym.capabilities.testfile.model import CapabilityTest, Provenance

    texts = ["This film is wonderful.", "My Wife Is an Actress works as a delightful romantic comedy.",
             "It is funny and it is moving.", "A gorgeous, witty, seductive movie."]
    seeds = [CapabilityTest(id=f"X/{i}", capability="X", text=text, expected=("positive",), kind="seed",
                            provenance=Provenance.for_seed(dataset="d", case=1, rows=(), template=None,
                                                           alternatives={}))
             for i, text in enumerate(texts)]
    made, counts = checklist_tests(seeds, ("MFT", "DIR"), seed=0, nlp=nlp)
    assert [t.text for t in made["X"]] == ["This film is not wonderful."]
    assert counts["negation"] == {"made": 1, "candidates": 4, "refused": {
        "no finite verb": 1, NO_MAIN_CLAUSE: 1, SECOND_CLAUSE: 1}}


def test_lc4_refuses_an_evaluative_phrase_beyond_the_negation(nlp, evaluative):
    wreck = "This is a train wreck, a stupid and awful attempt to cram everything in."
    assert unreached_sentiment(nlp(wreck), wreck.index(" is") + 1, evaluative)
    plain = "This is a train wreck of an action film."
    assert not unreached_sentiment(nlp(plain), plain.index(" is") + 1, evaluative)


@pytest.mark.parametrize(("sentence", "glued"), [
    ("This is a train wreck of an action film a stupefying attempt by the filmmakers to cram in too much.", True),
    ("A quiet treasure a film to be savored.", True),
    ("The movie suffers from two fatal ailments a dearth of vitality and a story that is shapeless.", True),
    ("I liked this film a lot.", False),  # a measure
    ("It gives the audience a reason to care.", False),  # two objects
    ("Rice is too pedestrian a filmmaker to bring any edge to it.", False),
    ("The film is a delight.", False),
])
def test_sentences_run_together_at_a_lost_dash_are_found_by_the_stated_rule(nlp, sentence, glued):
    from linguagym.capabilities.seeds.run_on import candidate, run_together

    doc = nlp(sentence)
    assert (candidate(dir_negation._analysis(doc)) and run_together(doc)) is glued


def test_screening_drops_run_together_sentences_only_when_given_a_parser(nlp):
    from linguagym.capabilities.seeds.run_on import RUN_TOGETHER
    from linguagym.capabilities.seeds.screening import screen

    texts = ["A quiet treasure a film to be savored.", "I liked this film a lot."]
    analyses = [dir_negation._analysis(nlp(text)) for text in texts]
    assert screen(texts, analyses).usable == [True, True]
    parsed = screen(texts, analyses, parse=lambda batch: nlp.pipe(batch))
    assert parsed.usable == [False, True] and parsed.counts == {RUN_TOGETHER: 1}


def test_lc4_seeds_the_check_refuses_are_noted_and_a_short_capability_says_why(swn_file, nlp):
    from linguagym.capabilities.data.analysis import Analyser
    from linguagym.capabilities.data.datasets import Dataset, Example
    from linguagym.capabilities.data.lexicon import read_sentiwordnet
    from linguagym.capabilities.seeds.generate import generate_seeds
    from linguagym.capabilities.seeds.specs import load_specs

    texts = ["This movie is bad.", "This film is an awful mess.", "This plot was bad."]
    data = Dataset("t", "t", tuple(Example(str(i), t, "negative") for i, t in enumerate(texts)), "given")
    analyses = Analyser(read_sentiwordnet(swn_file)).analyse(texts)
    asked = []

    def check(analysis, verb_start):
        asked.append(analysis.text[verb_start:verb_start + 3])
        return "a reason" if "mess" in analysis.text else None

    (lc4,) = generate_seeds([load_specs()[3]], data, analyses, seed=0, check_negated=check)
    assert sorted(t.provenance.rows[0].text for t in lc4.tests) == ["This movie is bad.", "This plot was bad."]
    assert sorted(asked) == ["is ", "is ", "was"]  # each match's negated verb
    assert lc4.notes[0] == "case 1: 1 sentence(s) refused: a reason"
    assert lc4.notes[1].startswith("fewer than 10 seeds (2): of the dataset's 3 sentences, only these met the "
                                   "search (case 1: 3,")
    # LC2 (no negation) is never checked
    asked.clear()
    generate_seeds([load_specs()[1]], data, analyses, seed=0, check_negated=check)
    assert asked == []


def test_the_pipelines_lc4_lc5_check_refuses_a_second_evaluative_phrase_after_the_negated_head(nlp):
    # the check generate_tests hands LC4 and LC5 (their templates negate S: "{S|negate}"), on the real parser
    from linguagym.capabilities.perturb.negation import UNREACHED
    from linguagym.capabilities.pipeline import _negation_check
    from linguagym.capabilities.seeds.specs import load_specs

    assert all("|negate}" in (case.template or "") for spec in load_specs()[3:5] for case in spec.cases)
    check = _negation_check(nlp)
    wreck = "This is a train wreck, a stupid and awful attempt to cram everything in."
    assert check(dir_negation._analysis(nlp(wreck)), wreck.index(" is") + 1) == UNREACHED
    plain = "This is a train wreck of an action film."
    assert check(dir_negation._analysis(nlp(plain)), plain.index(" is") + 1) is None


def test_the_fresh_pool_reads_the_sets_asked_for_and_knows_a_judged_sentence_by_its_letters(tmp_path):
    # benchmarks/dir_pool_other.py draws DIR samples 45-47: a sentence judged before is not drawn again, though the
    # default dataset's loader writes its quotes otherwise than the paper's file
    from tests.benchmark_scripts import load_benchmark

    script = load_benchmark("dir_pool_other")
    (tmp_path / script.SETS["amazon"]).write_text("1_1\t2.5\ti love it\r\n1_2\t0.5\tit is ok\r\n", encoding="utf-8")
    (tmp_path / script.SETS["tweets"]).write_text("7\t3.0\tGreat day!\n", encoding="utf-8")
    assert script.positive_sentences(tmp_path, 1.5, ("amazon",)) == [
        (script.SETS["amazon"], "1_1", 2.5, "I love it")]  # case repaired, the weak one left out
    assert [s[3] for s in script.positive_sentences(tmp_path, 1.5, ("amazon", "tweets"))] == ["I love it",
                                                                                             "Great day!"]
    letters = load_benchmark("dir_verdicts").letters  # what the exclusion compares
    assert letters("The ``Blue Crush'' is fun.") == letters('The "Blue Crush" is fun')
    written = tmp_path / "written.txt"
    written.write_text("The acting is superb.\n\n  This blender works great.\n", encoding="utf-8")
    assert script.written_sentences(written) == [("written.txt", "1", 4.0, "The acting is superb."),
                                                 ("written.txt", "3", 4.0, "This blender works great.")]


def test_a_runs_dir_pairs_are_looked_up_among_the_blind_verdicts(tmp_path):
    # benchmarks/dir_verdicts.py: each negated text once, found by its letters whatever the quotes
    from tests.benchmark_scripts import load_benchmark

    script = load_benchmark("dir_verdicts")
    known = script.verdicts()
    assert known[script.letters("The film is not a verbal duel between two gifted performers.")] == (
        "dir_pairs_39", False)
    assert sum(1 for _, ok in known.values() if ok) >= 400 and len(known) >= 540  # samples 38-47: 550 pairs
    tests = [{"id": f"LC{n}/1/1/dir-negation", "type": "DIR", "text": "It is not ``great''."} for n in (2, 3)]
    tests.append({"id": "LC2/1/1", "type": "MFT", "text": "It is great."})
    path = tmp_path / "tests.json"
    path.write_text(json.dumps({"tests": tests}), encoding="utf-8")
    assert script.dir_pairs([path]) == {"itisnotgreat": "It is not ``great''."}
