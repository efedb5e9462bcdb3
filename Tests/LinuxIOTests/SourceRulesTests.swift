import LinuxIO
import Testing

/// The house rules that a compiler does not enforce, checked on the sources themselves: raw
/// system calls on paths and descriptors live in LinuxIO and the small device wrappers, backends
/// are named through `DisplayBackends.Choice` and scenes through `SceneKind`, never as strings.
@Suite("Source rules")
struct SourceRulesTests {
    /// The package's `Sources` directory, found from this file's path.
    static var sources: String {
        var dir = #filePath
        for _ in 0..<3 { dir = String(dir[..<(dir.lastIndex(of: "/") ?? dir.startIndex)]) }
        return dir + "/Sources"
    }

    /// Every Swift file under `directory`, as paths relative to `Sources`.
    static func swiftFiles(_ directory: String = sources, prefix: String = "") -> [String] {
        FileSystem.list(directory).sorted().flatMap { name -> [String] in
            let full = directory + "/" + name
            if FileSystem.isDirectory(full) { return swiftFiles(full, prefix: prefix + name + "/") }
            return name.hasSuffix(".swift") ? [prefix + name] : []
        }
    }

    /// Lines of code (comments dropped) of `file` that contain a call of one of `names`, with an
    /// argument (`Path.close()` is a path's verb, not the system call).
    static func calls(of names: [String], in file: String) throws -> [String] {
        let text = String(decoding: try RegularFile.read(sources + "/" + file, limit: 1 << 22), as: UTF8.self)
        var found: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            for name in names {
                var rest = Substring(line)
                while let range = rest.firstRange(of: name + "(") {
                    let before = rest[..<range.lowerBound].last
                    let after = rest[range.upperBound...].first
                    let isCall = before.map { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") } ?? true
                    if isCall && after != ")" { found.append("\(file):\(number + 1): \(line.trimmingCharacters())") }
                    rest = rest[range.upperBound...]
                }
            }
        }
        return found
    }

    static let wrappers: Set<String> = ["Display/DRMDevice.swift", "Display/FBDevice.swift", "Display/VTDevice.swift",
                                             "Display/CECAdapter.swift"]

    @Test("no raw close, ioctl, access, stat, readdir, readlink, rename or write(2) outside LinuxIO and the device wrappers")
    func rawCallsStayInTheWrappers() throws {
        let files = Self.swiftFiles()
        #expect(files.count > 50, "found the sources: \(files.count) files")
        var offenders: [String] = []
        for file in files where !file.hasPrefix("LinuxIO/") && !Self.wrappers.contains(file) {
            offenders += try Self.calls(of: ["close", "ioctl", "access", "stat", "lstat", "opendir", "readdir", "readlink",
                                             "rename", "Glibc.write", "Glibc.close"], in: file)
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    @Test("CVersion includes nothing but its own header (it is data, not I/O)")
    func versionShimIsData() throws {
        for file in ["CVersion/version.c", "CVersion/include/tb_version.h"] {
            let text = String(decoding: try RegularFile.read(Self.sources + "/" + file, limit: 1 << 16), as: UTF8.self)
            let includes = text.split(separator: "\n").filter { $0.hasPrefix("#include") }
            #expect(includes.allSatisfy { $0 == "#include \"tb_version.h\"" }, "\(file): \(includes)")
        }
    }

    /// Calls of libdrm functions (`drmHandleEvent(`, `drmModeGetProperty(`) in `file`, comments dropped.
    static func libdrmCalls(in file: String) throws -> [String] {
        let text = String(decoding: try RegularFile.read(sources + "/" + file, limit: 1 << 22), as: UTF8.self)
        var found: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            var rest = Substring(line)
            while let range = rest.firstRange(of: "drm") {
                let before = rest[..<range.lowerBound].last
                let name = rest[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                let startsWord = before.map { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") } ?? true
                if startsWord, name.first?.isUppercase == true, rest[range.upperBound...].dropFirst(name.count).first == "(" {
                    found.append("\(file):\(number + 1): drm\(name)")
                }
                rest = rest[range.upperBound...]
            }
        }
        return found
    }

    @Test("libdrm is called only in DRMDevice.swift")
    func libdrmStaysInItsWrapper() throws {
        var offenders: [String] = []
        for file in Self.swiftFiles() where file != "Display/DRMDevice.swift" { offenders += try Self.libdrmCalls(in: file) }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
        #expect(try Self.libdrmCalls(in: "Display/DRMDevice.swift").contains { $0.hasSuffix("drmHandleEvent") }, "the rule finds a call")
    }

    @Test("the rule finds a raw call where there is one (the check can fail)")
    func theRuleCanFail() throws {
        let found = try Self.calls(of: ["readdir", "close"], in: "LinuxIO/FileSystem.swift")
        #expect(found.contains { $0.contains("readdir(dir)") })
    }

    @Test("no backend is compared as a string: \"headless\" is written only where the headless display names itself")
    func noBackendStrings() throws {
        var offenders: [String] = []
        for file in Self.swiftFiles() where file != "Display/HeadlessDisplay.swift" {
            let text = String(decoding: try RegularFile.read(Self.sources + "/" + file, limit: 1 << 22), as: UTF8.self)
            if text.contains("\"headless\"") { offenders.append(file) }
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }

    @Test("no display is asked what kind it is outside Sources/Display: the shell talks to the protocol and its card")
    func noDisplayDowncasts() throws {
        // Issue 51: the shell held eight downcasts to KMSDisplay (status, backlight, touch by
        // connector, the second output's card); a backend then had to be KMS to behave like one.
        let kinds = ["KMSDisplay", "FBDevDisplay", "HeadlessDisplay"]
        var offenders: [String] = []
        for file in Self.swiftFiles() where !file.hasPrefix("Display/") {
            let text = String(decoding: try RegularFile.read(Self.sources + "/" + file, limit: 1 << 22), as: UTF8.self)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for kind in kinds where line.contains("as? \(kind)") || line.contains("as! \(kind)") || line.contains("is \(kind)") {
                    offenders.append("\(file):\(number + 1): \(line)")
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    /// Scene names and their old spellings, which only `SceneKind` spells (issue 51: "scene" was
    /// four enums and strings in ten places, two of them switches the compiler could not check).
    static let sceneNames = ["line", "chart", "bars", "draw", "draw-in", "watchlist", "tape", "portfolio"]
    static let sceneVocabulary = "StatusModel/SceneKind.swift"
    /// The same words as literals that name no scene, by file: config section names, a bench mode,
    /// the portfolio's instrument id. (A literal before `:` is a table's key, a section or key of
    /// the config schema or a bench workload, and passes anywhere.)
    static let sceneHomonyms: [String: Set<String>] = [
        "KioskCore/Config/Config.swift": ["chart", "tape", "portfolio"],
        "Commands/BenchCommand.swift": ["tape"],
        "KioskCore/KioskCore.swift": ["portfolio"],
    ]

    /// Scene names written as string literals in `text` (comments dropped), but for `allowed`
    /// words and table keys.
    static func sceneLiterals(in text: String, file: String, allowed: Set<String> = []) -> [String] {
        var found: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            for name in sceneNames where !allowed.contains(name) {
                var rest = Substring(line)
                while let range = rest.firstRange(of: "\"\(name)\"") {
                    let after = rest[range.upperBound...].drop { $0 == " " }.first
                    if after != ":" { found.append("\(file):\(number + 1): \(line.trimmingCharacters())") }
                    rest = rest[range.upperBound...]
                }
            }
        }
        return found
    }

    @Test("no scene name is spelt as a string outside SceneKind (config sections and keys and bench workloads are no scenes)")
    func noSceneStrings() throws {
        var offenders: [String] = []
        for file in Self.swiftFiles() where file != Self.sceneVocabulary {
            let text = String(decoding: try RegularFile.read(Self.sources + "/" + file, limit: 1 << 22), as: UTF8.self)
            offenders += Self.sceneLiterals(in: text, file: file, allowed: Self.sceneHomonyms[file] ?? [])
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
        let vocabulary = String(decoding: try RegularFile.read(Self.sources + "/" + Self.sceneVocabulary, limit: 1 << 20), as: UTF8.self)
        #expect(vocabulary.contains("case chart") && vocabulary.contains("\"line\": .chart"), "the vocabulary is where the rule says")
    }

    @Test("the scene rule finds a scene name where there is one, and passes a table key and a comment (the check can fail)")
    func theSceneRuleCanFail() {
        let text = """
            if name == "line" { return }
            let s = ["chart", "tape"]
            let schema = ["chart": 1, "watchlist" : 2] // "bars"
            """
        #expect(Self.sceneLiterals(in: text, file: "x.swift") == ["x.swift:1: if name == \"line\" { return }",
                                                                 "x.swift:2: let s = [\"chart\", \"tape\"]",
                                                                 "x.swift:2: let s = [\"chart\", \"tape\"]"])
        #expect(Self.sceneLiterals(in: text, file: "x.swift", allowed: ["line", "chart", "tape"]).isEmpty)
    }

    @Test("the core compares no object by identity (===): its values compare as values")
    func noIdentityInTheCore() throws {
        var offenders: [String] = []
        for file in Self.swiftFiles() where file.hasPrefix("KioskCore/") {
            let text = String(decoding: try RegularFile.read(Self.sources + "/" + file, limit: 1 << 22), as: UTF8.self)
            for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = raw.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                if line.contains("===") || line.contains("!==") { offenders.append("\(file):\(number + 1): \(line.trimmingCharacters())") }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    /// The modules each pure target may import. Package.swift keeps LinuxIO, Display and Input out
    /// of their dependencies; this keeps out what needs no dependency (Glibc, the C shims).
    static let pureImports: [String: Set<String>] = [
        "KioskCore": ["Chart", "Feed", "Text", "Raster", "DisplayModel", "InputModel", "Control", "StatusModel"],
        // CVersion is 64 bytes of data and a function that returns their address (the checks below
        // hold it to that: no header of the system's, so no call that could do I/O).
        "Control": ["CVersion", "StatusModel"],
        "DisplayModel": [],
        "InputModel": [],
        // The status contract: the daemon links it, so no Foundation either (it has its own JSON).
        "StatusModel": [],
    ]

    /// `import X` lines of `file` (with `@testable`, `public` and the like dropped).
    static func imports(in file: String) throws -> [String] {
        let text = String(decoding: try RegularFile.read(sources + "/" + file, limit: 1 << 22), as: UTF8.self)
        return text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard let i = words.firstIndex(of: "import"), i + 1 < words.count,
                  words[..<i].allSatisfy({ $0.hasPrefix("@") || ["public", "internal", "package", "private"].contains($0) })
            else { return nil }
            return String(words[i + 1])
        }
    }

    @Test("the core and the model targets import nothing that does I/O (no Glibc, LinuxIO, Display, Input, C shim)")
    func pureTargetsImportNoIO() throws {
        var offenders: [String] = []
        for (target, allowed) in Self.pureImports {
            let files = Self.swiftFiles().filter { $0.hasPrefix(target + "/") }
            #expect(!files.isEmpty, "found \(target)'s sources")
            for file in files {
                offenders += try Self.imports(in: file).filter { !allowed.contains($0) }.map { "\(file): import \($0)" }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    @Test("the core's test driver and the core's tests import neither the shell nor anything that does I/O")
    func coreTestsNeedNoShell() throws {
        // Issue 51: the core's tests are to build and run without the daemon; the target's
        // dependencies say so, and this keeps a file from importing a module built anyway.
        let allowed: Set<String> = ["CoreDriver", "KioskCore", "StatusModel", "Control", "Chart", "Feed", "Text", "Raster",
                                    "DisplayModel", "InputModel", "Testing"]
        var offenders: [String] = []
        for dir in ["../Tests/CoreDriver", "../Tests/KioskCoreTests"] {
            let files = Self.swiftFiles(Self.sources + "/" + dir, prefix: dir + "/")
            #expect(!files.isEmpty, "found \(dir)")
            for file in files {
                offenders += try Self.imports(in: file).filter { !allowed.contains($0) }.map { "\(file): import \($0)" }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    @Test("the import rule finds an import where there is one (the check can fail)")
    func theImportRuleCanFail() throws {
        #expect(try Self.imports(in: "Kiosk/Daemon.swift").contains("LinuxIO"))
        #expect(try Self.imports(in: "KioskCore/KioskCore.swift").contains("Chart"))
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
