import DisplayModel
import InputModel
@testable import KioskCore
import StatusModel
import Testing

/// The stats line the E2E reads: its vblank reading bounds the flips and misses between two readings.
@Suite("Frame statistics")
struct FrameStatisticsTests {
    @Test("the last vblank survives a pause; flips and misses fit in the span of two readings")
    func lastVblankSpansTheWindow() {
        var stats = FrameStatistics()
        #expect(stats.summary.contains("missed vblanks 0, last vblank 0, render p50"))
        stats.recordFlip(sequence: 100, animating: true)
        let first = stats.lastVblank
        stats.recordFlip(sequence: 101, animating: true)
        stats.recordFlip(sequence: 104, animating: true)   // two missed
        stats.resetSequence()                               // idle: the counter reading stays
        #expect(stats.lastVblank == 104)
        stats.recordFlip(sequence: 200, animating: true)    // after a pause: no miss
        stats.recordFlip(sequence: 201, animating: true)
        let flips = stats.completedFlips - 1, span = Int(stats.lastVblank - first)
        #expect(stats.missedVblanks == 2)
        #expect(flips + stats.missedVblanks <= span)
        #expect(stats.summary.contains("flips 5, missed vblanks 2, last vblank 201, render p50"))
    }
}

/// The status file stays JSON whatever the numbers (issue 37: a price of 1.8e302 wrote `inf`).
@Suite("Status file numbers")
struct StatusNumberTests {
    @Test("huge, tiny and non-finite values are JSON numbers or null", arguments: [
        1.8e302, -1.7976931348623157e308, 1e300, 5e-324, 123.4567891, .infinity, .nan,
    ])
    func jsonNumbers(value: Double) {
        var s = KioskStatus()
        s.price = value
        let line = s.json.split(separator: "\n").first { $0.contains("\"price\"") }.map(String.init) ?? ""
        let text = String(line.drop { $0 != ":" }.dropFirst().drop { $0 == " " }.dropLast())
        #expect(!text.contains("inf") && !text.contains("nan"), "\(text)")
        if value.isFinite { #expect(Double(text) != nil, "\(text)") } else { #expect(text == "null") }
    }
}
