#!/usr/bin/env python3
"""Every isl object is owned by a unique_ptr; isl's quota makes almost any call throw.
An isl call whose argument list both hands over an owned object (`x.release()`, a fresh
`isl_*_copy`) and makes another call that can throw leaks that object whenever the throwing
argument is evaluated after it; the order of evaluation is the compiler's choice. This check
reads the sources and names every such call. The throwing call belongs before, in a named
owner.

    isl_ownership.py FILE...      exit 1 (and one line per call) when one is found
"""
import re
import sys

# An argument that cannot throw: a released owner, a checked fresh copy, a borrowed pointer,
# a name, a number, a C string of a name.
SAFE = re.compile(r"""^\s*(
      [\w:]+\.(release|get)\(\)
    | check\(isl_\w+_copy\([\w:]+(\.get\(\))?\)\)
    | [\w:]+ | -?\d+ | &[\w:]+ | [\w:]+\.c_str\(\)
)\s*$""", re.X)
OWNING = re.compile(r"\.release\(\)|isl_\w+_copy\(")


def arguments(text, open_paren):
    """The top-level arguments of the call whose '(' is at open_paren."""
    depth, args, current = 0, [], []
    for ch in text[open_paren:]:
        if ch == "(":
            depth += 1
            if depth == 1:
                continue
        elif ch == ")":
            depth -= 1
            if depth == 0:
                args.append("".join(current))
                return args
        elif ch == "," and depth == 1:
            args.append("".join(current))
            current = []
            continue
        current.append(ch)
    return args


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def findings(path):
    text = strip_comments(open(path, encoding="utf-8").read())
    for call in re.finditer(r"\bisl_\w+\(", text):
        args = arguments(text, call.end() - 1)
        for i, owned in enumerate(args):
            if not OWNING.search(owned):
                continue
            for j, other in enumerate(args):
                if j != i and not SAFE.match(other):
                    line = text.count("\n", 0, call.start()) + 1
                    yield (f"{path}:{line}: {call.group(0)}...): argument {i + 1} "
                           f"({owned.strip()}) is owned while argument {j + 1} "
                           f"({other.strip()}) may throw")
                    break
            else:
                continue
            break


def main(paths):
    found = [f for p in paths for f in findings(p)]
    for f in found:
        print(f)
    if not paths:
        print("usage: isl_ownership.py FILE...", file=sys.stderr)
        return 2
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
