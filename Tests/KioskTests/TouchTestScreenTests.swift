import Input
@testable import Kiosk
import Raster
import Text
import Testing

@Suite("Touch test screen")
struct TouchTestScreenTests {
    @Test("contacts appear as rings where they touch and disappear when lifted; rates are counted")
    func contacts() throws {
        let screen = TouchTestScreen(width: 400, height: 300, fonts: try FontSet.load())
        let background = Color(rgb: 0x0D1117).premultiplied
        #expect(screen.handle(.touchDown(slot: 3, x: 200, y: 250, time: 1)))
        var frame = screen.render()
        // The ring (radius 36, 4 px wide) passes through (236, 250); its centre stays empty.
        #expect(frame[236, 250] != background)
        #expect(frame[200, 250] == background)
        #expect(screen.handle(.touchMotion(slot: 3, x: 100, y: 250, time: 2)))
        frame = screen.render()
        #expect(frame[136, 250] != background)
        #expect(frame[236, 250] == background)
        #expect(screen.tick())
        #expect(screen.reportRate == 2)
        #expect(screen.handle(.touchUp(slot: 3, time: 3)))
        frame = screen.render()
        #expect(frame[136, 250] == background)
        // Corner targets are drawn.
        #expect(frame[40, 40] != background)
        #expect(frame[360, 260] != background)
    }
}
