"""The mutations of tests/MUTATIONS.md, read from that file (the only list there is).

    python3 mutations.py list <crate>          checks the file against <crate>'s sources,
                                               prints "name target test" per mutation
    python3 mutations.py apply <crate> <name>  applies one mutation to <crate>'s sources

The table gives each mutation's test; the section of the same name its file and its `from`
and `to` blocks. `list` fails, naming what is wrong, if the two disagree or a `from` text is
not in its file exactly once, so a mutation cannot silently stop mutating anything.
"""

import re
import sys
from pathlib import Path

# A test is `<tests/ file>::<name>`, or `lib::<module path>::<name>` for a unit test.
ROW = re.compile(r"^\| `([^`]+)` \|.*\| `([A-Za-z0-9_]+)::([A-Za-z0-9_:]+)` \|$")
HEADING = re.compile(r"^### `([^`]+)`$")
FILE = re.compile(r"^In `([^`]+)`")
FENCE = re.compile(r"^```(from|to)$")


def parse(text):
    """The table rows and the sections, each by name, and every problem found."""
    problems, rows, sections = [], {}, {}
    lines = text.split("\n")
    current = None
    i = 0
    while i < len(lines):
        line = lines[i]
        row = ROW.match(line)
        heading = HEADING.match(line)
        fence = FENCE.match(line)
        if row:
            name = row.group(1)
            if name in rows:
                problems.append(f"{name}: two table rows")
            rows[name] = (row.group(2), row.group(3))
        elif line.startswith("## "):
            current = None
        elif heading:
            current = heading.group(1)
            if current in sections:
                problems.append(f"{current}: two sections")
            sections[current] = {}
        elif current is not None and FILE.match(line) and "file" not in sections[current]:
            sections[current]["file"] = FILE.match(line).group(1)
        elif fence:
            end = next((j for j in range(i + 1, len(lines)) if lines[j] == "```"), None)
            if end is None:
                problems.append(f"line {i + 1}: a `{fence.group(1)}` block that never closes")
                break
            if current is None:
                problems.append(f"line {i + 1}: a `{fence.group(1)}` block outside a mutation's section")
            elif fence.group(1) in sections[current]:
                problems.append(f"{current}: two `{fence.group(1)}` blocks")
            else:
                sections[current][fence.group(1)] = "\n".join(lines[i + 1 : end])
            i = end
        i += 1
    for name in rows.keys() - sections.keys():
        problems.append(f"{name}: in the table, but no section gives its text")
    for name in sections.keys() - rows.keys():
        problems.append(f"{name}: a section, but no table row names its test")
    for name, s in sections.items():
        for part in ("file", "from", "to"):
            if part not in s:
                problems.append(f"{name}: the section has no {'`In <file>`' if part == 'file' else f'`{part}` block'}")
        if s.get("from") == "":
            problems.append(f"{name}: an empty `from` block mutates nothing")
    return rows, sections, problems


def load(crate):
    rows, sections, problems = parse((crate / "tests" / "MUTATIONS.md").read_text())
    for name, s in sections.items():
        if problems or name not in rows:
            continue
        path = crate / s["file"]
        if not path.is_file():
            problems.append(f"{name}: {s['file']} does not exist")
            continue
        n = path.read_text().count(s["from"])
        if n != 1:
            problems.append(f"{name}: its `from` text is in {s['file']} {n} times, not once (update tests/MUTATIONS.md)")
        target, test = rows[name]
        if target == "lib":
            # `lib::a::b::tests::name`: the test `name` in src/a/b.rs.
            *module, _, test = test.split("::")
            test_file = crate / "src" / (("/".join(module) or "lib") + ".rs")
        else:
            test_file = crate / "tests" / f"{target}.rs"
        where = test_file.relative_to(crate)
        if not test_file.is_file():
            problems.append(f"{name}: no test file {where}")
        elif not re.search(rf"\bfn {test}\(", test_file.read_text()):
            problems.append(f"{name}: {where} has no test {test}")
    if problems:
        sys.exit("tests/MUTATIONS.md:\n  " + "\n  ".join(problems))
    return rows, sections


def main(argv):
    if len(argv) < 3 or argv[1] not in ("list", "apply") or (argv[1] == "apply") != (len(argv) == 4):
        sys.exit(__doc__)
    crate = Path(argv[2])
    rows, sections = load(crate)
    if argv[1] == "list":
        for name, (target, test) in rows.items():
            print(name, target, test)
        return
    name = argv[3]
    if name not in sections:
        sys.exit(f"no mutation named {name} in tests/MUTATIONS.md")
    s = sections[name]
    path = crate / s["file"]
    path.write_text(path.read_text().replace(s["from"], s["to"], 1))


if __name__ == "__main__":
    main(sys.argv)
