#!/usr/bin/env python3
"""The section-1 manual pages say what the programs' own --help says: every subcommand and every
long option, none that is gone.

    man-help.py BINDIR [PAGEDIR] [--verbose]

BINDIR holds tickerboard, tickerboard-fetch and tickerboard-mqtt; PAGEDIR holds their pages
tickerboard.1, tickerboard-fetch.1 and tickerboard-mqtt.1 (default: systemd/debian of this
checkout). --verbose also prints what was collected from both sides.

What --help says (a "scope" is the program itself or one of its subcommands):
  - an option is a token `--[a-z][a-z0-9-]*` (not preceded by a letter, digit, `_` or `-`; a
    trailing `-` is dropped); nothing else counts, so `key = value` lines and `-h` do not;
  - the subcommands are the names of the `commands:` list of `PROGRAM --help` (a program without
    that list has none); each is asked `PROGRAM CMD --help`, which must exit 0;
  - a subcommand's options are those its `--help` shows, plus those on its own line of the
    `commands:` list ("version ... (also --version)"); a subcommand whose --help prints the
    top-level text again or has no `usage:` line (`help`, `version`) shows none of its own;
  - the program's own options are those of `PROGRAM --help` that no subcommand's --help shows
    (the top-level text mentions `--exchange` as an example of calendar's; it is calendar's);
  - `--help` is implied everywhere (every command takes it): it is never required, never stale.
    `--version` is not implied: only the program takes it (`tickerboard run --version` is a usage
    error), so it is required where --help shows it.

What the page says: `man -l PAGE` rendered 200 columns wide, without hyphenation (groff's
register HY=0), without formatting (overstrikes and escape sequences removed, as `col -b`), a
line still ending in a hyphenation mark joined to the next. A line starting in column 0 is a
section heading (.SH), one indented by 1 to 4 columns a subsection heading (.SS). In the section
COMMANDS each subsection documents the subcommand its heading names (its first word, after the
program's name if the heading starts with it), and the options in it are that subcommand's;
every option anywhere else on the page is the program's. An option within three words after the
name of another program (systemctl, journalctl, loginctl, udevadm, systemd-run, apt-get, dpkg:
"systemctl enable --now tickerboard-fetch") is that program's and not counted.

Problems (each printed as one line, exit status 1 when there is any):
  - a subcommand of --help without its subsection, a subsection of a subcommand --help lacks;
  - an option of a subcommand's --help not in its subsection, or of the program's --help not in
    the page outside the subcommands' subsections (missing);
  - an option in a subcommand's subsection that its --help does not show; an option elsewhere on
    the page that no --help of the program shows (stale);
  - anything `man --warnings -l PAGE` prints on stderr (at 80 and at 200 columns), or its failure.
The summary line per page counts the subcommands and the options of --help, an option once per
scope that shows it (--help not counted).
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PROGRAMS = ["tickerboard", "tickerboard-fetch", "tickerboard-mqtt"]
OPTION = re.compile(r"(?<![A-Za-z0-9_-])--[a-z][a-z0-9-]*")
IMPLIED = {"--help"}
# Other programs whose options the pages quote ("systemctl enable --now tickerboard-fetch").
FOREIGN = {"systemctl", "journalctl", "loginctl", "udevadm", "systemd-run", "apt-get", "dpkg"}
TOP = None  # the program's own scope


def options(text):
    return {m.group(0).rstrip("-") for m in OPTION.finditer(text)}


def ask(argv):
    """(exit status, stdout + stderr) of a --help run."""
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, LC_ALL="C.UTF-8"))
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, str(e)
    return r.returncode, r.stdout + r.stderr


def command_list(text):
    """{name: its line} of the `commands:` list of a top-level --help."""
    commands, inside = {}, False
    for line in text.splitlines():
        if re.match(r"^\s*commands:\s*$", line, re.I):
            inside = True
            continue
        if inside:
            if not line.strip():
                break
            m = re.match(r"^\s+([a-z][a-z0-9-]*)(\s{2,}.*)?$", line)
            if m:
                commands[m.group(1)] = line
    return commands


def from_help(binary, problems):
    """{scope: set of options} from --help; scope TOP is the program's own."""
    name = os.path.basename(binary)
    status, top = ask([binary, "--help"])
    if status != 0:
        problems.append("`%s --help` exits %d: %s" % (name, status, top.strip()[:200]))
        return {TOP: set()}
    scopes, own = {}, {}
    for cmd, line in command_list(top).items():
        status, text = ask([binary, cmd, "--help"])
        if status != 0:
            problems.append("`%s %s --help` exits %d: %s" % (name, cmd, status, text.strip()[:200]))
        repeats = text.strip() == top.strip() or not re.search(r"^\s*usage:", text, re.M | re.I)
        own[cmd] = set() if repeats else options(text) - IMPLIED
        scopes[cmd] = own[cmd] | (options(line) - IMPLIED)
    shown_by_commands = set().union(*own.values()) if own else set()
    scopes[TOP] = options(top) - IMPLIED - shown_by_commands
    return scopes


def render(page):
    """The page as plain text lines, or raises RuntimeError."""
    env = dict(os.environ, MANWIDTH="200", MANROFFOPT="-rHY=0", LC_ALL="C.UTF-8", MANPAGER="cat", PAGER="cat")
    env.pop("MAN_KEEP_FORMATTING", None)
    r = subprocess.run(["man", "-l", page], stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env)
    if r.returncode != 0 or not r.stdout.strip():
        raise RuntimeError("man -l %s: %s" % (page, r.stderr.strip()[:300] or "exit %d" % r.returncode))
    text = re.sub(r".\x08", "", r.stdout)            # overstrike (bold, underline), as col -b
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)        # SGR sequences
    lines = []
    for line in text.splitlines():
        # A word hyphenated at the line's end (U+2010), or a break after an option's own hyphen.
        if lines and lines[-1].endswith("\x00"):
            lines[-1] = lines[-1][:-1] + line.lstrip()
        else:
            lines.append(line.rstrip())
        last = lines[-1]
        if last.endswith("\u2010") and len(last) > 1 and last[-2].isalnum():
            lines[-1] = last[:-1] + "\x00"
        elif re.search(r"(?<![A-Za-z0-9_-])--[a-z][a-z0-9-]*-$", last):
            lines[-1] = last + "\x00"
    lines = [l.replace("\x00", "") for l in lines]
    return [l.translate({0x2010: "-", 0x2011: "-", 0x2212: "-"}) for l in lines]


def from_page(program, page):
    """{scope: set of options} of the page: TOP for everything outside the subcommands' subsections."""
    scopes = {TOP: set()}
    section, scope, recent = None, TOP, []

    def take(words):
        for word in words:
            if not any(w.strip("([,.;:)]\"'`") in FOREIGN for w in recent):
                scopes[scope].update(options(word))
            recent.append(word)
            del recent[:-3]

    for line in render(page):
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0:
            section, scope, recent = line.strip(), TOP, []
            continue
        words = line.split()
        if indent <= 4 and section == "COMMANDS":
            if words and words[0] == program:
                words = words[1:]
            scope, recent = (words[0] if words else "(empty heading)"), []
            scopes.setdefault(scope, set())
            take(words[1:])
            continue
        if indent <= 4:
            scope, recent = TOP, []
        take(words)
    return scopes


def warnings(page):
    found = []
    for width in ("80", "200"):
        env = dict(os.environ, MANWIDTH=width, LC_ALL="C.UTF-8", MANPAGER="cat", PAGER="cat")
        env.pop("MAN_KEEP_FORMATTING", None)
        env.pop("MANROFFOPT", None)
        r = subprocess.run(["man", "--warnings", "-l", page], stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, env=env)
        if r.returncode != 0 or r.stderr.strip():
            found.append("`man --warnings -l` at %s columns: %s" % (
                width, (r.stderr.strip() or "exit %d" % r.returncode)[:500].replace("\n", " | ")))
    return found


def check(bindir, pagedir, verbose):
    failed = False
    for program in PROGRAMS:
        binary = os.path.join(bindir, program)
        page_name = program + ".1"
        page = os.path.join(pagedir, page_name)
        problems = []
        if not os.access(binary, os.X_OK):
            problems.append("%s: not an executable" % binary)
            helps = {TOP: set()}
        else:
            helps = from_help(binary, problems)
        try:
            documented = from_page(program, page)
        except (OSError, RuntimeError) as e:
            problems.append(str(e))
            documented = {TOP: set()}
        if os.path.exists(page):
            problems.extend(warnings(page))
        commands = sorted(k for k in helps if k is not TOP)
        everything = set().union(*helps.values())
        for cmd in commands:
            if cmd not in documented:
                problems.append("subcommand %s: no subsection (.SS) in COMMANDS%s" % (
                    cmd, " (its options: %s)" % " ".join(sorted(helps[cmd])) if helps[cmd] else ""))
        for cmd in sorted(k for k in documented if k is not TOP):
            if cmd not in helps:
                problems.append("subsection %s: `%s --help` lists no such command (stale)" % (cmd, program))
        for scope in [TOP] + commands:
            where = program if scope is TOP else "%s %s" % (program, scope)
            on_page = documented.get(scope)
            if on_page is None:
                continue
            for opt in sorted(helps[scope] - on_page):
                problems.append("%s: %s is in `%s --help` but not on the page%s" % (
                    scope or "(program)", opt, where, "" if scope is TOP else " (its subsection)"))
            known = everything if scope is TOP else helps[scope]
            for opt in sorted(on_page - IMPLIED - known):
                problems.append("%s: %s is on the page but not in %s (stale)" % (
                    scope or "(program)", opt, "any --help of " + program if scope is TOP and commands
                    else "`%s --help`" % where))
        if verbose:
            for scope in [TOP] + commands:
                print("man-help: %s: --help %s: %s" % (page_name, scope or "(program)", " ".join(sorted(helps[scope]))))
            for scope in [TOP] + sorted(k for k in documented if k is not TOP):
                print("man-help: %s: page %s: %s" % (page_name, scope or "(program)", " ".join(sorted(documented[scope]))))
        for p in problems:
            print("man-help: %s: %s" % (page_name, p))
        print("man-help: %s: %d subcommands, %d options, %d problem(s)" % (
            page_name, len(commands), sum(len(v) for v in helps.values()), len(problems)))
        failed = failed or bool(problems)
    return 1 if failed else 0


def main(argv):
    verbose = "--verbose" in argv
    args = [a for a in argv if a != "--verbose"]
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if len(args) not in (1, 2):
        print("usage: man-help.py BINDIR [PAGEDIR] [--verbose] (--help says more)", file=sys.stderr)
        return 2
    bindir = args[0]
    pagedir = args[1] if len(args) == 2 else os.path.join(ROOT, "systemd", "debian")
    return check(bindir, pagedir, verbose)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
