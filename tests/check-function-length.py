#!/usr/bin/env python3
"""Lists the functions of src/ whose body is longer than a limit (80 lines unless given).

The style rule (issue 17): no function in src/ over ~80 lines. A function's length
here is the lines between its opening and its closing brace, both excluded, blank and comment
lines included. Lambdas and local classes count toward the function that holds them; functions
defined inside a class body (in a .h or a .cpp) count on their own. The scan is a brace matcher
over the source with comments, string and character literals (raw strings too) and preprocessor
lines blanked out, not a C++ parser: a brace at namespace or class scope opens a function when the
text before it has a parameter list, and a class, a namespace or an initializer otherwise.

Usage: tests/check-function-length.py [--max N] [files...]   (default: src/*/*.cpp src/*/*.h)
Exits 1 when any function is longer than the limit, listing each as file:line: name: N lines.
"""
import glob
import os
import re
import sys

SCOPE_WORDS = re.compile(r"\b(namespace|class|struct|union|enum|extern)\b")
RAW_STRING = re.compile(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(')


def is_word(c: str) -> bool:
    return c.isalnum() or c == "_"


def blank_out(text: str) -> str:
    """The text with comments, literals and preprocessor lines replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":  # a preprocessor line, with its continuations
            while i < n and not (text[i] == "\n" and text[i - 1] != "\\"):
                out.append("\n" if text[i] == "\n" else " ")
                i += 1
            continue
        if c == "\n":
            at_line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.extend("\n" if ch == "\n" else " " for ch in text[i:end])
            i = end
        elif (raw := RAW_STRING.match(text, i)) and (i == 0 or not is_word(text[i - 1])):
            closing = ")" + raw.group(1) + '"'
            end = text.find(closing, raw.end())
            end = n if end < 0 else end + len(closing)
            out.extend("\n" if ch == "\n" else " " for ch in text[i:end])
            i = end
        elif c in "\"'":
            # A digit separator (1'000) is no character literal.
            if c == "'" and i > 0 and is_word(text[i - 1]) and i + 1 < n and is_word(text[i + 1]):
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.extend(" " for _ in text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def kind_of(header: str) -> str:
    """What a brace at namespace or class scope opens, from the text since the last ; { or }."""
    h = " ".join(header.split())
    if not h:
        return "continuation"  # a constructor's body after an initializer such as b_{b}
    paren = h.find("(")
    before = h if paren < 0 else h[:paren]
    if "=" in re.sub(r"operator\s*=|[=<>!]=", "", before):
        return "initializer"
    if paren >= 0:
        return "function"
    if SCOPE_WORDS.search(h):
        return "scope"
    return "initializer"


def function_name(header: str) -> str:
    h = " ".join(header.split())
    paren = h.find("(")
    if h[:paren].rstrip().endswith("operator"):  # operator()(...)
        paren = h.find("(", paren + 2)
    name = h[:paren].split()[-1] if h[:paren].split() else h[:paren]
    return name.lstrip("*&")


def long_functions(path: str, limit: int):
    with open(path, encoding="utf-8") as f:
        text = blank_out(f.read())
    stack = []  # (kind, name, opening line)
    header_start = 0
    last_function = None
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == "{":
            if all(kind == "scope" for kind, _, _ in stack):
                header = text[header_start:i]
                kind = kind_of(header)
                if kind == "continuation":
                    kind, name = ("function", last_function) if last_function else ("initializer", "")
                else:
                    name = function_name(header) if kind == "function" else ""
                stack.append((kind, name, line))
            else:
                stack.append(("nested", "", line))
            header_start = i + 1
        elif c == "}":
            if not stack:
                continue
            kind, name, opened = stack.pop()
            last_function = name if kind == "function" else None
            body = line - opened - 1
            if kind == "function" and body > limit:
                yield opened, name, body
            header_start = i + 1
        elif c == ";":
            last_function = None
            if all(kind == "scope" for kind, _, _ in stack):
                header_start = i + 1


def main() -> int:
    args = sys.argv[1:]
    limit = 80
    if len(args) >= 2 and args[0] == "--max":
        limit = int(args[1])
        args = args[2:]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    files = args or sorted(glob.glob(os.path.join(root, "src/*/*.cpp")) +
                           glob.glob(os.path.join(root, "src/*/*.h")))
    found = 0
    for path in files:
        for opened, name, body in long_functions(path, limit):
            print(f"{os.path.relpath(path, root)}:{opened}: {name}: {body} lines")
            found += 1
    if found:
        print(f"{found} functions longer than {limit} lines", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
