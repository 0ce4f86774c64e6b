"""A version answer ('1.6.6', found by `ragaudit cases` in git-doc) is superseded by its last
part shifted: float('1.6.6') used to crash the whole mutate run."""

from __future__ import annotations

import random

from ragaudit.mutation.values import changed_value


def test_a_version_is_shifted_in_its_last_part_and_keeps_the_rest():
    new, rule = changed_value("1.6.6", random.Random(0), [], "served to clients before 1.6.6")
    head, _, last = new.rpartition(".")
    # the last part moves up by 1 to 3; the rest is written as it was
    assert head == "1.6" and 7 <= int(last) <= 9 and rule.startswith("version's last part")
    new, _ = changed_value("v2.12.0", random.Random(1), [], "tag v2.12.0")
    assert new.startswith("v2.12.") and new != "v2.12.0"


def test_a_plain_number_is_still_shifted_by_its_step():
    new, rule = changed_value("30 seconds", random.Random(0), [], "waits 30 seconds")
    assert new.endswith(" seconds") and new != "30 seconds" and rule.startswith("number shifted")
