// Paths keep verbs and points apart and flatten runs of lines in bulk: the same subpaths, elements
// and non-finite handling as one element at a time.
@testable import Raster
import Testing

@Suite("Paths")
struct PathTests {
    @Test("elements come back as built") func elementsComeBackAsBuilt() {
        var p = Path()
        p.move(to: Point(1, 2)); p.line(to: Point(3, 4))
        p.quad(to: Point(5, 6), control: Point(7, 8))
        p.cubic(to: Point(9, 10), control1: Point(11, 12), control2: Point(13, 14))
        p.close()
        p.addPolyline([Point(0, 0), Point(1, 0), Point(1, 1)])
        #expect(p.elements == [.move(Point(1, 2)), .line(Point(3, 4)), .quad(Point(7, 8), Point(5, 6)),
                               .cubic(Point(11, 12), Point(13, 14), Point(9, 10)), .close,
                               .move(Point(0, 0)), .line(Point(1, 0)), .line(Point(1, 1))])
        var empty = Path()
        empty.addPolyline([Point]())
        #expect(empty.isEmpty)
    }

    /// A non-finite point inside a run of lines ends the subpath there, as element by element; a
    /// transform takes the element-by-element way and gives the same points.
    @Test("runs of lines flatten as element by element") func runsOfLinesFlattenAsElementByElement() {
        var p = Path()
        p.addPolyline([Point(0, 0), Point(1, 0), Point(.nan, 0), Point(2, 0), Point(3, 0)])
        p.close()
        p.line(to: Point(5, 5))
        p.addPolyline([Point(7, 7), Point(8, 8)])
        let (lines, sawNonFinite) = p.flattened(transform: .identity)
        #expect(sawNonFinite)
        #expect(lines.map(\.points) == [[Point(0, 0), Point(1, 0)], [Point(2, 0), Point(3, 0)],
                                        [Point(2, 0), Point(5, 5)], [Point(7, 7), Point(8, 8)]])
        #expect(lines.map(\.isClosed) == [false, true, false, false])
        let (shifted, _) = p.flattened(transform: Transform(a: 1, b: 0, c: 0, d: 1, tx: 10, ty: 0))
        #expect(shifted.map { $0.points.map { Point($0.x - 10, $0.y) } } == lines.map(\.points))
    }
}
