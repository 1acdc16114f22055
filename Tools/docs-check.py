#!/usr/bin/env python3
"""The docs cannot go stale (issue 40): README.md and docs/*.md checked against the repository and the binary.

    Tools/docs-check.py [SQUALL_BINARY]      default .build/debug/squall

- README.md has at most 320 lines, and every docs/*.md page is linked from docs/README.md and from README.md.
- Every relative link [text](path#anchor) resolves: the file exists, and the anchor is a heading of that file (GitHub's
  slugs: lower case, spaces to '-', punctuation but '-' and '_' dropped, '-1', '-2' for repeats) or an <a id="...">.
- Every squall command line in a sh, bash, console (lines after '$ ', in plain blocks too) or yaml ('run:' lines)
  block, and every usage synopsis (a plain block opening with 'squall COMMAND [--option …]'), started as
  'squall', '.build/debug/squall' or 'swift run squall' (after '$ ', in a pipeline, in $(…), with '\\' continuations
  or a trailing '&'): its command is one 'squall --help' lists, and every --option it uses is in that command's
  --help. Values and placeholders (PORT, FILE) are not checked, only option names.
- Every json or jsonc block (// comments allowed; one document or one per line) goes through the loader that reads
  it: a scenario (an object with "name" and one of "faults", "expect", "client") with 'squall validate FILE'; a
  fault rule (an object with "action") wrapped in the smallest valid scenario, {"name", "description", "assets",
  "expect", "faults": [rule]}, with 'squall validate'; a server profile (an object with "url" or "interop" whose keys
  are all Scenarios/server-profile.schema.json's) with 'squall run MINIMAL --filter NOTHING --server-profile FILE',
  which reads the profile strictly and then runs nothing. Other fragments (a trigger alone, an event) are skipped.
  A block right after <!-- docs-check: invalid --> must be refused instead: an example of a mistake.
- A block right after <!-- docs-check: run --> runs with 'bash -euo pipefail' in a fresh temporary folder holding a
  copy of Scenarios/, with 'squall' on PATH (a link to the binary), HOME set to that folder (so ~/.squall/ca is its
  own) and SQUALL_CA_DIR unset. It must exit 0 within 60 s and leave no process of its own running. Such a block
  stays on loopback: every address it names is 127.0.0.1 or localhost on port 0, and it never sleeps (it waits on a
  readiness line).

Each problem is one line, 'FILE:LINE: what is wrong', and the exit status is 1; otherwise a summary and 0.
--self-test runs every check on made-up pages with a stand-in squall: each kind of problem must be found, and a
clean set of pages must pass.
"""
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README_MAX_LINES = 320
RUN_TIMEOUT = 60
SHELL_LANGS = {"sh", "bash", "shell", "console"}
JSON_LANGS = {"json", "jsonc"}
MARKER = re.compile(r"^<!--\s*docs-check:\s*(run|invalid)\s*-->\s*$")
NO_MATCH = "docs-check-matches-no-scenario"


# ---------------------------------------------------------------------------------------------------------- markdown

class Block:
    """A fenced code block: the line of its opening fence, its language, its lines and the marker before it."""

    def __init__(self, line, lang, marker):
        self.line, self.lang, self.marker, self.lines = line, lang, marker, []


class Page:
    """One markdown file: its lines, fenced blocks, anchors and links (outside code)."""

    def __init__(self, path, root):
        self.path = path
        self.name = os.path.relpath(path, root)
        with open(path, encoding="utf-8") as f:
            self.lines = f.read().split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.blocks, self.anchors, self.links = [], set(), []
        self._read()

    def _read(self):
        block, fence, counts = None, None, {}
        for number, line in enumerate(self.lines, 1):
            stripped = line.strip()
            if block is not None:
                if stripped.startswith(fence) and stripped.strip("`~") == "":
                    self.blocks.append(block)
                    block = None
                else:
                    block.lines.append((number, line))
                continue
            opening = re.match(r"^(```+|~~~+)\s*([\w+-]*)", stripped)
            if opening:
                fence = opening.group(1)
                block = Block(number, opening.group(2).lower(), self._marker_before(number))
                continue
            heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if heading:
                slug = github_slug(heading.group(1))
                counts[slug] = counts.get(slug, -1) + 1
                self.anchors.add(slug if counts[slug] == 0 else f"{slug}-{counts[slug]}")
            for explicit in re.finditer(r'<a\s+(?:id|name)="([^"]+)"', line):
                self.anchors.add(explicit.group(1))
            prose = re.sub(r"`[^`]*`", "", line)
            for link in re.finditer(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose):
                self.links.append((number, link.group(1)))
        if block is not None:
            self.blocks.append(block)

    def _marker_before(self, number):
        """'run' or 'invalid' when the nearest non-blank line before line `number` is a docs-check marker."""
        index = number - 2
        while index >= 0 and self.lines[index].strip() == "":
            index -= 1
        if index >= 0:
            found = MARKER.match(self.lines[index].strip())
            if found:
                return found.group(1)
        return None


def github_slug(heading):
    """The anchor GitHub gives a heading: markup dropped, lower case, punctuation but '-' and '_' dropped, spaces '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def pages_of(root):
    """README.md and docs/*.md (sorted), as Pages."""
    paths = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        paths += sorted(os.path.join(docs, n) for n in os.listdir(docs) if n.endswith(".md"))
    return [Page(p, root) for p in paths if os.path.isfile(p)]


# ------------------------------------------------------------------------------------------------- links and pages

def check_structure(root, pages, problems, stats):
    """README length; every docs page linked from docs/README.md and README.md; every relative link resolves."""
    by_path = {os.path.realpath(p.path): p for p in pages}
    readme = by_path.get(os.path.realpath(os.path.join(root, "README.md")))
    if readme is None:
        problems.append("README.md:1: missing")
        return
    if len(readme.lines) > README_MAX_LINES:
        problems.append(f"README.md:{len(readme.lines)}: {len(readme.lines)} lines, over the limit of "
                        f"{README_MAX_LINES}: move material to docs/")
    targets = {}
    for page in pages:
        targets[page.name] = set()
        for number, link in page.links:
            if re.match(r"^[a-z][a-z0-9+.-]*:", link) or link.startswith("//"):
                continue
            stats["links"] += 1
            path, _, anchor = link.partition("#")
            target = os.path.realpath(os.path.join(os.path.dirname(page.path), path)) if path else \
                os.path.realpath(page.path)
            if not os.path.exists(target):
                problems.append(f"{page.name}:{number}: link to {link}: no file {os.path.relpath(target, root)}")
                continue
            targets[page.name].add(target)
            if anchor and target.endswith(".md"):
                linked = by_path.get(target) or Page(target, root)
                if anchor not in linked.anchors:
                    problems.append(f"{page.name}:{number}: link to {link}: {linked.name} has no heading or "
                                    f"<a id> with the anchor #{anchor}")
    index_name = os.path.join("docs", "README.md")
    for page in pages:
        if not page.name.startswith("docs" + os.sep) or page.name == index_name:
            continue
        real = os.path.realpath(page.path)
        for holder in ("README.md", index_name):
            if holder not in targets:
                problems.append(f"{holder}:1: missing (it must link every docs page)")
            elif real not in targets[holder]:
                problems.append(f"{holder}:1: does not link {page.name}: every docs page is in both tables of "
                                f"contents")


# ------------------------------------------------------------------------------------------------ squall commands

class Help:
    """What 'squall --help' and 'squall COMMAND --help' say: the commands, the groups, each command's options."""

    known = {}

    @classmethod
    def of(cls, binary):
        """One Help per binary, each --help asked once."""
        if binary not in cls.known:
            cls.known[binary] = cls(binary)
        return cls.known[binary]

    def __init__(self, binary):
        self.binary = binary
        self.options = {}
        out = run_binary(binary, ["--help"]).stdout
        section = out.split("Commands:", 1)[1] if "Commands:" in out else ""
        self.commands = set()
        for line in section.split("\n"):
            found = re.match(r"^ {1,4}(\S+(?: \S+)?)\s{2,}\S", line)
            if found:
                self.commands.add(found.group(1))
        self.groups = {c.split(" ")[0] for c in self.commands if " " in c}

    def options_of(self, command):
        """The option names (--x and -x) of a command's --help, asked once."""
        if command not in self.options:
            result = run_binary(self.binary, command.split(" ") + ["--help"])
            names = set()
            in_options = False
            for line in result.stdout.split("\n"):
                if line.startswith("Options:"):
                    in_options = True
                elif in_options and line.strip() == "":
                    in_options = False
                elif in_options:
                    column = re.split(r"\s{2,}", line.strip())[0]
                    names.update(re.findall(r"(?:^|[\s,])(--?[A-Za-z0-9][\w-]*)", column))
            self.options[command] = names
        return self.options[command]


def run_binary(binary, args, timeout=30):
    return subprocess.run([binary] + args, capture_output=True, text=True, timeout=timeout)


def shell_lines(block):
    """(line number, logical line) of a shell block: '\\' continuations joined, heredoc bodies and output left out."""
    result, pending, start, heredoc = [], "", None, None
    for number, raw in block.lines:
        if heredoc is not None:
            if raw.strip() == heredoc:
                heredoc = None
            continue
        line = raw
        if block.lang == "console" and not pending:
            if not line.lstrip().startswith("$ "):
                continue
            line = line.lstrip()[2:]
        if block.lang == "yaml" and not pending:
            found = re.match(r"^\s*-?\s*run:\s*(.*)$", line)
            if not found or found.group(1).strip() in ("", "|", ">"):
                continue
            line = found.group(1)
        if start is None:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        logical = pending + line
        result.append((start, logical))
        pending, start = "", None
        found = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", logical)
        if found:
            heredoc = found.group(1)
    if pending:
        result.append((start, pending))
    return result


def squall_invocations(line):
    """Each squall command in a shell line: the words after the binary up to the end of its command."""
    try:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        tokens = line.split("#", 1)[0].split()
    separators = re.compile(r"^[();|&]+$")
    invocations, index = [], 0
    while index < len(tokens):
        starts = index == 0 or separators.match(tokens[index - 1] or "")
        if starts:
            while index < len(tokens) and re.match(r"^[A-Za-z_]\w*=", tokens[index]) and tokens[index][-1] != "$":
                index += 1
            words = None
            if index < len(tokens) and re.match(r"^(\./)?(\.build/(debug|release)/)?squall$", tokens[index]):
                words = index + 1
            elif tokens[index:index + 3] == ["swift", "run", "squall"]:
                words = index + 3
            if words is not None:
                end = words
                while end < len(tokens) and not re.match(r"^[();|&<>]+$", tokens[end]):
                    end += 1
                invocations.append(tokens[words:end])
                index = end
                continue
        index += 1
    return invocations


def check_command(help_, words):
    """What is wrong with one squall command, or None."""
    if not words or words[0] in ("--help", "-h", "help", "--version"):
        return None
    if len(words) > 1 and f"{words[0]} {words[1]}" in help_.commands:
        command, rest = f"{words[0]} {words[1]}", words[2:]
    elif words[0] in help_.commands:
        command, rest = words[0], words[1:]
    elif words[0] in help_.groups:
        if len(words) == 1 or words[1] in ("--help", "-h"):
            return None
        return f"squall {words[0]}: no command {words[1]!r} (see squall --help)"
    else:
        return f"squall: no command {words[0]!r} (see squall --help)"
    known = help_.options_of(command)
    for word in rest:
        if word.startswith("-") and word not in ("-", "--") and not re.match(r"^-\d", word):
            name = word.split("=", 1)[0]
            if name not in known:
                return f"squall {command}: no option {name} (see squall {command} --help)"
    return None


def synopses(help_, block):
    """(line, words) of a plain block that opens with a usage synopsis ('squall run [PATH...] [--filter TEXT]'): each
    'squall COMMAND' line with its indented continuation lines; the words are the command's and every --option named."""
    def command_of(line):
        found = re.match(r"^squall (\S+)(?: (\S+))?", line)
        if not found or line[len(found.group(0)):].startswith(":"):
            return None
        two = f"{found.group(1)} {found.group(2)}"
        if found.group(2) and two in help_.commands:
            return two.split(" ")
        return [found.group(1)] if found.group(1) in help_.commands | help_.groups else None
    if not block.lines or command_of(block.lines[0][1]) is None:
        return []
    result = []
    for number, line in block.lines:
        text = line.split("#", 1)[0]
        words = command_of(text)
        if words is not None:
            result.append((number, words))
        elif result and text.startswith(" "):
            pass
        else:
            continue
        result[-1][1].extend(re.findall(r"(?<![\w-])--[A-Za-z0-9][\w-]*[A-Za-z0-9]", text if words is None else
                                        text[len("squall " + " ".join(words)):]))
    return result


def check_commands(pages, help_, problems, stats):
    for page in pages:
        for block in page.blocks:
            if block.lang == "":
                for number, words in synopses(help_, block):
                    stats["commands"] += 1
                    problem = check_command(help_, words)
                    if problem:
                        problems.append(f"{page.name}:{number}: {problem}")
                console = Block(block.line, "console", None)
                console.lines = block.lines
                block = console
            if block.lang not in SHELL_LANGS and block.lang != "yaml":
                continue
            for number, line in shell_lines(block):
                for words in squall_invocations(line):
                    stats["commands"] += 1
                    problem = check_command(help_, words)
                    if problem:
                        problems.append(f"{page.name}:{number}: {problem}")


# ------------------------------------------------------------------------------------------------- JSON examples

def strip_comments(text):
    """JSON text without // comments (outside strings)."""
    out, in_string, escaped, index = [], False, False, 0
    while index < len(text):
        char = text[index]
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif text.startswith("//", index):
            while index < len(text) and text[index] != "\n":
                index += 1
            continue
        else:
            out.append(char)
        index += 1
    return "".join(out)


def json_documents(block):
    """[(line, value)] of a json block: one document, or one per line; None when it is neither."""
    text = "\n".join(line for _, line in block.lines)
    try:
        return [(block.line + 1, json.loads(strip_comments(text)))]
    except ValueError:
        pass
    documents = []
    for number, line in block.lines:
        line = strip_comments(line).strip()
        if not line:
            continue
        try:
            documents.append((number, json.loads(line)))
        except ValueError:
            return None
    return documents


class Loader:
    """The binary's loaders: scenarios and fault rules with 'squall validate', profiles with 'squall run'."""

    minimal_problems = {}

    def __init__(self, binary, root, folder):
        self.binary, self.folder, self.count = binary, folder, 0
        schema = os.path.join(root, "Scenarios", "server-profile.schema.json")
        try:
            with open(schema, encoding="utf-8") as f:
                self.profile_keys = set(json.load(f)["properties"])
        except (OSError, ValueError, KeyError):
            self.profile_keys = set()
        self.minimal = {"name": NO_MATCH, "description": "The smallest valid scenario, a wrapper for one fault rule.",
                        "assets": [{"name": "a", "size": "1KiB"}], "expect": {"retries": 0}}
        self.minimal_path = self._write(self.minimal)
        if binary not in Loader.minimal_problems:
            result = self._run(["validate", self.minimal_path])
            Loader.minimal_problems[binary] = None if result.returncode == 0 else \
                f"the minimal scenario {json.dumps(self.minimal)} is not valid: {(result.stdout + result.stderr).strip()}"
        self.minimal_problem = Loader.minimal_problems[binary]

    def kind(self, value):
        if not isinstance(value, dict):
            return None
        if "name" in value and any(k in value for k in ("faults", "expect", "client")):
            return "scenario"
        if "action" in value:
            return "fault rule"
        if self.profile_keys and value and set(value) <= self.profile_keys and ("url" in value or "interop" in value):
            return "server profile"
        return None

    def _write(self, value):
        self.count += 1
        path = os.path.join(self.folder, f"example-{self.count}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(value, f, indent=2)
        return path

    def _run(self, args):
        return run_binary(self.binary, args, timeout=60)

    said_before = {}

    def check(self, kind, value):
        """(accepted, what the loader said); the same example asked once per binary."""
        key = (self.binary, kind, json.dumps(value, sort_keys=True))
        if key not in Loader.said_before:
            Loader.said_before[key] = self._check(kind, value)
        return Loader.said_before[key]

    def _check(self, kind, value):
        if kind == "scenario":
            result = self._run(["validate", self._write(value)])
            return result.returncode == 0, result.stdout + result.stderr
        if kind == "fault rule":
            if self.minimal_problem:
                return False, self.minimal_problem
            wrapped = dict(self.minimal, faults=[value])
            result = self._run(["validate", self._write(wrapped)])
            return result.returncode == 0, result.stdout + result.stderr
        result = self._run(["run", self.minimal_path, "--filter", NO_MATCH + "-not", "--server-profile",
                            self._write(value)])
        said = result.stdout + result.stderr
        if result.returncode == 1 and "no scenario matches" in said:
            return True, said
        return False, said


def check_json(pages, loader, problems, stats):
    for page in pages:
        for block in page.blocks:
            if block.lang not in JSON_LANGS:
                continue
            documents = json_documents(block)
            if documents is None:
                problems.append(f"{page.name}:{block.line}: a {block.lang} block that is neither JSON (// comments "
                                f"allowed) nor one JSON value per line")
                continue
            checked = []
            for number, value in documents:
                kind = loader.kind(value)
                if kind is None:
                    stats["fragments"] += 1
                    continue
                accepted, said = loader.check(kind, value)
                stats["examples"] += 1
                checked.append((number, kind, accepted, said))
            if block.marker == "invalid":
                if not checked:
                    problems.append(f"{page.name}:{block.line}: marked invalid, but it holds no scenario, fault "
                                    f"rule or server profile to check")
                for number, kind, accepted, _ in checked:
                    if accepted:
                        problems.append(f"{page.name}:{number}: a {kind} marked invalid, but squall accepts it")
                continue
            for number, kind, accepted, said in checked:
                if not accepted:
                    first = next((l for l in said.strip().split("\n") if l.strip()), "refused")
                    problems.append(f"{page.name}:{number}: squall refuses this {kind}: {first.strip()}")


# --------------------------------------------------------------------------------------------------- run blocks

def loopback_problems(text):
    """Why a run block's text may leave loopback or port 0, or waits with sleep."""
    found = []
    for match in re.finditer(r"\b(127\.0\.0\.1|localhost|0\.0\.0\.0|\[::1?\]):(\d+)", text):
        host, port = match.groups()
        if host == "0.0.0.0" or host.startswith("[::]"):
            found.append(f"listens on {match.group(0)}: run blocks stay on 127.0.0.1")
        elif port != "0":
            found.append(f"names the fixed port {match.group(0)}: run blocks use port 0 and read the bound port")
    for match in re.finditer(r"\b(?:https?|wss?)://([^/\s\"':]+)", text):
        host = match.group(1)
        if host not in ("127.0.0.1", "localhost") and not host.startswith("$"):
            found.append(f"reaches {match.group(0)}: run blocks stay on 127.0.0.1")
    for line in text.split("\n"):
        if re.search(r"(^|[\s;&|(])sleep\s", line.split("#", 1)[0]):
            found.append("waits with sleep: wait on a readiness line (a FIFO, read) instead")
            break
    return found


def run_block(binary, root, text, timeout):
    """Runs a block as the docs promise; None when it exited 0 in time and left nothing running, else why not."""
    folder = tempfile.mkdtemp(prefix="docs-check-run-")
    try:
        bin_dir = os.path.join(folder, ".bin")
        os.mkdir(bin_dir)
        os.symlink(os.path.abspath(binary), os.path.join(bin_dir, "squall"))
        work = os.path.join(folder, "work")
        os.mkdir(work)
        scenarios = os.path.join(root, "Scenarios")
        if os.path.isdir(scenarios):
            shutil.copytree(scenarios, os.path.join(work, "Scenarios"))
        script = os.path.join(folder, "block.sh")
        with open(script, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        env = dict(os.environ, HOME=work, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
        env.pop("SQUALL_CA_DIR", None)
        log_path = os.path.join(folder, "output")
        with open(log_path, "w") as log:
            process = subprocess.Popen(["bash", "-euo", "pipefail", script], cwd=work, env=env, stdin=subprocess.DEVNULL,
                                       stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                status = process.wait(timeout=timeout)
                problem = None if status == 0 else f"exited with status {status}"
            except subprocess.TimeoutExpired:
                problem = f"still running after {timeout} s"
        leftover = stop_group(process)
        if leftover and problem is None:
            problem = "left a process running: stop what it starts in a trap"
        if problem:
            with open(log_path, encoding="utf-8", errors="replace") as f:
                tail = f.read().strip().split("\n")[-6:]
            return problem + "".join("\n    " + line for line in tail if line)
        return None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def group_members(pgid):
    """The live (not zombie) processes of a process group, from /proc."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry))
    return members


def stop_group(process):
    """Ends what is left of the block's process group; True when something of it was still running."""
    process.poll()
    if not group_members(process.pid):
        return False
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return True
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            process.poll()
            if not group_members(process.pid):
                return True
            time.sleep(0.05)
    return True


def check_runs(pages, binary, root, timeout, problems, stats):
    for page in pages:
        for block in page.blocks:
            if block.marker != "run":
                continue
            if block.lang not in SHELL_LANGS - {"console"}:
                problems.append(f"{page.name}:{block.line}: a run block must be sh or bash, not {block.lang or 'plain'}")
                continue
            text = "\n".join(line for _, line in block.lines)
            static = loopback_problems(text)
            for problem in static:
                problems.append(f"{page.name}:{block.line}: run block {problem}")
            if static:
                continue
            stats["runs"] += 1
            problem = run_block(binary, root, text, timeout)
            if problem:
                problems.append(f"{page.name}:{block.line}: run block {problem}")


# --------------------------------------------------------------------------------------------------------- main

def check(root, binary, timeout=RUN_TIMEOUT):
    """Every problem of root's README.md and docs/, and the figures of what was checked."""
    problems = []
    stats = {"pages": 0, "links": 0, "commands": 0, "examples": 0, "fragments": 0, "runs": 0}
    pages = pages_of(root)
    stats["pages"] = len(pages)
    check_structure(root, pages, problems, stats)
    if not os.access(binary, os.X_OK):
        problems.append(f"{binary}: no such executable; build it first (swift build)")
        return problems, stats
    check_commands(pages, Help.of(binary), problems, stats)
    folder = tempfile.mkdtemp(prefix="docs-check-json-")
    try:
        check_json(pages, Loader(binary, root, folder), problems, stats)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    check_runs(pages, binary, root, timeout, problems, stats)
    return problems, stats


def summary(stats):
    return (f"docs-check: {stats['pages']} pages, {stats['links']} links, {stats['commands']} squall commands, "
            f"{stats['examples']} JSON examples validated ({stats['fragments']} fragments skipped), "
            f"{stats['runs']} blocks run: no problem")


# ---------------------------------------------------------------------------------------------------- self-test

FAKE_SQUALL = r'''#!PYTHON
import json, sys
args = sys.argv[1:]
if args in (["--help"], []):
    print("Usage: squall <command>\n\nCommands:\n  run          Run.\n  validate     Check.\n"
          "  fault add    Add.\n  fault list   List.\n\nRun 'squall <command> --help'.")
    sys.exit(0)
OPTIONS = {"run": ["--filter TEXT", "--server-profile FILE", "--json FILE"], "validate": ["--max-faults N"],
           "fault add": ["--api URL", "--at-offset POS"], "fault list": ["--api URL"]}
command = " ".join(args[:2]) if " ".join(args[:2]) in OPTIONS else args[0]
if args[-1] == "--help":
    print(f"Usage: squall {command}\n\nOptions:")
    for option in OPTIONS[command] + ["-h, --help"]:
        print(f"  {option:20}  What it does, e.g. --not-an-option.")
    print("\nMore words --in-prose.")
    sys.exit(0)
if command == "validate":
    scenario = json.load(open(args[1]))
    ok = "description" in scenario and all(f.get("action") in ("reset", "stall") for f in scenario.get("faults", []))
    print("1 scenario valid" if ok else f"{args[1]}: invalid")
    sys.exit(0 if ok else 1)
if command == "run" and "--server-profile" in args:
    profile = json.load(open(args[args.index("--server-profile") + 1]))
    if set(profile) - {"url", "interop"}:
        print("squall run: unknown key in a server profile", file=sys.stderr)
        sys.exit(2)
    print("squall run: no scenario matches", file=sys.stderr)
    sys.exit(1)
sys.exit(0)
'''

CLEAN_README = """# Made up

Intro. See [the index](docs/README.md).

```sh
squall run Scenarios --filter reset --json r.json   # a comment --not-checked
.build/debug/squall fault add --api http://127.0.0.1:8474 cut reset --at-offset 40% &
x=$(squall fault list --api "$api") && echo "$x" | grep cut
```

```console
$ squall validate a.json \\
    --max-faults 3
squall validate: output lines are not commands --nor-options
```

RUN_BLOCK
## Contents

- [Faults](docs/faults.md#on-the-wire)
- [Scenarios](docs/scenarios.md#writing-scenarios)
"""

RUN_BLOCK = """<!-- docs-check: run -->
```sh
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
squall validate Scenarios/one.json
test -f Scenarios/one.json && test "$HOME" = "$PWD"
```
"""

CLEAN_INDEX = """# Docs

- [faults.md](faults.md)
- [scenarios.md](scenarios.md#a-heading--with-punctuation)
"""

CLEAN_FAULTS = """# Faults

<a id="limits"></a>Limits.

## On the wire

```json
{"name": "cut", "action": "reset", "trigger": {"at-offset": "40%"}}
{"name": "hold", "action": "stall"}
```

```jsonc
{"trigger": {"at-offset": "30%"}}       // a fragment: skipped
```

<!-- docs-check: invalid -->
```json
{"name": "bad", "action": "explode"}
```

Back to [the README](../README.md#contents) and [limits](#limits).
"""

CLEAN_SCENARIOS = """# Scenarios

## Writing scenarios

```json
{
  "name": "s", "description": "d", "assets": [], "expect": {"retries": 0},
  "faults": [{"name": "cut", "action": "reset"}]
}
```

```json
{"url": "http://127.0.0.1:8080/upload", "interop": [6, 8]}
```

```
squall run [PATH...] [--filter TEXT]
           [--json FILE]
squall fault list --api URL
```

```
squall run: output lines are not commands --nor-options
$ squall validate a.json --max-faults 1
```

## A heading — with (punctuation)!

```yaml
steps:
  - run: .build/debug/squall run Scenarios --filter a
```
"""


def self_test():
    folder = tempfile.mkdtemp(prefix="docs-check-self-test-")
    try:
        binary = os.path.join(folder, "squall")
        with open(binary, "w") as f:
            f.write(FAKE_SQUALL.replace("PYTHON", sys.executable, 1))
        os.chmod(binary, 0o755)
        clean = {"README.md": CLEAN_README, "docs/README.md": CLEAN_INDEX, "docs/faults.md": CLEAN_FAULTS,
                 "docs/scenarios.md": CLEAN_SCENARIOS,
                 "Scenarios/one.json": '{"name": "one", "description": "d", "assets": [], "expect": {"retries": 0}}',
                 "Scenarios/server-profile.schema.json": '{"properties": {"url": {}, "interop": {}, "auth": {}}}'}

        def case(label, edits, expected):
            root = os.path.join(folder, label.replace(" ", "-"))
            files = dict(clean)
            runs = label == "clean" or label.startswith("run block")
            files["README.md"] = files["README.md"].replace("RUN_BLOCK\n", RUN_BLOCK if runs else "")
            for name, edit in edits.items():
                files[name] = edit(files.get(name, ""))
            for name, text in files.items():
                if text is None:
                    continue
                path = os.path.join(root, name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
            problems, _ = check(root, binary, timeout=3)
            if expected is None:
                return [f"{label}: expected no problem, found {problems}"] if problems else []
            if len(problems) != 1 or expected not in problems[0]:
                return [f"{label}: expected exactly one problem containing {expected!r}, found {problems}"]
            return []

        add_to = lambda extra: (lambda text: text + extra)
        replace = lambda old, new: (lambda text: text.replace(old, new, 1))
        failures = case("clean", {}, None)
        cases = [
            ("README too long", {"README.md": add_to("line\n" * 320)}, "over the limit of 320"),
            ("page not in the index", {"docs/README.md": replace("- [faults.md](faults.md)\n", "")},
             "docs/README.md:1: does not link docs/faults.md"),
            ("page not in the README", {"README.md": replace("- [Faults](docs/faults.md#on-the-wire)\n", "")},
             "README.md:1: does not link docs/faults.md"),
            ("missing file", {"docs/faults.md": add_to("[x](nowhere.md)\n")}, "no file docs/nowhere.md"),
            ("missing anchor", {"docs/faults.md": add_to("[x](scenarios.md#no-such-heading)\n")},
             "has no heading or <a id> with the anchor #no-such-heading"),
            ("missing anchor in the same page", {"docs/faults.md": add_to("[x](#on-the-wir)\n")}, "#on-the-wir"),
            ("unknown command", {"README.md": add_to("```sh\nsquall rn Scenarios\n```\n")}, "no command 'rn'"),
            ("unknown command of a group", {"README.md": add_to("```bash\nsquall fault ad --api U\n```\n")},
             "squall fault: no command 'ad'"),
            ("unknown option", {"README.md": add_to("```sh\nsquall fault add --api U x reset --rat 5\n```\n")},
             "squall fault add: no option --rat"),
            ("unknown option after a continuation",
             {"README.md": add_to("```console\n$ squall run \\\n    --filtr x\n```\n")}, "no option --filtr"),
            ("unknown option in a pipeline", {"README.md": add_to("```sh\ncat x | squall validate --max-fault 1\n```\n")},
             "no option --max-fault"),
            ("unknown option in yaml", {"docs/scenarios.md": add_to("```yaml\n- run: squall run --jnuit x\n```\n")},
             "no option --jnuit"),
            ("stale option in a synopsis", {"docs/scenarios.md": replace("           [--json FILE]", "           [--jsn FILE]")},
             "squall run: no option --jsn"),
            ("unknown option in a plain block's command", {"docs/scenarios.md": replace("--max-faults 1", "--max-fault 1")},
             "no option --max-fault"),
            ("invalid scenario", {"docs/scenarios.md": replace('"name": "s", "description": "d",', '"name": "s",')},
             "squall refuses this scenario"),
            ("invalid fault rule", {"docs/faults.md": replace('"action": "stall"', '"action": "stal"')},
             "squall refuses this fault rule"),
            ("invalid profile", {"docs/scenarios.md": replace('"interop": [6, 8]}', '"interop": [6], "auth": 1}')},
             "squall refuses this server profile"),
            ("invalid example accepted", {"docs/faults.md": replace('"action": "explode"', '"action": "reset"')},
             "marked invalid, but squall accepts it"),
            ("broken JSON", {"docs/faults.md": add_to('```json\n{"name": "x", "action": \n```\n')},
             "neither JSON"),
            ("run block fails", {"README.md": replace("test -f Scenarios/one.json", "test -f Scenarios/two.json")},
             "run block exited with status 1"),
            ("run block hangs", {"README.md": replace("test -f Scenarios/one.json", "tail -f /dev/null")},
             "still running after 3 s"),
            ("run block leaves a process", {"README.md": replace("trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
                                                                 "tail -f /dev/null > /dev/null 2>&1 &")},
             "left a process running"),
            ("run block on a fixed port", {"README.md": replace("squall validate Scenarios/one.json",
                                                                "squall run --filter http://127.0.0.1:8080/x")},
             "fixed port 127.0.0.1:8080"),
            ("run block off loopback", {"README.md": replace("squall validate Scenarios/one.json",
                                                             "curl -s https://example.com/")},
             "reaches https://example.com"),
            ("run block sleeps", {"README.md": replace("squall validate Scenarios/one.json", "sleep 1")},
             "waits with sleep"),
        ]
        for label, edits, expected in cases:
            failures += case(label, edits, expected)
        for failure in failures:
            print(f"self-test: {failure}")
        if failures:
            return 1
        print(f"docs-check self-test: a clean set of pages passes; each of {len(cases)} kinds of problem is found")
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    binary = argv[1] if len(argv) == 2 else os.path.join(ROOT, ".build", "debug", "squall")
    problems, stats = check(ROOT, os.path.abspath(binary))
    for problem in problems:
        print(problem)
    if problems:
        print(f"docs-check: {len(problems)} problems", file=sys.stderr)
        return 1
    print(summary(stats))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
