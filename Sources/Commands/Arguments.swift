import Kiosk
import KioskCore

/// A command-line mistake: one clear line for the user, exit status 2.
public struct UsageError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The arguments of one subcommand: `--name value`, `--name=value` and `--flag`. Every option must
/// be claimed by the command; leftovers are reported as unknown, so a typo never passes silently.
struct Arguments {
    private var remaining: [String]
    /// Everything given, for `given`: an option with a default is otherwise indistinguishable.
    private let original: [String]
    let command: String

    init(command: String, _ arguments: [String]) {
        self.command = command
        remaining = arguments
        original = arguments
    }

    /// True if `--help` or `-h` was given.
    mutating func wantsHelp() -> Bool { flag("--help") || flag("-h") }

    mutating func flag(_ name: String) -> Bool {
        guard let i = remaining.firstIndex(of: name) else { return false }
        remaining.remove(at: i)
        return true
    }

    /// The value of an option that may be given once; giving it twice is a mistake, not a choice.
    mutating func option(_ name: String) throws(UsageError) -> String? {
        guard let value = try take(name) else { return nil }
        if remaining.contains(where: { Self.names(name, $0) }) {
            throw UsageError("\(command): \(name) is given more than once")
        }
        return value
    }

    /// Every value of an option that may be repeated (`--device A --device B`), in command-line order.
    mutating func repeatable(_ name: String) throws(UsageError) -> [String] {
        var values: [String] = []
        while let value = try take(name) { values.append(value) }
        return values
    }

    /// Removes the first `--name value` or `--name=value` and returns its value.
    private mutating func take(_ name: String) throws(UsageError) -> String? {
        guard let i = remaining.firstIndex(where: { Self.names(name, $0) }) else { return nil }
        if remaining[i] != name {
            let value = String(remaining[i].dropFirst(name.count + 1))
            remaining.remove(at: i)
            return value
        }
        guard i + 1 < remaining.count, !remaining[i + 1].hasPrefix("--") else {
            throw UsageError("\(command): \(name) needs a value")
        }
        let value = remaining[i + 1]
        remaining.removeSubrange(i...(i + 1))
        return value
    }

    /// True if `name` was on the command line (claimed or not).
    func given(_ name: String) -> Bool { original.contains { Self.names(name, $0) } }

    private static func names(_ name: String, _ argument: String) -> Bool {
        argument == name || argument.hasPrefix(name + "=")
    }

    mutating func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("\(command): \(name) \"\(text)\" is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    mutating func number(_ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let text = try option(name) else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw UsageError("\(command): \(name) \"\(text)\" is not a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// The value of `name` as `parse` reads it; a value it refuses is a mistake, named by `expected`
    /// ("kms or fbdev").
    mutating func value<T>(_ name: String, expected: String, _ parse: (String) -> T?) throws(UsageError) -> T? {
        guard let text = try option(name) else { return nil }
        guard let value = parse(text) else { throw UsageError("\(command): \(name) \"\(text)\" is not \(expected)") }
        return value
    }

    /// A `WxH` size, each side 16...16384 pixels.
    mutating func size(_ name: String = "--size") throws(UsageError) -> (width: Int, height: Int)? {
        guard let text = try option(name) else { return nil }
        guard let size = parseSize(text) else {
            throw UsageError("\(command): \(name) \"\(text)\" is not a size like 1920x1080 (16 to 16384 pixels a side)")
        }
        return size
    }

    /// Everything no option claimed, in order (a command's words, as `ctl` takes them); an
    /// unclaimed `--option` is still a mistake.
    mutating func positionals() throws(UsageError) -> [String] {
        if let option = remaining.first(where: { $0.hasPrefix("--") }) {
            throw UsageError("\(command): unknown option \"\(option)\" (see tickerboard \(command) --help)")
        }
        defer { remaining = [] }
        return remaining
    }

    /// Fails on anything no option claimed.
    func finish() throws(UsageError) {
        if let first = remaining.first {
            let what = first.hasPrefix("-") ? "unknown option" : "unexpected argument"
            throw UsageError("\(command): \(what) \"\(first)\" (see tickerboard \(command) --help)")
        }
    }
}

/// Parses `WxH` (also `W×H`); nil unless both sides are 16...16384.
func parseSize(_ text: String) -> (width: Int, height: Int)? {
    let parts = text.lowercased().split(omittingEmptySubsequences: false) { $0 == "x" || $0 == "×" }
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
          (16...16384).contains(w), (16...16384).contains(h) else { return nil }
    return (w, h)
}

/// Parses a rotation in degrees: 0, 90, 180 or 270.
func parseRotation(_ text: String) -> Int? {
    Int(text).flatMap { [0, 90, 180, 270].contains($0) ? $0 : nil }
}
