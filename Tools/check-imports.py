#!/usr/bin/env python3
"""Checks the package's module boundaries (issue 14, item 4), before anything is built.

  1. Every `import X` (also `@testable`, `@_exported`, `@preconcurrency`, `import struct X.Y`) in a target's Swift
     sources names a module the target declares as a DIRECT dependency in Package.swift, when X is one of the
     package's targets (C shims included: they are targets too). SwiftPM's own check accepts transitive ones.
     Any other module must be a system module of the toolchain (SYSTEM_MODULES).
  2. Layers: a target depends only on targets of its own layer or lower ones. The layers are the `layer` lines
     of the comment at the top of Package.swift, highest first (the one source of truth); test targets sit above
     every layer; every other target must be listed.
  3. Pure targets depend only on pure targets and import no Glibc, Foundation or Dispatch. The one exception is a
     C library that does no I/O and reads no clock (PURE_SHIMS: libnghttp2, which frames bytes in memory).

Usage: Tools/check-imports.py [--root DIR] [--dump FILE]   (default: `swift package dump-package` in DIR)
       Tools/check-imports.py --self-test                  (negative controls on a fake package)
Exit status 0 when every boundary holds, 1 with one line per violation (target, file:line, module, why).
"""

import json
import os
import re
import subprocess
import sys
import tempfile

SYSTEM_MODULES = {
    "Swift", "_Concurrency", "Glibc", "Musl", "Foundation", "FoundationEssentials", "FoundationNetworking",
    "Dispatch", "Synchronization", "XCTest", "Testing", "PackageDescription",
    # Apple's own, imported only under `#if canImport(Photos)` by code written for PhotoKit and SquallPhotos alike.
    "Photos",
}
# Shims a pure target may use: libraries of pure computation (no sockets, files, threads or clock reads).
PURE_SHIMS = {"CNghttp2"}
PURE_FORBIDDEN = {"Glibc", "Musl", "Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch"}
PURE_LAYER = "pure"

IMPORT = re.compile(
    r"^\s*(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?([A-Za-z_]\w*)"
)
LAYER_LINE = re.compile(r"^//\s+layer\s+([\w-]+):\s*([^—]*)")


def read_layers(package_swift):
    """The `layer NAME: TARGET …` lines of Package.swift, as [(name, [targets])], highest first."""
    layers = []
    with open(package_swift, encoding="utf-8") as handle:
        for line in handle:
            match = LAYER_LINE.match(line)
            if not match:
                continue
            name, targets = match.group(1), match.group(2).split()
            if layers and layers[-1][0] == name:
                layers[-1][1].extend(targets)
            else:
                layers.append((name, targets))
    return layers


def dependencies(target):
    names = []
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target"):
            if kind in dependency:
                names.append(dependency[kind][0])
    return names


def target_path(target):
    if target.get("path"):
        return target["path"]
    return os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])


def swift_files(root, target):
    base = os.path.join(root, target_path(target))
    excluded = [os.path.normpath(os.path.join(base, entry)) for entry in target.get("exclude", [])]
    for folder, subfolders, files in os.walk(base):
        subfolders[:] = sorted(s for s in subfolders if os.path.join(folder, s) not in excluded)
        for name in sorted(files):
            path = os.path.join(folder, name)
            if name.endswith(".swift") and path not in excluded:
                yield path


def imports(path):
    """(line number, module) of each import statement, skipping the insides of multi-line string literals."""
    in_string = False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not in_string:
                match = IMPORT.match(line)
                if match:
                    yield number, match.group(1)
            if line.count('"""') % 2 == 1:
                in_string = not in_string


def check(root, dump):
    layers = read_layers(os.path.join(root, "Package.swift"))
    rank = {}
    for index, (name, members) in enumerate(reversed(layers)):
        for member in members:
            rank[member] = (index, name)
    targets = {target["name"]: target for target in dump["targets"]}
    problems = []
    if not layers:
        problems.append("Package.swift: no `// layer NAME: TARGET …` lines in the comment at its top")
    for member in rank:
        if member not in targets:
            problems.append(f"Package.swift: layer {rank[member][1]} lists {member}, which is not a target")

    for name, target in sorted(targets.items()):
        declared = dependencies(target)
        is_test = target["type"] == "test"
        if not is_test and name not in rank:
            problems.append(f"{name}: not in any `layer` line of Package.swift")
            continue
        layer = rank.get(name, (len(layers), "tests"))
        for dependency in declared:
            if dependency not in targets:
                continue
            theirs = rank.get(dependency, (len(layers), "tests"))
            if theirs[0] > layer[0]:
                problems.append(
                    f"{name} ({layer[1]}): depends on {dependency} ({theirs[1]}), a higher layer")
            elif layer[1] == PURE_LAYER and theirs[1] != PURE_LAYER and dependency not in PURE_SHIMS:
                problems.append(f"{name} (pure): depends on {dependency} ({theirs[1]}); pure targets use pure ones")
        for path in swift_files(root, target):
            relative = os.path.relpath(path, root)
            for line, module in imports(path):
                where = f"{name}: {relative}:{line}: import {module}"
                if module == name:
                    continue
                if module in targets:
                    if module not in declared:
                        problems.append(f"{where}: not a declared dependency of {name} in Package.swift")
                elif module not in SYSTEM_MODULES:
                    problems.append(f"{where}: neither a target of the package nor a known system module")
                elif layer[1] == PURE_LAYER and module in PURE_FORBIDDEN:
                    problems.append(f"{where}: a pure target imports no Glibc, Foundation or Dispatch")
    return problems


def dump_package(root):
    output = subprocess.run(
        ["swift", "package", "dump-package"], cwd=root, check=True, capture_output=True, text=True).stdout
    return json.loads(output)


def self_test():
    """Negative controls: a fake package whose every boundary is broken once fails, naming each break; the same
    package with them mended passes."""
    def write(root, relative, text):
        path = os.path.join(root, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)

    def target(name, kind="regular", deps=()):
        return {"name": name, "type": kind, "path": None, "exclude": [],
                "dependencies": [{"byName": [dep, None]} for dep in deps]}

    header = "// layer io: Net\n// layer pure: Core Codec\n// layer shims: CShim\n"
    with tempfile.TemporaryDirectory() as root:
        write(root, "Package.swift", header)
        write(root, "Sources/Core/Core.swift", "public struct Core {}\n")
        write(root, "Sources/Codec/Codec.swift", "import Core\nimport Foundation\n")
        quoted = 'let s = """\nimport Zed\n"""\n'
        write(root, "Sources/Net/Net.swift", "import Codec\n@testable import Core\n" + quoted)
        write(root, "Tests/NetTests/NetTests.swift", "import Net\nimport Testing\nimport Mystery\n")
        dump = {"targets": [
            target("CShim", "system"), target("Core"), target("Codec", deps=["Net", "CShim"]),
            target("Net", deps=["Codec"]), target("NetTests", "test", ["Net"]),
        ]}
        found = check(root, dump)
        expected = [
            "Codec (pure): depends on Net (io), a higher layer",
            "Codec (pure): depends on CShim (shims); pure targets use pure ones",
            "Codec: Sources/Codec/Codec.swift:1: import Core: not a declared dependency of Codec in Package.swift",
            "Codec: Sources/Codec/Codec.swift:2: import Foundation: a pure target imports no Glibc, Foundation or "
            "Dispatch",
            "Net: Sources/Net/Net.swift:2: import Core: not a declared dependency of Net in Package.swift",
            "NetTests: Tests/NetTests/NetTests.swift:3: import Mystery: neither a target of the package nor a known "
            "system module",
        ]
        failures = [f"missing: {line}" for line in expected if line not in found]
        failures += [f"unexpected: {line}" for line in found if line not in expected]
        write(root, "Sources/Codec/Codec.swift", "import Core\n")
        write(root, "Tests/NetTests/NetTests.swift", "import Net\nimport Testing\n")
        dump["targets"][2]["dependencies"] = [{"byName": ["Core", None]}]
        dump["targets"][3]["dependencies"] = [{"byName": ["Codec", None]}, {"byName": ["Core", None]}]
        failures += [f"unexpected after the fix: {line}" for line in check(root, dump)]
    for line in failures:
        print(f"check-imports self-test: {line}", file=sys.stderr)
    print(f"check-imports self-test: {len(expected)} violations found in the broken package, none once mended"
          if not failures else "check-imports self-test: FAILED")
    return 1 if failures else 0


def main(arguments):
    if arguments == ["--self-test"]:
        return self_test()
    root, dump_file = ".", None
    while arguments:
        flag, value, arguments = arguments[0], arguments[1] if len(arguments) > 1 else None, arguments[2:]
        if flag == "--root" and value:
            root = value
        elif flag == "--dump" and value:
            dump_file = value
        else:
            print(__doc__, file=sys.stderr)
            return 2
    if dump_file:
        with open(dump_file, encoding="utf-8") as handle:
            dump = json.load(handle)
    else:
        dump = dump_package(root)
    problems = check(root, dump)
    for problem in problems:
        print(f"check-imports: {problem}", file=sys.stderr)
    count = sum(1 for target in dump["targets"] for _ in swift_files(root, target))
    if problems:
        print(f"check-imports: {len(problems)} boundary violations", file=sys.stderr)
        return 1
    print(f"check-imports: {len(dump['targets'])} targets, {count} Swift files: every import declared, layers hold")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
