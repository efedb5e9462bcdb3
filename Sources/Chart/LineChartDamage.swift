import Raster

/// What changes on screen between two frames of the line chart, as a few rectangles: during a
/// morph the line moves, but the picture above both lines, below both (the area's gradient is a
/// function of y alone), and every column the line did not move in stay the same pixels. Cutting
/// the plot into narrow vertical strips and keeping, in each, only the rows between the highest
/// and lowest point of the old and new line leaves a band around the two lines: on a 1080p morph
/// about a third of the plot instead of all of the screen, so both the drawing and the copy to
/// scanout shrink.
extension LineChartPainter {
    /// The rectangles whose pixels can differ between `old` painted and `new` painted (each is
    /// redrawn whole, in any order), at most about `limit` of them; nil when the plot may change
    /// everywhere (the draw-in's tip moved, a line appeared or went, a coordinate is not finite).
    /// Nothing outside the chart is judged here: the labels are the caller's.
    public func damage(from old: LineChartFrame, to new: LineChartFrame, bounds: IntRect, limit: Int = 12) -> [IntRect]? {
        if old == new { return [] }
        guard old.lineEndX == new.lineEndX, !old.vertices.isEmpty, !new.vertices.isEmpty,
              old.vertices.allSatisfy({ $0.x.isFinite && $0.y.isFinite && abs($0.y) < 1e7 }),
              new.vertices.allSatisfy({ $0.x.isFinite && $0.y.isFinite && abs($0.y) < 1e7 }),
              old.baselineY.isFinite, new.baselineY.isFinite,
              plot.left.isFinite, plot.right.isFinite, plot.top.isFinite, plot.bottom.isFinite else { return nil }
        // How far a stroke's antialiased ink reaches from its centre line (round caps and joins:
        // half its width), a pixel of coverage and a pixel of rounding on top.
        let reach = Int((metrics.lineWidth / 2).rounded(.up)) + 2
        let hair = Int((max(metrics.baselineWidth, metrics.indicatorWidth) / 2).rounded(.up)) + 2
        // The strips span the plot and wherever a vertex lies beyond it.
        var xMin = plot.left, xMax = plot.right, yMin = plot.top, yMax = plot.bottom
        for p in old.vertices { xMin = min(xMin, p.x); xMax = max(xMax, p.x); yMin = min(yMin, p.y); yMax = max(yMax, p.y) }
        for p in new.vertices { xMin = min(xMin, p.x); xMax = max(xMax, p.x); yMin = min(yMin, p.y); yMax = max(yMax, p.y) }
        // From above the highest ink to below the plot's foot (where the area ends) or the lowest ink.
        let top = Int(yMin.rounded(.down)) - reach, bottom = Int(yMax.rounded(.up)) + reach
        guard xMax - xMin < 1e7 else { return nil }
        let left = Int(xMin.rounded(.down)) - reach, right = Int(xMax.rounded(.up)) + reach
        var rects: [IntRect] = []

        // The line and the area under it. The line's colour reaches every pixel of both (the area
        // is that colour faded), so a new colour repaints each strip down to the plot's foot.
        let recoloured = old.lineColor != new.lineColor
        let restyled = recoloured || old.regularSpans != new.regularSpans
        let strip = max(8, Int((24 * Double(metrics.lineWidth) / 3).rounded()))
        let count = max(1, (right - left + strip - 1) / strip)
        let a = Self.extents(of: old.vertices, left: left, strip: strip, count: count, reach: Double(reach))
        let b = Self.extents(of: new.vertices, left: left, strip: strip, count: count, reach: Double(reach))
        var strips: [IntRect] = []
        for i in 0..<count {
            let (ea, eb) = (a[i], b[i])
            guard ea.touched || eb.touched else { continue }
            // The same segments over a strip draw the same pixels there, unless the style changed.
            if !restyled, ea.touched, eb.touched,
               old.vertices[ea.first...ea.last] == new.vertices[eb.first...eb.last] { continue }
            var lo = Int.max, hi = Int.min
            for e in [ea, eb] where e.touched {
                lo = min(lo, Int(e.low.rounded(.down)))
                hi = max(hi, Int(e.high.rounded(.up)) + 1)
            }
            if recoloured { hi = max(hi, bottom) }
            let x0 = left + i * strip
            strips.append(IntRect(x0: x0, y0: lo, x1: x0 + strip, y1: hi))
        }
        rects += Self.merged(strips, limit: max(1, limit - 4))

        // The area's upright sides stand at the first and last vertex.
        for (p, q) in [(old.vertices[0].x, new.vertices[0].x), (old.vertices[old.vertices.count - 1].x, new.vertices[new.vertices.count - 1].x)]
        where p != q || recoloured {
            rects.append(IntRect(x0: Int(min(p, q).rounded(.down)) - reach, y0: top,
                                 x1: Int(max(p, q).rounded(.up)) + reach + 1, y1: bottom))
        }
        // The dashed baseline spans the plot; its dashes do not move along it.
        let oldBase = snapToPixelCenter(old.baselineY, width: metrics.baselineWidth)
        let newBase = snapToPixelCenter(new.baselineY, width: metrics.baselineWidth)
        if oldBase != newBase {
            for y in [oldBase, newBase] {
                rects.append(IntRect(x0: left, y0: Int(y.rounded(.down)) - hair, x1: right, y1: Int(y.rounded(.up)) + hair + 1))
            }
        }
        // Upright hairlines: the sessions' separators, the scrub's indicator (and its dot, in the
        // line's colour).
        var columns: [Double] = []
        if old.separators != new.separators { columns += old.separators + new.separators }
        if old.indicator != new.indicator || (recoloured && (old.indicator != nil || new.indicator != nil)) {
            let dot = Int((metrics.dotRadius).rounded(.up)) + 2
            for p in [old.indicator, new.indicator].compactMap({ $0 }) {
                guard p.x.isFinite, p.y.isFinite, abs(p.x) < 1e9, abs(p.y) < 1e9 else { return nil }
                columns.append(p.x)
                let x = Int(p.x.rounded(.down)), y = Int(p.y.rounded(.down))
                rects.append(IntRect(x0: x - dot, y0: y - dot, x1: x + 1 + dot, y1: y + 1 + dot))
            }
        }
        for x in columns where x.isFinite && abs(x) < 1e9 {
            rects.append(IntRect(x0: Int(x.rounded(.down)) - hair, y0: top, x1: Int(x.rounded(.up)) + hair + 1, y1: bottom))
        }
        return rects.map { $0.intersection(bounds) }.filter { !$0.isEmpty }
    }

    /// Per strip: the first and last vertex of the segments whose ink can reach it, and the
    /// lowest and highest y that ink reaches there (each segment cut to the strip's columns widened
    /// by the stroke's reach).
    struct Extent {
        var first = Int.max, last = Int.min, low = Double.infinity, high = -Double.infinity
        var touched: Bool { first <= last }
    }

    static func extents(of v: [Point], left: Int, strip: Int, count: Int, reach: Double) -> [Extent] {
        var out = [Extent](repeating: Extent(), count: count)
        let s = Double(strip), l = Double(left)
        for k in 0..<max(1, v.count - 1) {
            let p = v[k], q = v[min(k + 1, v.count - 1)]
            let (x0, x1) = (min(p.x, q.x) - reach, max(p.x, q.x) + reach)
            let i0 = max(0, Int(((x0 - l) / s).rounded(.down))), i1 = min(count - 1, Int(((x1 - l) / s).rounded(.down)))
            guard i0 <= i1 else { continue }
            for i in i0...i1 {
                // The segment's stretch within the strip's columns (and the reach either side).
                let c0 = l + Double(i) * s - reach, c1 = l + Double(i + 1) * s + reach
                var ylo = min(p.y, q.y), yhi = max(p.y, q.y)
                if q.x != p.x {
                    let t0 = max(0, min(1, (c0 - p.x) / (q.x - p.x))), t1 = max(0, min(1, (c1 - p.x) / (q.x - p.x)))
                    let y0 = p.y + (q.y - p.y) * t0, y1 = p.y + (q.y - p.y) * t1
                    ylo = min(y0, y1); yhi = max(y0, y1)
                }
                out[i].first = min(out[i].first, k)
                out[i].last = max(out[i].last, min(k + 1, v.count - 1))
                out[i].low = min(out[i].low, ylo - reach)
                out[i].high = max(out[i].high, yhi + reach)
            }
        }
        return out
    }

    /// Neighbouring strips joined while that costs few extra pixels, then the pair costing the
    /// fewest joined until at most `limit` remain (every redrawn rectangle is one pass of drawing).
    static func merged(_ strips: [IntRect], limit: Int) -> [IntRect] {
        func area(_ r: IntRect) -> Int { r.width * r.height }
        var out: [IntRect] = []
        for r in strips {
            if let last = out.last, last.x1 == r.x0, area(last.union(r)) <= (area(last) + area(r)) * 5 / 4 {
                out[out.count - 1] = last.union(r)
            } else {
                out.append(r)
            }
        }
        while out.count > limit {
            var best = 0, cost = Int.max
            for i in 0..<(out.count - 1) {
                let c = area(out[i].union(out[i + 1])) - area(out[i]) - area(out[i + 1])
                if c < cost { cost = c; best = i }
            }
            out[best] = out[best].union(out[best + 1])
            out.remove(at: best + 1)
        }
        return out
    }
}
