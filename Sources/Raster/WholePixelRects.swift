/// Axis-aligned strokes that cover whole pixels: a hairline on pixel edges (the scrub cursor), the
/// dashes of a snapped baseline. Their coverage is known without walking their edges: 1 inside and
/// 0 outside, the bytes the edge walk gives (its corners can sit an ulp off the pixel edge, which
/// no byte sees), so the canvas composites each row of each as one span of full coverage.
struct WholePixelRects {
    /// Clipped to the area, sorted by rows, then by x. Rectangles that share their first row share
    /// all their rows (a horizontal dashed line) and lie apart in x; the others lie apart in rows
    /// (a vertical one): no pixel is covered twice, as the stroke's union covers it once.
    private(set) var rects: [IntRect] = []

    /// The rectangles of these stroke pieces (segments with butt or square ends, `halfWidth` to each
    /// side), clipped to `area`; nil when one is not axis-aligned, not on whole pixels, or the pieces
    /// overlap (the grid must draw them then).
    init?(pieces: [(Point, Point)], halfWidth: Double, squareEnds: Bool, area: IntRect) {
        let ext = squareEnds ? halfWidth : 0
        // Whole pixels only, and far from Int's limits (the grid clamps the same way). The bound is
        // tested first, so the conversion cannot trap; it stands in for `rounded()`, a libm call.
        func whole(_ v: Double) -> Int? {
            guard abs(v) < 1_073_741_824 else { return nil }
            let n = Int(v)
            return Double(n) == v ? n : nil
        }
        var out: [IntRect] = []
        out.reserveCapacity(pieces.count)
        for (k, (a, b)) in pieces.enumerated() {
            let r: (Double, Double, Double, Double)
            if a.y == b.y && a.x != b.x {
                r = (min(a.x, b.x) - ext, a.y - halfWidth, max(a.x, b.x) + ext, a.y + halfWidth)
            } else if a.x == b.x && a.y != b.y {
                r = (a.x - halfWidth, min(a.y, b.y) - ext, a.x + halfWidth, max(a.y, b.y) + ext)
            } else {
                return nil
            }
            guard let x0 = whole(r.0), let y0 = whole(r.1), let x1 = whole(r.2), let y1 = whole(r.3) else { return nil }
            let rect = IntRect(x0: x0, y0: y0, x1: x1, y1: y1)
            bounds = k == 0 ? rect : bounds.union(rect)
            let clipped = rect.intersection(area)
            if !clipped.isEmpty { out.append(clipped) }
        }
        out.sort { $0.y0 != $1.y0 ? $0.y0 < $1.y0 : $0.x0 < $1.x0 }
        for k in out.indices.dropFirst() {
            let p = out[k - 1], r = out[k]
            let sameRows = p.y0 == r.y0 && p.y1 == r.y1 && p.x1 <= r.x0
            guard sameRows || r.y0 >= p.y1 else { return nil }
        }
        rects = out
    }

    /// The pieces' bounding box, unclipped (what `rasterize` computes from their edges, so the
    /// canvas takes the same grid for them).
    private(set) var bounds = IntRect(x0: 0, y0: 0, x1: 0, y1: 0)

    var isEmpty: Bool { rects.isEmpty }
}
