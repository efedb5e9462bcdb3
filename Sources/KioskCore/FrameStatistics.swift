import DisplayModel

/// Counts and timings of presented frames, for SIGUSR1, the exit summary and the E2E checks.
public struct FrameStatistics: Sendable, Equatable {
    public private(set) var presentedFrames = 0
    public private(set) var completedFlips = 0
    public var missedVblanks: Int { vblanks.missed }
    /// The display's vblank (or pacing tick) counter at the last completed flip, never reset: two
    /// readings span the vblanks between them, which bound the flips and misses in between however
    /// fast or slow the machine is (the E2E judges pacing by it, not by a rate).
    public private(set) var lastVblank: UInt64 = 0
    private var renderNanos: [UInt64] = []
    private var copyNanos: [UInt64] = []
    /// The same counting the displays do, here only while animating (an idle gap is no miss).
    private var vblanks = VblankSequenceTracker()
    private var inputLatencyNanos: [UInt64] = []
    /// Bytes written to scanout memory per frame, and the share of the frame's bytes that is.
    private var copiedBytes: [Int] = []
    private var copiedFractions: [Double] = []
    /// Bytes the last presented frame wrote to scanout memory.
    public private(set) var lastCopiedBytes = 0
    /// Bytes written to scanout memory since the start: two readings bracket a scene (a scrub, a
    /// burn-in step) and give its bytes per frame with the frame counts.
    public private(set) var totalCopiedBytes = 0
    private let window = 4096

    public init() {}

    mutating func recordFrame(renderNanos render: UInt64, copyNanos copy: UInt64, copiedBytes bytes: Int = 0,
                              frameBytes: Int = 0) {
        presentedFrames += 1
        // A bounded window: statistics must not grow over years of uptime.
        if renderNanos.count == window { renderNanos.removeFirst(window / 2); copyNanos.removeFirst(window / 2) }
        renderNanos.append(render)
        copyNanos.append(copy)
        if copiedBytes.count == window { copiedBytes.removeFirst(window / 2); copiedFractions.removeFirst(window / 2) }
        copiedBytes.append(bytes)
        copiedFractions.append(frameBytes > 0 ? Double(bytes) / Double(frameBytes) : 0)
        lastCopiedBytes = bytes
        totalCopiedBytes += bytes
    }

    /// Mean bytes written to scanout memory per frame over the recent frames (nil before one).
    public var meanCopiedBytes: Double? {
        copiedBytes.isEmpty ? nil : Double(copiedBytes.reduce(0, +)) / Double(copiedBytes.count)
    }

    /// Mean share of a frame's bytes written to scanout memory per frame (0...1; nil before one).
    public var meanCopyFraction: Double? {
        copiedFractions.isEmpty ? nil : copiedFractions.reduce(0, +) / Double(copiedFractions.count)
    }

    /// A completed flip; a sequence jump of more than one while animating means vblanks were missed.
    mutating func recordFlip(sequence: UInt64, animating: Bool) {
        completedFlips += 1
        vblanks.record(sequence, counting: animating)
        lastVblank = sequence
    }

    /// Time from an input event to the vblank of the frame answering it.
    mutating func recordInputLatency(nanos: UInt64) {
        if inputLatencyNanos.count == window { inputLatencyNanos.removeFirst(window / 2) }
        inputLatencyNanos.append(nanos)
    }

    /// Forget the sequence after a pause (idle, screen off): the gap is not a miss.
    mutating func resetSequence() { vblanks.reset() }

    /// Input-to-flip latency percentile in milliseconds (nil before the first sample).
    public func inputLatencyPercentile(_ p: Double) -> Double? {
        inputLatencyNanos.isEmpty ? nil : Self.percentile(inputLatencyNanos, p)
    }

    /// Drawing and copy-towards-scanout time percentiles of the recent frames, in milliseconds
    /// (nil before the first frame).
    public func renderPercentile(_ p: Double) -> Double? { renderNanos.isEmpty ? nil : Self.percentile(renderNanos, p) }
    public func copyPercentile(_ p: Double) -> Double? { copyNanos.isEmpty ? nil : Self.percentile(copyNanos, p) }

    static func percentile(_ values: [UInt64], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let index = min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded(.up)))
        return Double(sorted[index]) / 1e6
    }

    public var summary: String {
        "frames \(presentedFrames), flips \(completedFlips), missed vblanks \(missedVblanks), last vblank \(lastVblank), "
            + "render p50 \(format(Self.percentile(renderNanos, 0.5), 2)) ms p99 \(format(Self.percentile(renderNanos, 0.99), 2)) ms, "
            + "copy p50 \(format(Self.percentile(copyNanos, 0.5), 2)) ms p99 \(format(Self.percentile(copyNanos, 0.99), 2)) ms, "
            + "input-to-flip p50 \(format(Self.percentile(inputLatencyNanos, 0.5), 2)) ms p99 \(format(Self.percentile(inputLatencyNanos, 0.99), 2)) ms"
            + " (\(inputLatencyNanos.count) samples)"
            + ", scanout copy \(Int((meanCopiedBytes ?? 0).rounded())) B/frame (\(format((meanCopyFraction ?? 0) * 100, 2))% of a frame)"
            + ", last \(lastCopiedBytes) B, total \(totalCopiedBytes) B"
    }
}

/// `value` with exactly `decimals` digits after the point (no Foundation).
package func format(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "nan" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let negative = value < 0
    let scaled = (abs(value) * scale).rounded()
    let whole = Int(scaled / scale)
    let frac = Int(scaled - Double(whole) * scale)
    var fracText = String(frac)
    fracText = String(repeating: "0", count: max(0, decimals - fracText.count)) + fracText
    return (negative && scaled != 0 ? "-" : "") + String(whole) + (decimals > 0 ? "." + fracText : "")
}
