#!/usr/bin/env python3
"""Runs the documentation's runnable blocks, so README.md and docs/*.md cannot drift from the program.

    python3 Tests/Docs/run-doc-blocks.py BINDIR [FILE.md ...]

BINDIR holds `tickerboard` (and `tickerboard-fetch`, when built), e.g. .build/release; it goes first
on PATH. Without FILE arguments: README.md and docs/*.md. Prints one line per block (FILE:LINE: pass
or FAIL) and one per file for its links, and exits 1 on any failure, or when no block is marked.

A fenced block runs when its info string says so (anything else is text):

  ```sh runnable [timeout=S] [stop-after=S]
      a bash script (-e, -o pipefail); passes when it exits 0 within the timeout (default 30 s).
      stop-after=S: a command that runs until stopped (the daemon): passes when it is still running
      after S seconds, and is then stopped with SIGTERM (its process group).
  ```console runnable [timeout=S]
      a transcript: each `$ COMMAND` line runs in bash, and the lines after it up to the next `$ `
      line are its stdout, line for line (trailing blanks ignored; no-break spaces, which the
      locales' number formats print and a reader cannot see, read as spaces); a line `...` stands
      for any number of lines. The exit status must be 0.
  ```ini runnable-config [path=FILE] [warnings-ok]
      a config: written to FILE (in the page's scratch directory; default a name of its own) and
      checked with `tickerboard check-config FILE`, which must exit 0 and, unless warnings-ok, report
      no warning; a block with fetcher sections or keys ([provider], providers =, symbol =) is also
      checked with `tickerboard-fetch --check --config FILE` when BINDIR has it. A block that sets no
      [data] directory is given the layout of an installed wall: a drop-in beside FILE
      (conf.d/00-docs-data.conf) pointing [data] directory at a directory that holds the built-in
      sample market's CSV under every file name the block names, as /var/lib/tickerboard would
      hold the fetcher's files. Later blocks of the page may use FILE.

The blocks of one page run in order, as a reader follows it, in one scratch directory that is both
the working directory and $HOME (so `~/wall/...` in a walkthrough lands there); each page gets a new
one. Nothing needs root, a network, hardware or a running service: blocks that do are not marked.

Links: every relative link of the pages ([text](path) and [text](path#anchor)) must name a file of
the repository and, for a Markdown file, a heading of it (GitHub's anchors).
"""
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SAMPLE_DAILY = os.path.join(ROOT, "assets", "sample", "TBSC.daily.csv")
SAMPLE_INTRADAY = os.path.join(ROOT, "assets", "sample", "TBSC.intraday.csv")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*(.*)$")


class Block:
    def __init__(self, path, line, info, text):
        self.path, self.line, self.text = path, line, text
        words = info.split()
        self.lang = words[0] if words else ""
        self.flags = set()
        self.attrs = {}
        for w in words[1:]:
            if "=" in w:
                k, v = w.split("=", 1)
                self.attrs[k] = v
            else:
                self.flags.add(w)

    @property
    def kind(self):
        if "runnable-config" in self.flags:
            return "config"
        if "runnable" in self.flags:
            return "console" if self.lang == "console" else "sh"
        return None

    def mistake(self):
        """A misspelt marker or an attribute the runner does not know: the block would not run."""
        words = self.flags | set(self.attrs)
        if any(w.startswith(("run", "check")) and w not in ("runnable", "runnable-config") for w in self.flags):
            return "unknown marker in %r" % " ".join(sorted(self.flags))
        if self.kind is None:
            return None
        known = {"config": {"path", "warnings-ok"}, "console": {"timeout"}, "sh": {"timeout", "stop-after"}}[self.kind]
        unknown = words - known - {"runnable", "runnable-config"}
        if unknown:
            return "unknown for a %s block: %s" % (self.kind, " ".join(sorted(unknown)))
        if self.kind == "sh" and self.lang not in ("sh", "bash", "shell"):
            return "runnable block in %r: sh, bash or console" % self.lang
        return None

    def where(self):
        return "%s:%d" % (os.path.relpath(self.path, ROOT), self.line)


def blocks_of(path):
    """Every fenced block of a Markdown file: (line of the opening fence, info string, text)."""
    out = []
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m.group(2), m.group(3), i
        body = []
        i += 1
        while i < len(lines) and not (lines[i].strip().startswith(fence[0] * len(fence))
                                      and lines[i].strip().strip(fence[0]) == ""):
            body.append(lines[i])
            i += 1
        out.append(Block(path, start + 1, info, "\n".join(body) + "\n"))
        i += 1
    return out


def environment(bindir, work):
    env = dict(os.environ)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "/usr/bin:/bin")
    env["HOME"] = work
    env["LANG"] = env["LC_ALL"] = "C.UTF-8"
    return env


def run_bash(script, env, cwd, timeout):
    p = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", script], cwd=cwd, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out, err


def run_sh(block, env, work):
    timeout = float(block.attrs.get("timeout", 30))
    if "stop-after" not in block.attrs:
        rc, out, err = run_bash(block.text, env, work, timeout)
        if rc == 0:
            return True, ""
        return False, "exit %s\n%s%s" % ("timeout after %g s" % timeout if rc is None else rc, out, err)
    stop = float(block.attrs["stop-after"])
    log = tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", block.text], cwd=work, env=env,
                         stdout=log, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    deadline = time.monotonic() + stop
    while time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    early = p.poll()
    if early is None:
        os.killpg(p.pid, signal.SIGTERM)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    log.seek(0)
    output = log.read()
    if early is not None:
        return False, "ended after less than %g s (exit %s)\n%s" % (stop, early, output)
    return True, ""


SPACES = str.maketrans({"\u00a0": " ", "\u202f": " ", "\u2009": " "})


def lines_match(expected, got):
    """Expected lines against got, `...` matching any number of lines."""
    if not expected:
        return not got
    if expected[0] == "...":
        return any(lines_match(expected[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and expected[0] == got[0] and lines_match(expected[1:], got[1:])


def run_console(block, env, work):
    timeout = float(block.attrs.get("timeout", 30))
    steps = []
    for line in block.text.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line.rstrip())
        elif line.strip():
            return False, "output before the first `$ ` line: %r" % line
    if not steps:
        return False, "no `$ ` line"
    for command, expected in steps:
        rc, out, err = run_bash(command, env, work, timeout)
        got = [l.rstrip().translate(SPACES) for l in out.rstrip("\n").split("\n")] if out.strip() else []
        expected = [l.translate(SPACES) for l in expected]
        while expected and expected[-1] == "":
            expected.pop()
        if rc != 0:
            return False, "$ %s\nexit %s\n%s%s" % (command, "timeout" if rc is None else rc, out, err)
        if not lines_match(expected, got):
            return False, "$ %s\nexpected:\n  %s\ngot:\n  %s\n%s" % (
                command, "\n  ".join(expected), "\n  ".join(got), err)
    return True, ""


CONFIG_FILE_KEYS = re.compile(r"^\s*(daily|intraday)\s*=\s*(\S+)\s*$")


def run_config(block, env, work, bindir, count):
    name = block.attrs.get("path", "docs-config-%d.conf" % count)
    path = os.path.join(work, name[2:] if name.startswith("~/") else name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(block.text)
    text = block.text
    if not re.search(r"^\s*directory\s*=", text, re.M):
        data = os.path.join(work, "docs-data")
        os.makedirs(data, exist_ok=True)
        for line in text.split("\n"):
            m = CONFIG_FILE_KEYS.match(line)
            if m and "/" not in m.group(2):
                target = os.path.join(data, m.group(2))
                if not os.path.exists(target):
                    sample = SAMPLE_INTRADAY if m.group(1) == "intraday" else SAMPLE_DAILY
                    shutil.copy(sample, target)
        dropins = os.path.join(os.path.dirname(path), "conf.d")
        os.makedirs(dropins, exist_ok=True)
        with open(os.path.join(dropins, "00-docs-data.conf"), "w") as f:
            f.write("# run-doc-blocks.py: the data an installed wall would have\n[data]\ndirectory = %s\n" % data)
    problems = []
    rc, out, err = run_bash("tickerboard check-config %s" % shlex.quote(path), env, work, 30)
    said = (out + err).strip()
    if rc != 0:
        problems.append("check-config: exit %s\n%s" % (rc, said))
    elif "warnings-ok" not in block.flags and not re.search(r"OK \(0 warning\(s\)\)\s*$", said):
        problems.append("check-config warns (mark the block warnings-ok if meant):\n%s" % said)
    fetcher = os.path.join(bindir, "tickerboard-fetch")
    if re.search(r"^\s*(\[provider |providers\s*=|symbol\s*=)", text, re.M) and os.access(fetcher, os.X_OK):
        rc, out, err = run_bash("tickerboard-fetch --check --config %s" % shlex.quote(path), env, work, 30)
        if rc != 0:
            problems.append("tickerboard-fetch --check: exit %s\n%s%s" % (rc, out, err))
    return (not problems), "\n".join(problems)


def slug(heading):
    """GitHub's anchor for a heading: lower case, no punctuation but - and _, spaces as -."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors_of(path):
    found, seen = set(), {}
    inside = False
    for line in open(path, encoding="utf-8"):
        if FENCE.match(line):
            inside = not inside
            continue
        m = None if inside else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.add(s if n == 0 else "%s-%d" % (s, n))
    return found


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def check_links(path):
    """Relative links outside fenced blocks and code spans; a link's text may span lines."""
    problems, count = [], 0
    kept, inside = [], False
    for line in open(path, encoding="utf-8").read().split("\n"):
        if FENCE.match(line):
            inside = not inside
            kept.append("")
            continue
        kept.append("" if inside else line)
    text = "\n".join(kept)
    text = re.sub(r"`[^`\n]*`", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    for m in LINK.finditer(text):
        target = m.group(1)
        if re.match(r"^[a-z]+:", target):
            continue
        count += 1
        number = text.count("\n", 0, m.start(1)) + 1
        file_part, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        if not os.path.exists(resolved):
            problems.append("%d: %s: no such file" % (number, target))
        elif anchor and resolved.endswith(".md") and anchor not in anchors_of(resolved):
            problems.append("%d: %s: no heading with that anchor" % (number, target))
    return problems, count


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) >= 2 else 2)
    bindir = os.path.abspath(sys.argv[1])
    if not os.access(os.path.join(bindir, "tickerboard"), os.X_OK):
        print("run-doc-blocks: no executable %s/tickerboard" % bindir, file=sys.stderr)
        sys.exit(2)
    pages = [os.path.abspath(p) for p in sys.argv[2:]] or \
        [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    started = time.monotonic()
    passed = failed = 0
    for page in pages:
        blocks = [b for b in blocks_of(page) if b.kind]
        for b in blocks_of(page):
            mistake = b.mistake()
            if mistake:
                print("%s: FAIL (%s)" % (b.where(), mistake))
                failed += 1
        work = tempfile.mkdtemp(prefix="tb-doc-")
        env = environment(bindir, work)
        try:
            for count, block in enumerate(blocks):
                t0 = time.monotonic()
                if block.kind == "config":
                    ok, why = run_config(block, env, work, bindir, count)
                elif block.kind == "console":
                    ok, why = run_console(block, env, work)
                else:
                    ok, why = run_sh(block, env, work)
                took = time.monotonic() - t0
                print("%s: %s (%s, %.1f s)" % (block.where(), "pass" if ok else "FAIL", block.kind, took))
                if not ok:
                    print("    " + why.rstrip().replace("\n", "\n    "))
                    failed += 1
                else:
                    passed += 1
        finally:
            if os.environ.get("KEEP_DOC_BLOCKS"):
                print("    kept %s" % work)
            else:
                shutil.rmtree(work, ignore_errors=True)
        problems, links = check_links(page)
        print("%s: links: %s (%d relative links)" % (os.path.relpath(page, ROOT), "FAIL" if problems else "pass", links))
        for p in problems:
            print("    " + p)
        failed += 1 if problems else 0
    print("run-doc-blocks: %d runnable blocks passed, %d failed (%d pages, %.1f s)"
          % (passed, failed, len(pages), time.monotonic() - started))
    if passed == 0 and failed == 0:
        print("run-doc-blocks: no block is marked runnable", file=sys.stderr)
        sys.exit(1)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
