#!/usr/bin/env python3
"""man_page.py: writes the tsketch(1) man page from the binary's own help texts.

The options of every subcommand come from `tsketch CMD -h` (the one source of truth), the command
list from `tsketch help`; the prose around them (description, exit status, environment, examples)
from docs/man/tsketch.1.in, whose @COMMANDS@ line is replaced by one subsection per command and
@SKETCH_OPTIONS@ by the sketch options that the commands share (printed once). A block of the
template between the lines `.\" @NOTES CMD@` and `.\" @END@` is prose about CMD (its output, exit
codes, an example) that is moved to the end of CMD's section, after its options; the options
themselves only ever come from -h. A new subcommand listed by `tsketch help` gets its section
without any change here.

Usage: man_page.py TSKETCH TEMPLATE OUTPUT
"""
import re
import subprocess
import sys

OPTION = re.compile(r"^ {2,6}((?:-\w, )?--?[\w-]+(?: [A-Z][A-Z./]*)?)(?: {1,}(.*))?$")
SHARED_HEADING = "Sketch options:"
NOTES = re.compile(r'^\.\\" @NOTES ([\w-]+)@\n(.*?)^\.\\" @END@\n', re.S | re.M)


def run_help(tsketch, *args):
    return subprocess.run([tsketch, *args], check=True, capture_output=True, text=True).stdout


def commands(tsketch):
    """The subcommands listed under 'Commands:' of `tsketch help`, with their one-line summary."""
    out, listing = [], False
    for line in run_help(tsketch, "help").splitlines():
        if line.startswith("Commands:"):
            listing = True
        elif listing and not line.strip():
            break
        elif listing:
            name, _, summary = line.strip().partition(" ")
            if name != "help":
                out.append((name, summary.strip()))
    return out


def esc(text):
    """Text for troff: backslashes and hyphens escaped, no line starting with a control character."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text.startswith((".", "'")) else text


def parse_help(text):
    """Splits a -h text into (usage, blocks of the command, blocks of the shared sketch options);
    a block is ('prose', [lines]) or ('option', flags, [description lines])."""
    lines = text.splitlines()
    usage = lines[0].removeprefix("Usage: ").strip()
    own, shared, cur = [], [], None
    target = own
    for line in lines[1:]:
        if line.strip() == SHARED_HEADING:
            target, cur = shared, None
            continue
        m = OPTION.match(line)
        if m and line.lstrip().startswith("-"):
            cur = ("option", m.group(1), [m.group(2) or ""])
            target.append(cur)
        elif cur is not None and line.startswith(" " * 8) and line.strip():
            cur[2].append(line.strip())
        else:
            cur = None
            if target and target[-1][0] == "prose":
                target[-1][1].append(line)
            else:
                target.append(("prose", [line]))
    return usage, own, shared


def render(blocks):
    out = []
    for b in blocks:
        if b[0] == "option":
            out += [".TP", "\\fB" + esc(b[1]) + "\\fR", esc(" ".join(s for s in b[2] if s))]
        else:
            body = [l for l in b[1]]
            while body and not body[0].strip():
                body.pop(0)
            while body and not body[-1].strip():
                body.pop()
            if body:
                out += [".PP", ".nf"] + [esc(l) if l.strip() else "" for l in body] + [".fi"]
    return out


def take_notes(page):
    """The template without its @NOTES blocks, and the blocks by command name."""
    notes = {m.group(1): m.group(2) for m in NOTES.finditer(page)}
    return NOTES.sub("", page), notes


def main():
    tsketch, template, output = sys.argv[1:4]
    version = run_help(tsketch, "--version").split()[-1]
    page, notes = take_notes(open(template).read())
    sections, shared = [], None
    listed = commands(tsketch)
    for name in sorted(set(notes) - {n for n, _ in listed}):
        print("man_page.py: notes for '%s', which 'tsketch help' does not list: left out" % name, file=sys.stderr)
    for name, summary in listed:
        usage, own, shared_blocks = parse_help(run_help(tsketch, name, "-h"))
        sections += [".SS \"" + esc(name) + "\"", esc(summary[:1].upper() + summary[1:]) + ".", ".PP",
                     "\\fB" + esc(usage) + "\\fR"]
        sections += render(own)
        if shared_blocks:
            shared = shared or shared_blocks
            sections += [".PP", "and the sketch options (\\fBSKETCH OPTIONS\\fR)."]
        if name in notes:
            sections.append(notes[name].rstrip("\n"))
    page = page.replace("@VERSION@", version)
    page = page.replace("@COMMANDS@", "\n".join(sections))
    page = page.replace("@SKETCH_OPTIONS@", "\n".join(render(shared or [])))
    with open(output, "w") as f:
        f.write(page)


if __name__ == "__main__":
    main()
