"""Exercise 12-cross-tokenizer: reference solution. The exercise text is in exercises/ex12_cross_tokenizer.py."""

from speckata.decoding.baseline import CrossTokenizerResult, check_cross_tokenizer_inputs
from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token


def target_proposal(drafted_text, tail, target_tokenizer):
    """The target tokens the drafted text proposes after the committed text (which ends with tail)."""
    if not drafted_text.startswith(tail):
        return []  # the draft went another way than the word already begun
    text = drafted_text[len(tail) :]
    usable = 0
    while usable < len(text) and target_tokenizer.has(text[usable]):
        usable += 1  # stop at the first character the target has no token for
    return target_tokenizer.encode(text[:usable])


def verify_proposal(p, proposal, generator):
    """Keep proposal[i] with probability p[i, proposal[i]]; on the first rejection sample p[i] without it."""
    tokens = []
    for i, y in enumerate(proposal):
        if draw_uniform(generator) < float(p[i, y]):
            tokens.append(y)
            continue
        rest = p[i].clone()
        rest[y] = 0.0
        tokens.append(sample_token(rest if float(rest.sum()) > 1e-12 else p[i], generator))  # no mass: as in exercise 01
        return tokens
    tokens.append(sample_token(p[len(proposal)], generator))
    return tokens


def draft_text(draft, draft_tokenizer, head, tail, cached, gamma, window):
    """gamma greedy draft pieces after head, the first one completing tail; and what the cache then holds."""
    ids = draft_tokenizer.encode(head)  # <bos> once, then the pieces of the committed text
    if len(ids) > window:
        ids = ids[:1] + ids[len(ids) - window + 1 :]
    keep = 0
    while keep < min(len(cached), len(ids) - 1) and cached[keep] == ids[keep]:
        keep += 1
    if draft.cache_length > keep:
        draft.crop(keep)
    logits = draft.forward_new(ids[keep:])
    allowed = draft_tokenizer.ids_starting_with(tail)  # heal the word the committed text ends in
    pieces = [allowed[int(logits[-1, allowed].argmax())]]
    for _ in range(gamma - 1):
        logits = draft.forward_new(pieces[-1:])
        pieces.append(int(logits[-1].argmax()))
    return pieces, ids + pieces[:-1]


def cross_tokenizer_generate(target, target_tokenizer, draft, draft_tokenizer, prompt, max_new_tokens, gamma,
                             generator, temperature=1.0, draft_window=64):
    sequence = target_tokenizer.encode(check_cross_tokenizer_inputs(prompt, max_new_tokens, gamma, temperature))
    target.reset()
    draft.reset()
    cached, result = [], CrossTokenizerResult()
    while len(result.tokens) < max_new_tokens:
        room = max_new_tokens - len(result.tokens) - 1
        proposal = []
        if room > 0:
            text = target_tokenizer.decode(sequence)
            tail = draft_tokenizer.pieces(text)[-1]  # the last word may still be growing
            if draft_tokenizer.ids_starting_with(tail):
                head = text[: len(text) - len(tail)]
                pieces, cached = draft_text(draft, draft_tokenizer, head, tail, cached, gamma, draft_window)
                result.draft_passes += gamma
                proposal = target_proposal(draft_tokenizer.decode(pieces), tail, target_tokenizer)[:room]
        logits = target.forward_new(sequence[target.cache_length :] + proposal)
        p = next_token_probabilities(logits[-(len(proposal) + 1) :], temperature)
        tokens = verify_proposal(p, proposal, generator)
        sequence += tokens
        result.tokens += tokens
        result.proposed_per_pass.append(len(proposal))
        result.accepted_per_pass.append(len(tokens) - 1)
        result.target_passes += 1
        if target.cache_length > len(sequence) - 1:
            target.crop(len(sequence) - 1)
    result.text = target_tokenizer.decode(result.tokens)
    return result
