// Whether an answer's prices can be the instrument's. The response checks refuse what is no price
// (zero, negative, not a number); this refuses what is a number but not this instrument's price:
// a 1000x jump, a 309-digit price, another instrument's history (Stooq and http-csv answers carry
// no symbol to check). A held-back answer leaves the file as it was and says why in the status.

import Feed

enum Plausibility {
    /// No market quotes outside this (a price of 1e308 has 309 digits; 5e-324 prints as 0.00).
    static let quotable = 1e-6...1e12
    /// The largest move between the file's last close and the answer's next one.
    static let largestJump = 10.0
    /// Over this many shared days, one factor throughout is the provider re-basing the history (a
    /// split); fewer shared days cannot tell that from another instrument.
    static let rescaleEvidence = 3

    /// Why `new` cannot be merged into `existing`, or nil.
    static func problem(new: [PriceBar], existing: [PriceBar]) -> String? {
        for bar in new {
            for (name, value) in [("close", bar.close), ("open", bar.open), ("high", bar.high), ("low", bar.low)]
            where value.isFinite && value != 0 && !quotable.contains(abs(value)) {
                return "a \(name) of \(value) on \(CivilDate(unixTime: bar.time)) is no market's price; held back"
            }
        }
        guard let lastOld = existing.last, lastOld.close > 0 else {
            // A first fetch: the answer's own last year, pair by pair (`…100, 100, 100000` would show
            // +99,900 %); older history is not judged (early bitcoin rose tenfold within days).
            let recent = new.filter { $0.close > 0 && $0.time >= (new.last?.time ?? 0) - 366 * 86_400 }
            return jumpProblem(in: recent)
        }
        let old = Dictionary(existing.map { ($0.time, $0.close) }, uniquingKeysWith: { _, b in b })
        let ratios = new.compactMap { bar in old[bar.time].flatMap { $0 > 0 && bar.close > 0 ? bar.close / $0 : nil } }.sorted()
        var rescale = 1.0
        if !ratios.isEmpty {
            let median = ratios[ratios.count / 2]
            if median > 1.5 || median < 1 / 1.5 {
                // A split is n:m in small numbers and re-bases every day alike (to the cent).
                let consistent = ratios.count >= rescaleEvidence && ratios.allSatisfy { abs($0 / median - 1) < 0.005 }
                    && isSplitRatio(median)
                guard consistent else {
                    return "its prices for \(ratios.count) day\(ratios.count == 1 ? "" : "s") the file already has differ by "
                        + "x\(short(median)) (another instrument?); held back, the file is kept"
                }
                rescale = median   // the provider's history re-based (a split): the file follows it
            }
        }
        // Every step from the file's last close through the new bars, not only the first.
        let c = lastOld.close * rescale
        let last = PriceBar(time: lastOld.time, open: c, high: c, low: c, close: c)
        return jumpProblem(in: [last] + new.filter { $0.time > lastOld.time && $0.close > 0 })
    }

    /// The first step between consecutive closes of more than `largestJump` either way.
    static func jumpProblem(in bars: [PriceBar]) -> String? {
        for (a, b) in zip(bars, bars.dropFirst()) where a.close > 0 && b.close > 0 {
            let jump = b.close / a.close
            if jump > largestJump || jump < 1 / largestJump {
                return "a jump from \(short(a.close)) to \(short(b.close)) (x\(short(jump))) on "
                    + "\(CivilDate(unixTime: b.time)) is not plausible; held back, the file is kept"
            }
        }
        return nil
    }

    /// Within half a percent of n/m, n and m at most 50 (3:2, 1:10, 20:1, ...).
    static func isSplitRatio(_ r: Double) -> Bool {
        for m in 1...50 {
            let n = (r * Double(m)).rounded()
            if n >= 1, n <= 50, abs(n / Double(m) / r - 1) < 0.005 { return true }
        }
        return false
    }

    private static func short(_ v: Double) -> String {
        let r = (v * 100).rounded() / 100
        return abs(r) >= 1e6 || (r == 0 && v != 0) ? "\(v)" : "\(r)"
    }
}
