"""The fixed prompts of the SmolLM2 benchmark and tests, written for this kata, in four kinds.

Copying and editing reuse the prompt's words (prompt lookup's home ground), summarising reuses
some, free chat almost none. Each prompt is one user message in SmolLM2's chat template.
"""

from __future__ import annotations

LIGHTHOUSE = (
    "The lighthouse on the northern cape was built in 1871 from granite quarried two miles inland. "
    "For ninety years a keeper climbed its 143 steps every evening to wind the clockwork that turned "
    "the lens. In 1962 the light was electrified, the keeper's cottage became a small museum, and the "
    "clockwork was moved to a glass case by the door, where visitors can still see it."
)

RIVER = (
    "Every spring the river floods the low meadows east of the village. Farmers used to move their "
    "sheep to the hill pastures in March and bring them back in May, once the water had drained. "
    "Since the new embankment was finished, the floods reach only the reed beds, and the meadows are "
    "now mown for hay twice a year."
)

FUNCTION = '''def moving_average(values, window):
    result = []
    total = 0.0
    for index, value in enumerate(values):
        total += value
        if index >= window:
            total -= values[index - window]
        if index >= window - 1:
            result.append(total / window)
    return result'''

BENCH_PROMPTS = {
    "copy": f"Copy the following paragraph exactly, word for word:\n\n{LIGHTHOUSE}",
    "summarise": f"Summarise this paragraph in two sentences:\n\n{RIVER}",
    "code": f"Rewrite this Python function with type hints and a docstring:\n\n```python\n{FUNCTION}\n```",
    "chat": "What are three good habits for someone learning to cook at home?",
}

# More variety for the greedy-equality check (at least 10 prompts).
EQUALITY_PROMPTS = [
    *BENCH_PROMPTS.values(),
    "Write a short poem about a cat watching the rain.",
    "Explain what a hash table is to a beginner.",
    "List five countries in South America and their capitals.",
    f"Translate into French: {RIVER.split('. ')[0]}.",
    "Write a Python function that returns the n-th Fibonacci number.",
    "Give me a recipe for a simple tomato soup.",
    f"Copy this text and then count its sentences:\n\n{RIVER}",
    "Why is the sky blue? Answer in one paragraph.",
]


def chat_ids(tokenizer, message: str) -> list[int]:
    """The token ids of ``message`` as a user turn, ready for the assistant's reply."""
    ids = tokenizer.apply_chat_template([{"role": "user", "content": message}], add_generation_prompt=True,
                                        tokenize=True, return_dict=False)
    return [int(t) for t in ids]
