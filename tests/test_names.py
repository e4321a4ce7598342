"""What names may hold: `hides` and `hidden_character` read ASCII text without their regex, and must answer exactly as
the regex does."""

from __future__ import annotations

import random
import subprocess

from aidlc.names import (
    _HIDDEN,
    _HIDDEN_IN_TEXT,
    BIDI,
    ZERO_WIDTH,
    arg,
    command,
    gate_command,
    hidden_character,
    hides,
    shown,
)

# Every ASCII character, the C1 controls and Latin-1, the characters that hide text, and their neighbours.
CHARACTERS = [chr(code) for code in range(0x300)] + sorted(BIDI | ZERO_WIDTH) + ["\u2028", "\u2029", "\u202f",
                                                                                   "\u2065", "\u206a", "\ufffd"]


def test_hides_answers_as_the_regex_for_each_character() -> None:
    texts = [text for char in CHARACTERS for text in (char, f"# Story: Refund{char}an order\n", f"a\tb\r\n{char}")]
    assert [hides(text) for text in texts] == [_HIDDEN_IN_TEXT.search(text) is not None for text in texts]


def test_hides_answers_as_the_regex_for_mixed_text() -> None:
    rng = random.Random(23)
    plain = [chr(code) for code in range(0x20, 0x7F)] + ["\t", "\n", "\r"]
    texts = ["", "\n\n", "plain text\twith a tab\r\n"]
    for _ in range(2000):
        text = [rng.choice(plain) for _ in range(rng.randint(0, 40))]
        if rng.random() < 0.5:  # one character of any kind somewhere
            text.insert(rng.randint(0, len(text)), rng.choice(CHARACTERS))
        texts.append("".join(text))
    assert [hides(text) for text in texts] == [_HIDDEN_IN_TEXT.search(text) is not None for text in texts]
    assert any(hides(text) for text in texts) and not all(hides(text) for text in texts)


def test_hidden_character_finds_what_the_regex_finds() -> None:
    for char in CHARACTERS:
        for text in (char, f"001-check{char}out", f"\t{char}"):
            found = [match.group() for match in _HIDDEN.finditer(text) if match.group() != "\t"]
            said = hidden_character(text, allowed="\t")
            assert (said is None) == (not found), repr(text)
            assert said is None or f"U+{ord(found[0]):04X}" in said, (text, said)
            assert (hidden_character(text) is None) == (_HIDDEN.search(text) is None), repr(text)


def test_a_quoted_name_reaches_a_real_shell_as_one_argument() -> None:
    """`arg` in a printed command: bash, given the command, passes each name on as one argument, as it was (its
    hiding characters, a line break among them, escaped), and runs nothing a name holds; a plain id is printed as
    it is."""
    rng = random.Random(5)
    shell = ["'", '"', "$", "`", "\\", ";", "&", "|", "(", ")", "<", ">", "*", "?", "[", "~", "#", "!", " ", "\t", "\n",
             "{", "}", "%", "=", "^"]
    names = ["001-x$(touch pwned)", "a'b", "it's `id`", "; rm -rf ~", "-n", "", "x\ny", "é ü", "$HOME"]
    names += ["".join(rng.choice([*shell, "a", "1", "-", "."]) for _ in range(rng.randint(1, 12))) for _ in range(500)]
    command = "printf '%s\\0' " + " ".join(arg(name) for name in names)
    assert "\n" not in command  # one line: a step pasted line by line runs no part of a name
    ran = subprocess.run(["bash", "-c", command], capture_output=True, check=True)
    assert ran.stdout.decode().split("\0")[:-1] == [shown(name) for name in names]
    assert arg("x\nb; touch pwned #") == "'x\\x0ab; touch pwned #'"
    assert [arg(name) for name in ("001-checkout-api", "intent:001", "FR-1", "a/b.md")] == \
        ["001-checkout-api", "intent:001", "FR-1", "a/b.md"]


def test_a_printed_command_names_a_subject_starting_with_a_dash_last_after_double_dash() -> None:
    """A subject `-x` before the options would be read as an option; after `--` it is an argument, so the options
    come first. Any other subject stays where people write it."""
    assert gate_command("001-login", "plan") == "aidlc gate approve 001-login --stage plan"
    assert gate_command("-x", "code-generation") == "aidlc gate approve --stage code-generation -- -x"
    assert gate_command("-x", "walkthrough", "reject", "--reason '...'") == \
        "aidlc gate reject --stage walkthrough --reason '...' -- -x"
    assert gate_command("a b", "plan") == "aidlc gate approve 'a b' --stage plan"
    assert command("walkthrough", "-x") == "aidlc walkthrough -- -x"
    assert command("walkthrough", "u1", "--output PATH") == "aidlc walkthrough u1 --output PATH"
