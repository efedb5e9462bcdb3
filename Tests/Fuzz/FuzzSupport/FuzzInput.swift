// Fuzz support: turns libFuzzer's byte string into the typed values a harness needs (small
// integers, doubles biased towards the values that break arithmetic, text), and a failing check
// that names the invariant. Only built with TICKERBOARD_FUZZ=1.

import Glibc
/// Reads typed values off the front of the fuzzer's input; past the end every read is zero, so
/// any input is a valid program for the harness.
public struct FuzzInput {
    public let bytes: [UInt8]
    public private(set) var position = 0

    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    public init(bytes: [UInt8]) { self.bytes = bytes }

    public var isAtEnd: Bool { position >= bytes.count }
    public var remaining: ArraySlice<UInt8> { bytes[min(position, bytes.count)...] }

    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func bool() -> Bool { byte() & 1 == 1 }

    /// A value in `0..<bound` (bound > 0).
    public mutating func int(below bound: Int) -> Int {
        let raw = Int(byte()) << 8 | Int(byte())
        return raw % max(1, bound)
    }

    public mutating func uint64() -> UInt64 {
        var v: UInt64 = 0
        for _ in 0..<8 { v = v << 8 | UInt64(byte()) }
        return v
    }

    /// A double: a quarter of the time one of the values that break arithmetic (NaN, ±inf, ±0,
    /// subnormals, the extremes, values near Int64's edge), else raw bits or a small decimal.
    public mutating func double() -> Double {
        let kind = byte()
        switch kind % 8 {
        case 0:
            let specials: [Double] = [.nan, .infinity, -.infinity, 0, -0.0, .leastNonzeroMagnitude,
                                      -.leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
                                      -.greatestFiniteMagnitude, 1e308, -1e308, 9.2e18, -9.2e18, 9.3e18, 1e15,
                                      0.5, 1, -1, 1e-300, 2.5, 1e6, 1e9]
            return specials[Int(byte()) % specials.count]
        case 1, 2: return Double(bitPattern: uint64())
        default:
            let mantissa = Double(Int16(bitPattern: UInt16(byte()) << 8 | UInt16(byte())))
            let exponent = Int(byte() % 40) - 20
            var scale = 1.0
            for _ in 0..<abs(exponent) { scale *= 10 }
            return exponent < 0 ? mantissa / scale : mantissa * scale
        }
    }

    /// Up to `limit` bytes as text (invalid UTF-8 repaired).
    public mutating func string(limit: Int = 64) -> String {
        let n = min(int(below: limit + 1), bytes.count - min(position, bytes.count))
        let slice = bytes[position..<(position + n)]
        position += n
        return String(decoding: slice, as: UTF8.self)
    }
}

/// A broken invariant: abort with the reason, so libFuzzer saves the input as a crash.
public func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                      file: StaticString = #file, line: UInt = #line) {
    if !condition() { fatalError("invariant: " + message(), file: file, line: line) }
}

/// libFuzzer's driver, entered from the harness's own `main`: SwiftPM gives every executable an
/// entry point named after its module, so libFuzzer's `main` is not the one that runs.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// The harness's test function: libFuzzer takes a C function, which cannot capture it.
nonisolated(unsafe) private var harnessBody: (UnsafePointer<UInt8>, Int) -> CInt = { _, _ in 0 }

/// Runs libFuzzer with the process's arguments and `harness` as the test function, then exits with
/// its status. A harness's whole entry point: `@main enum Harness { static func main() { runFuzzer(fuzz) } }`.
public func runFuzzer(_ harness: @escaping (UnsafePointer<UInt8>, Int) -> CInt) -> Never {
    harnessBody = harness
    var count = CommandLine.argc
    var vector: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&count, &vector) { data, size in
        guard let data else { return 0 }
        return harnessBody(data, size)
    })
}
